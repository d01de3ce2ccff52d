package dev.deja.exact;

import dev.deja.journal.FsyncPolicy;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A generation that stops growing is compacted once into the last level: smaller, with every key kept. */
class ExactSealTest {

    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock(Instant.parse("2026-11-22T00:00:00Z"));

    private ExactStore open() {
        return ExactStore.builder(dir).window(Duration.ofHours(8)).clock(clock).memtableBytes(4 << 20)
                .blockCacheBytes(1 << 20).fsync(FsyncPolicy.NO).open();
    }

    @Test
    void aFinishedGenerationIsRewrittenSmallerAndKeepsEveryKey() throws InterruptedException {
        try (ExactStore store = open()) {
            List<byte[]> keys = RandomKeys.of(50_000, 1);
            store.addAll(keys);
            clock.advance(Duration.ofHours(1));
            store.add(new byte[] {1}); // rolls over: the first generation is sealed in the background
            ExactMetrics m = store.metrics();
            // Waits for the background compaction; the deadline only bounds a hang, it asserts nothing about speed.
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while ((m.compactionBytesWritten() == 0 || m.runningCompactions() > 0 || m.memtableBytes() > 1 << 20)
                    && System.nanoTime() < deadline) {
                Thread.sleep(20);
                m = store.metrics();
            }
            assertThat(m.compactionBytesWritten()).as("sealing compaction ran").isPositive();
            assertThat(m.liveSstBytes()).as("last level with ZSTD and zeroed sequence numbers")
                    .isLessThan(m.flushBytesWritten());
            assertThat(store.checkAll(keys)).doesNotContain(false);
        }
    }

    @Test
    void droppingAGenerationWhileItIsBeingSealedLeavesAWorkingStore() {
        try (ExactStore store = open()) {
            List<byte[]> old = RandomKeys.of(100_000, 2);
            store.addAll(old);
            clock.advance(Duration.ofHours(1));
            store.add(new byte[] {1}); // seal of the first generation starts
            clock.advance(Duration.ofHours(8));
            store.add(new byte[] {2}); // the first generation's successor is a window old: dropped at once
            assertThat(store.checkAll(old)).doesNotContain(true);
            assertThat(store.check(new byte[] {1})).isTrue();
            List<byte[]> fresh = RandomKeys.of(1_000, 3);
            store.addAll(fresh);
            assertThat(store.checkAll(fresh)).doesNotContain(false);
        }
        try (ExactStore store = open()) {
            assertThat(store.check(new byte[] {2})).isTrue();
        }
    }
}
