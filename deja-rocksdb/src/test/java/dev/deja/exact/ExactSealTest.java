package dev.deja.exact;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.deja.journal.FsyncPolicy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.slf4j.LoggerFactory;

/** A generation that stops growing is compacted once into the last level: smaller, with every key kept. */
class ExactSealTest {

    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock(Instant.parse("2026-11-22T00:00:00Z"));

    private ExactStore open() {
        return TestStores.eightHourWindow(dir, clock)
                .memtableBytes(4 << 20)
                .fsync(FsyncPolicy.NO)
                .open();
    }

    /** A size bound far below what any generation takes (64 bytes), with the smallest memtable the builder accepts. */
    private ExactStore openTinySizeBound() {
        return TestStores.small(dir)
                .maxBytes(64)
                .clock(clock)
                .memtableBytes(64 << 10)
                .fsync(FsyncPolicy.NO)
                .open();
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
            assertThat(m.liveSstBytes())
                    .as("last level with ZSTD and zeroed sequence numbers")
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

    @Test
    void aPinnedGenerationKeepsItsColumnFamilyUntilTheLastPinLetsGo() throws RocksDBException {
        RocksDB.loadLibrary();
        try (Options options = new Options().setCreateIfMissing(true);
                RocksDB db = RocksDB.open(options, dir.toString())) {
            byte[] name = Generation.name(0, 0);
            ColumnFamilyHandle handle = db.createColumnFamily(new ColumnFamilyDescriptor(name));
            Generation g = new Generation(0, 0, handle, KeyFilter.forNewGeneration(0));
            assertThat(g.pin()).as("a seal starts").isTrue();
            g.drop(db);
            assertThat(g.pin()).as("nothing new pins a dropped generation").isFalse();
            // the seal still flushes and compacts a live column family, not a dropped one
            db.put(handle, new byte[] {1}, new byte[] {2});
            assertThat(families(options)).contains("g000000000000-0");
            g.unpin();
            assertThat(families(options)).doesNotContain("g000000000000-0");
            assertThat(handle.isOwningHandle()).as("handle closed").isFalse();
        }
    }

    /**
     * A size bound far below what a generation takes: every maintenance rolls over, seals the generation just
     * finished and drops it at once for size, so the drop meets its seal each time. None of it may log a warning.
     */
    @Test
    void generationsDroppedAsTheirSealStartsLogNothing() {
        Logger sealer = (Logger) LoggerFactory.getLogger(Sealer.class);
        Logger generation = (Logger) LoggerFactory.getLogger(Generation.class);
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        logged.start();
        sealer.addAppender(logged);
        generation.addAppender(logged);
        try (ExactStore store = openTinySizeBound()) {
            for (int i = 0; i < 40; i++) {
                store.add(new byte[] {(byte) i});
                assertThat(store.check(new byte[] {(byte) i})).isTrue();
                store.maintain(); // rolls over, and drops everything but the new, empty generation
            }
        } finally {
            sealer.detachAppender(logged);
            generation.detachAppender(logged);
        }
        assertThat(logged.list)
                .filteredOn(e -> e.getLevel().isGreaterOrEqual(Level.WARN))
                .extracting(ILoggingEvent::getFormattedMessage)
                .isEmpty();
    }

    /** An empty generation is no fuller than when it was created: rolling it over would only make another. */
    @Test
    void anIdleStoreUnderATinySizeBoundKeepsItsEmptyGeneration() throws RocksDBException {
        try (ExactStore store = openTinySizeBound()) {
            for (int i = 0; i < 10; i++) {
                clock.advance(Duration.ofSeconds(5)); // the server's maintenance timer
                store.maintain();
            }
        }
        try (Options options = new Options()) {
            assertThat(families(options))
                    .filteredOn(n -> n.startsWith("g"))
                    .singleElement()
                    .satisfies(n -> assertThat(n).startsWith("g000000000000-"));
        }
    }

    private List<String> families(Options options) throws RocksDBException {
        return RocksDB.listColumnFamilies(options, dir.toString()).stream()
                .map(n -> new String(n, StandardCharsets.US_ASCII))
                .toList();
    }
}
