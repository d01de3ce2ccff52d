package dev.deja.exact;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.journal.FsyncPolicy;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The in-memory filters in front of the generations ({@link KeyFilter}): a reopened store reads them back in the
 * background, and its answers are exact before, during and after that.
 */
class ExactFilterTest {

    private static final Instant T0 = Instant.parse("2026-11-22T00:00:00Z");
    private static final int PER_GENERATION = 60_000;

    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock(T0);

    private ExactStore open() {
        return ExactStore.builder(dir).window(Duration.ofHours(8)).generations(8).clock(clock)
                .memtableBytes(1 << 20).blockCacheBytes(1 << 20).fsync(FsyncPolicy.NO).open();
    }

    /** Three generations of keys (seeds 1..3), one hour apart, then closed. */
    private List<byte[]> writeThreeGenerations() {
        List<byte[]> all = new ArrayList<>();
        try (ExactStore store = open()) {
            for (int g = 1; g <= 3; g++) {
                List<byte[]> keys = RandomKeys.of(PER_GENERATION, g);
                store.addAll(keys);
                all.addAll(keys);
                clock.advance(Duration.ofHours(1));
            }
            assertThat(store.metrics().generations()).isEqualTo(3);
            assertThat(store.metrics().filterBytes()).as("about 2 bytes per key").isPositive();
        }
        return all;
    }

    private static void awaitFilters(ExactStore store) throws InterruptedException {
        // The deadline only bounds a hang; nothing here asserts how fast the filters load.
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (store.metrics().filtersLoading() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(store.metrics().filtersLoading()).as("filters loaded").isZero();
    }

    @Test
    void aReopenedStoreAnswersExactlyWhileAndAfterItsFiltersLoad() throws InterruptedException {
        List<byte[]> held = writeThreeGenerations();
        List<byte[]> fresh = RandomKeys.of(PER_GENERATION, 99);
        try (ExactStore store = open()) {
            // Asked at once: the filters may still be loading, then RocksDB answers.
            assertThat(store.checkAll(held)).doesNotContain(false);
            assertThat(store.checkAll(fresh)).doesNotContain(true);
            awaitFilters(store);
            assertThat(store.checkAll(held)).doesNotContain(false);
            assertThat(store.checkAll(fresh)).doesNotContain(true);
            assertThat(store.metrics().filterBytes()).isPositive();
        }
    }

    @Test
    void keysWrittenWhileTheFiltersLoadAreFoundAfterwards() throws InterruptedException {
        writeThreeGenerations();
        List<byte[]> during = RandomKeys.of(PER_GENERATION, 4);
        try (ExactStore store = open()) {
            store.addAll(during); // into the newest generation, which is being read back right now
            awaitFilters(store);
            assertThat(store.checkAll(during)).doesNotContain(false);
        }
    }

    @Test
    void closingOrAgeingOutWhileTheFiltersLoadLosesNothingElse() throws InterruptedException {
        List<byte[]> held = writeThreeGenerations();
        try (ExactStore store = open()) {
            // closed at once, most likely while the loader still reads: it stops, nothing native is left open
        }
        List<byte[]> newest = held.subList(2 * PER_GENERATION, 3 * PER_GENERATION);
        try (ExactStore store = open()) {
            // Generations from 0 h, 1 h and 2 h, and one the reopen at 3 h started. At 10 h the two oldest pass out
            // of the 8-hour window at once, most likely while being read back, and a 10 h generation starts.
            clock.advance(Duration.ofHours(7));
            store.add(new byte[] {1});
            assertThat(store.metrics().generations()).isEqualTo(3);
            awaitFilters(store);
            assertThat(store.checkAll(newest)).doesNotContain(false);
            assertThat(store.checkAll(held.subList(0, 2 * PER_GENERATION))).doesNotContain(true);
        }
    }
}
