package dev.deja.bench.exact;

import dev.deja.exact.ExactMetrics;
import dev.deja.exact.ExactStore;
import dev.deja.exact.ExactStoreBuilder;
import dev.deja.exact.IdFormat;
import dev.deja.journal.FsyncPolicy;
import dev.deja.seen.Verdict;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * The exact store under load: a 24-hour window, UUIDs sent as text and kept as 16 bytes, and a clock that advances
 * a day per {@code dayKeys} new keys, so that the window's generations roll over and age out as the keys arrive.
 */
final class ExactTarget implements LoadTarget {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    /** New keys so far: the store's time, which passes a day per {@link #dayKeys}. */
    private final AtomicLong newKeys = new AtomicLong();

    private final long dayKeys;
    private final Path dir;
    private final long memtableBytes;
    /** Opens the store, and opens it again on a reopen. */
    private final ExactStoreBuilder builder;

    private ExactStore store;

    ExactTarget(Path dir, int generations, long memtableBytes, long dayKeys) {
        this.dayKeys = dayKeys;
        this.dir = dir;
        this.memtableBytes = memtableBytes;
        this.builder = ExactStoreBuilder.at(dir)
                .window(Duration.ofHours(24))
                .generations(generations)
                .idFormat(IdFormat.UUID)
                .fsync(FsyncPolicy.EVERYSEC)
                .memtableBytes(memtableBytes)
                .clock(new KeyClock());
        this.store = builder.open();
    }

    @Override
    public String memtable() {
        return (memtableBytes >> 20) + "MiB";
    }

    @Override
    public byte[] key(int thread, long index) {
        return UuidKeys.text(thread, index);
    }

    @Override
    public Verdict[] checkThenAddAll(List<byte[]> keys) {
        return store.checkThenAddAll(keys, null);
    }

    @Override
    public void afterBatch(int newKeys) {
        this.newKeys.addAndGet(newKeys);
    }

    @Override
    public void flush() {
        store.flush();
    }

    @Override
    public long pendingCompaction() {
        ExactMetrics m = store.metrics();
        return m.pendingCompactionBytes() + m.runningCompactions();
    }

    @Override
    public long liveSstBytes() {
        return store.metrics().liveSstBytes();
    }

    @Override
    public long keysHeld() {
        return store.metrics().estimatedKeys();
    }

    @Override
    public long[] bytesWritten() {
        ExactMetrics m = store.metrics();
        return new long[] {m.walBytesWritten(), m.flushBytesWritten(), m.compactionBytesWritten()};
    }

    @Override
    public Optional<String> state() {
        ExactMetrics m = store.metrics();
        return Optional.of("generations " + m.generations() + ", effective window " + m.effectiveWindow());
    }

    /**
     * Closes and reopens the store, printing how long each took; until the key filters of the generations found on
     * disk are read back, lookups in those generations go to RocksDB.
     *
     * @param asAfterCrash whether to delete the key filters the close kept first, as a crash would, so that every
     *                     generation's keys are read back
     * @return a thread that prints when the filters are loaded, and ends then
     */
    Thread reopen(boolean asAfterCrash) throws IOException {
        long closing = System.nanoTime();
        store.close();
        System.out.printf(Locale.ROOT, "reopen: closed in %d ms%n", (System.nanoTime() - closing) / 1_000_000);
        if (asAfterCrash) {
            deleteKeptFilters();
        }
        long start = System.nanoTime();
        store = builder.open();
        System.out.printf(
                Locale.ROOT,
                "reopen: opened in %d ms, %d generations loading their key filters%n",
                (System.nanoTime() - start) / 1_000_000,
                store.metrics().filtersLoading());
        return Thread.ofPlatform().daemon().start(() -> {
            while (store.metrics().filtersLoading() > 0) {
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    return;
                }
            }
            System.out.printf(
                    Locale.ROOT,
                    "reopen: key filters loaded %d ms after the open%n",
                    (System.nanoTime() - start) / 1_000_000);
        });
    }

    private void deleteKeptFilters() throws IOException {
        Path kept = dir.resolve(ExactStore.KEPT_FILTERS_DIRECTORY);
        if (Files.isDirectory(kept)) {
            try (Stream<Path> files = Files.list(kept)) {
                for (Path f : files.toList()) {
                    Files.delete(f);
                }
            }
        }
    }

    @Override
    public void close() {
        store.close();
    }

    /** Time as seen by the store: a day passes every {@code dayKeys} new keys. */
    private final class KeyClock extends Clock {
        @Override
        public long millis() {
            return T0.toEpochMilli() + newKeys.get() * 86_400_000L / dayKeys;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(millis());
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            throw new UnsupportedOperationException();
        }
    }
}
