package dev.deja.exact;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.journal.FsyncPolicy;
import dev.deja.seen.Verdict;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checkpoints taken on command restore into a new data directory (as Segment's de-duplication design snapshots its
 * volumes).
 */
class ExactCheckpointTest {

    @TempDir
    Path tmp;

    private final ManualClock clock = new ManualClock(Instant.parse("2026-11-22T00:00:00Z"));

    private ExactStore open(Path dir) {
        return TestStores.eightHourWindow(dir, clock).fsync(FsyncPolicy.ALWAYS).open();
    }

    private static byte[] key(String s) {
        return s.getBytes(UTF_8);
    }

    @Test
    void aRestoredCheckpointHoldsExactlyWhatWasWrittenBeforeIt() {
        Path data = tmp.resolve("data");
        Path checkpoint = tmp.resolve("checkpoint");
        Path restored = tmp.resolve("restored");
        try (ExactStore store = open(data)) {
            store.checkThenAdd(key("before"), 3);
            clock.advance(Duration.ofHours(2)); // a second generation, so the copy spans column families
            store.checkThenAdd(key("before-too"), 4);
            store.checkpoint(checkpoint);
            store.checkThenAdd(key("after"), 5);

            assertThatThrownBy(() -> store.checkpoint(checkpoint))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("must not exist");
        }
        ExactStore.restore(checkpoint, restored);
        try (ExactStore store = open(restored)) {
            assertThat(store.checkThenAdd(key("before"), 3)).isEqualTo(Verdict.RETRY);
            assertThat(store.checkThenAdd(key("before-too"), 3)).isEqualTo(Verdict.DUPLICATE);
            assertThat(store.check(key("after"))).isFalse();
            assertThat(store.metrics().generations()).isEqualTo(2);
        }
        // The checkpoint itself is untouched by the restored store's writes and restores again.
        ExactStore.restore(checkpoint, tmp.resolve("again"));
        try (ExactStore store = open(tmp.resolve("again"))) {
            assertThat(store.check(key("before"))).isTrue();
            assertThat(store.check(key("after"))).isFalse();
        }
    }

    @Test
    void restoreRefusesAnExistingTargetOrSomethingThatIsNotACheckpoint() throws Exception {
        Path notACheckpoint = Files.createDirectories(tmp.resolve("empty"));
        assertThatThrownBy(() -> ExactStore.restore(notACheckpoint, tmp.resolve("x")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("CURRENT");
        try (ExactStore store = open(tmp.resolve("data"))) {
            store.checkpoint(tmp.resolve("cp"));
        }
        assertThatThrownBy(() -> ExactStore.restore(tmp.resolve("cp"), notACheckpoint))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must not exist");
        assertThat(tmp.resolve("x")).doesNotExist();
    }
}
