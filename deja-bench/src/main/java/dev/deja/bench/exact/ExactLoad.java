package dev.deja.bench.exact;

import dev.deja.exact.ExactMetrics;
import dev.deja.exact.ExactStore;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.rocksdb.RocksDBException;
import org.rocksdb.TickerType;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The exact store's load driver: random UUIDs inserted with checkThenAdd in batches, then a mixed load of new
 * keys and duplicates, against the exact store or seed 002's sequence-index baseline, reporting throughput, bytes
 * per key on disk, resident memory and bytes written by flushes and compactions.
 *
 * <p>Usage: {@code java -cp deja-bench/target/benchmarks.jar dev.deja.bench.exact.ExactLoad
 * --store exact|seqindex --dir DIR [--keys N] [--mixed M] [--dup-ratio 0.05] [--batch 1000] [--threads 2]
 * [--day-keys D] [--generations G] [--memtable-mb 16] [--reopen-ops R]} ({@code --help} lists them with their
 * defaults). Both stores keep a one-day window in which D new keys arrive (default: the insert phase's N, so the
 * insert fills exactly one window and the mixed phase ages keys out): the exact store through a 24-hour window (G
 * generations, default 8 of 3 hours) and a clock that advances a day per D new keys, the baseline by seed 002's
 * delete of its oldest keys beyond D after every batch. Duplicates are drawn from each thread's own keys of the
 * last half day, so every one of them must be answered DUPLICATE and every new key NEW; the driver counts any
 * other answer as an error and exits non-zero.
 */
@Command(
        name = "ExactLoad",
        mixinStandardHelpOptions = true,
        description = "Drives the exact store or seed 002's baseline with random UUIDs; see the class comment.")
public final class ExactLoad implements Callable<Integer> {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    /** The stores ExactLoad drives. */
    enum Store {
        exact,
        seqindex
    }

    @Option(names = "--store", description = "exact or seqindex (default: ${DEFAULT-VALUE})")
    private Store kind = Store.exact;

    @Option(names = "--dir", required = true, description = "directory for the store; must not exist yet")
    private Path dir;

    @Option(names = "--keys", description = "new keys inserted in the first phase (default: ${DEFAULT-VALUE})")
    private long keys = 5_000_000;

    @Option(names = "--mixed", description = "operations of the mixed phase (default: ${DEFAULT-VALUE})")
    private long mixed = 5_000_000;

    @Option(names = "--dup-ratio", description = "duplicates among the mixed operations (default: ${DEFAULT-VALUE})")
    private double dupRatio = 0.05;

    @Option(names = "--batch", description = "keys per checkThenAdd call (default: ${DEFAULT-VALUE})")
    private int batch = 1000;

    @Option(names = "--threads", description = "calling threads (default: ${DEFAULT-VALUE})")
    private int threads = 2;

    @Option(names = "--day-keys", description = "new keys per day of the window (default: --keys)")
    private long dayKeys;

    @Option(names = "--generations", description = "exact store generations per window (default: ${DEFAULT-VALUE})")
    private int generations = 8;

    @Option(names = "--memtable-mb", description = "exact store memtable size in MiB (default: ${DEFAULT-VALUE})")
    private long memtableMb = 16;

    @Option(
            names = "--reopen-ops",
            description =
                    "exact store only: after the mixed phase, close and reopen the"
                            + " store and run this many mixed operations while its key filters load back (default: ${DEFAULT-VALUE})")
    private long reopenOps;

    @Option(
            names = "--reopen-as-after-crash",
            description = "exact store only: delete the key filters the close"
                    + " kept before reopening, as a crash would, so that every generation's keys are read back")
    private boolean reopenAsAfterCrash;

    private final AtomicLong newKeys = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private long[] perThreadInserted;
    private long memtableBytes;

    private ExactStore exact;
    private SequenceIndexStore baseline;

    public static void main(String[] args) {
        System.exit(new CommandLine(new ExactLoad()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (dayKeys <= 0) {
            dayKeys = keys;
        }
        memtableBytes = memtableMb << 20;
        perThreadInserted = new long[threads];
        run();
        return errors.get() == 0 ? 0 : 1;
    }

    private void run() throws Exception {
        if (Files.exists(dir)) {
            throw new IllegalArgumentException("--dir must not exist yet (got " + dir + ")");
        }
        if (kind == Store.exact) {
            exact = openExact();
        } else {
            baseline = new SequenceIndexStore(dir, 256L << 20);
        }
        System.out.printf(
                Locale.ROOT,
                "store=%s keys=%d mixed=%d dupRatio=%.2f batch=%d threads=%d dayKeys=%d"
                        + " generations=%d memtable=%s%n",
                kind,
                keys,
                mixed,
                dupRatio,
                batch,
                threads,
                dayKeys,
                generations,
                exact != null ? (memtableBytes >> 20) + "MiB" : "64MiB (the baseline's own)");
        try {
            phase("insert", keys, 0.0);
            phase("mixed", mixed, dupRatio);
            if (exact != null && reopenOps > 0) {
                reopen();
            }
        } finally {
            if (exact != null) {
                exact.close();
            } else {
                baseline.close();
            }
        }
        System.out.println("errors=" + errors.get());
    }

    private ExactStore openExact() {
        return ExactStore.builder(dir)
                .window(Duration.ofHours(24))
                .generations(generations)
                .idFormat(IdFormat.UUID)
                .fsync(FsyncPolicy.EVERYSEC)
                .memtableBytes(memtableBytes)
                .clock(new KeyClock())
                .open();
    }

    /**
     * Closes and reopens the exact store, then drives the mixed load at once: until the key filters of the
     * generations found on disk are read back, lookups in those generations go to RocksDB. Prints how long opening
     * and the loading took.
     */
    private void reopen() throws Exception {
        long closing = System.nanoTime();
        exact.close();
        System.out.printf(Locale.ROOT, "reopen: closed in %d ms%n", (System.nanoTime() - closing) / 1_000_000);
        if (reopenAsAfterCrash) {
            deleteKeptFilters();
        }
        long start = System.nanoTime();
        exact = openExact();
        System.out.printf(
                Locale.ROOT,
                "reopen: opened in %d ms, %d generations loading their key filters%n",
                (System.nanoTime() - start) / 1_000_000,
                exact.metrics().filtersLoading());
        Thread watch = Thread.ofPlatform().daemon().start(() -> {
            while (exact.metrics().filtersLoading() > 0) {
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
        phase("reopened", reopenOps, dupRatio);
        watch.join();
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

    private void phase(String name, long ops, double dups) throws Exception {
        if (ops == 0) {
            return;
        }
        long[] writesBefore = writes();
        long cpuBefore = processCpuNanos();
        Map<String, Long> threadsBefore = threadCpuTicks();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<?>> done = new ArrayList<>();
        long start = System.nanoTime();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            long share = ops / threads + (t < ops % threads ? 1 : 0);
            done.add(pool.submit(() -> {
                drive(thread, share, dups);
                return null;
            }));
        }
        for (Future<?> f : done) {
            f.get();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        double cpuSeconds = (processCpuNanos() - cpuBefore) / 1e9;
        Map<String, Long> threadsAfter = threadCpuTicks();
        pool.shutdown();
        System.out.printf(
                Locale.ROOT,
                "%s: %d ops in %.1f s = %.0f ops/s (checkThenAdd, batches of %d, %d threads)%n",
                name,
                ops,
                seconds,
                ops / seconds,
                batch,
                threads);
        // On a shared machine the wall clock includes time other processes held the cores; the process's own CPU
        // time (all threads, RocksDB's background flushes and compactions included) bounds what it would do alone.
        System.out.printf(
                Locale.ROOT,
                "%s: process CPU %.1f s = %.2f us/op; %d cores fully ours would allow" + " %.0f ops/s%n",
                name,
                cpuSeconds,
                cpuSeconds * 1e6 / ops,
                Runtime.getRuntime().availableProcessors(),
                ops / cpuSeconds * Runtime.getRuntime().availableProcessors());
        StringBuilder split = new StringBuilder();
        for (Map.Entry<String, Long> e : threadsAfter.entrySet()) {
            long ticks = e.getValue() - threadsBefore.getOrDefault(e.getKey(), 0L);
            split.append(String.format(Locale.ROOT, " %s %.2f", e.getKey(), ticks * 1e6 / TICKS_PER_SECOND / ops));
        }
        System.out.printf(Locale.ROOT, "%s: CPU us/op by thread:%s%n", name, split);
        System.out.printf(Locale.ROOT, "%s: rss after load %s%n", name, rss());
        settle();
        long[] writesAfter = writes();
        long sst = property("rocksdb.live-sst-files-size");
        long held = property("rocksdb.estimate-num-keys");
        long disk = directoryBytes();
        System.out.printf(
                Locale.ROOT,
                "%s: settled: keys held (estimate) %d, live SST %d bytes = %.2f bytes/key,"
                        + " directory %d bytes = %.2f bytes/key, %s%n",
                name,
                held,
                sst,
                (double) sst / held,
                disk,
                (double) disk / held,
                rss());
        long wal = writesAfter[0] - writesBefore[0];
        long flush = writesAfter[1] - writesBefore[1];
        long compaction = writesAfter[2] - writesBefore[2];
        System.out.printf(
                Locale.ROOT,
                "%s: written during phase: WAL %d, flush %d, compaction %d bytes;"
                        + " compaction/flush = %.2f; (flush+compaction)/op = %.1f bytes%n",
                name,
                wal,
                flush,
                compaction,
                (double) compaction / flush,
                (double) (flush + compaction) / ops);
        if (exact != null) {
            System.out.printf(
                    Locale.ROOT,
                    "%s: generations %d, effective window %s%n",
                    name,
                    exact.metrics().generations(),
                    exact.metrics().effectiveWindow());
        }
    }

    private void drive(int thread, long ops, double dups) throws RocksDBException {
        SplittableRandom random = new SplittableRandom(0x5eed + thread * 7919L + (long) (dups * 1000));
        List<byte[]> batchKeys = new ArrayList<>(batch);
        boolean[] isDup = new boolean[batch];
        for (long done = 0; done < ops; ) {
            int n = (int) Math.min(batch, ops - done);
            batchKeys.clear();
            int fresh = 0;
            for (int j = 0; j < n; j++) {
                long inserted = perThreadInserted[thread];
                isDup[j] = inserted > 0 && random.nextDouble() < dups;
                long index;
                if (isDup[j]) {
                    long span = Math.min(inserted, dayKeys / threads / 2);
                    index = inserted - 1 - random.nextLong(span);
                } else {
                    index = perThreadInserted[thread]++;
                    fresh++;
                }
                batchKeys.add(exact != null ? uuidText(thread, index) : uuidBytes(thread, index));
            }
            Verdict[] verdicts =
                    exact != null ? exact.checkThenAddAll(batchKeys, null) : baseline.checkThenAddAll(batchKeys);
            for (int j = 0; j < n; j++) {
                if (verdicts[j] != (isDup[j] ? Verdict.DUPLICATE : Verdict.NEW)) {
                    // A key drawn twice as a duplicate inside one batch is legitimately DUPLICATE both times, and
                    // a fresh key is never repeated; anything else is a wrong answer.
                    errors.incrementAndGet();
                }
            }
            newKeys.addAndGet(fresh);
            if (baseline != null) {
                baseline.ageOut(dayKeys);
            }
            done += n;
        }
    }

    /** A random-looking version-4 UUID, a bijection of (thread, index), as 16 bytes. */
    private static byte[] uuidBytes(int thread, long index) {
        long hi = mix(index * 2 + ((long) thread << 48));
        long lo = mix(index * 2 + 1 + ((long) thread << 48));
        hi = (hi & ~0xF000L) | 0x4000L;
        lo = (lo & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
        byte[] out = new byte[16];
        for (int i = 0; i < 8; i++) {
            out[i] = (byte) (hi >>> (56 - 8 * i));
            out[8 + i] = (byte) (lo >>> (56 - 8 * i));
        }
        return out;
    }

    private static final byte[] HEX = "0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    /** The same UUID as 36 bytes of canonical text, as a client would send it. */
    private static byte[] uuidText(int thread, long index) {
        byte[] b = uuidBytes(thread, index);
        byte[] out = new byte[36];
        int o = 0;
        for (int i = 0; i < 16; i++) {
            if (i == 4 || i == 6 || i == 8 || i == 10) {
                out[o++] = '-';
            }
            out[o++] = HEX[(b[i] >>> 4) & 0xF];
            out[o++] = HEX[b[i] & 0xF];
        }
        return out;
    }

    /** Stafford's variant 13 of the SplitMix64 finalizer: a bijection on 64-bit values. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }

    /** Flushes memtables and waits until compaction has caught up, so sizes are the steady state. */
    private void settle() throws Exception {
        if (exact != null) {
            exact.flush();
        } else {
            baseline.flush();
        }
        for (int i = 0; i < 1200; i++) {
            long pending = exact != null
                    ? exact.metrics().pendingCompactionBytes() + exact.metrics().runningCompactions()
                    : baseline.property("rocksdb.estimate-pending-compaction-bytes")
                            + baseline.property("rocksdb.num-running-compactions");
            if (pending == 0) {
                return;
            }
            Thread.sleep(500);
        }
    }

    private long property(String name) throws RocksDBException {
        if (exact != null) {
            ExactMetrics m = exact.metrics();
            return switch (name) {
                case "rocksdb.live-sst-files-size" -> m.liveSstBytes();
                case "rocksdb.estimate-num-keys" -> m.estimatedKeys();
                default -> throw new IllegalArgumentException(name);
            };
        }
        // The baseline's key count is its key column family's; its index entries are part of its cost.
        return name.equals("rocksdb.estimate-num-keys") ? baseline.property(name) / 2 : baseline.property(name);
    }

    /** WAL, flush and compaction bytes written so far. */
    private long[] writes() {
        if (exact != null) {
            ExactMetrics m = exact.metrics();
            return new long[] {m.walBytesWritten(), m.flushBytesWritten(), m.compactionBytesWritten()};
        }
        return new long[] {
            baseline.ticker(TickerType.WAL_FILE_BYTES),
            baseline.ticker(TickerType.FLUSH_WRITE_BYTES),
            baseline.ticker(TickerType.COMPACT_WRITE_BYTES)
        };
    }

    /** Linux's clock ticks per second (USER_HZ), the unit of /proc's per-thread CPU times. */
    private static final double TICKS_PER_SECOND = 100;

    /**
     * CPU ticks (user + system) of the live threads, grouped by what they do: the driver's calls, RocksDB's
     * flushes ({@code rocksdb:high}) and compactions ({@code rocksdb:low}), and the rest (JIT, GC, the store's own
     * background threads). Threads that ended are missing, so read it while the phase's threads live.
     */
    private static Map<String, Long> threadCpuTicks() throws IOException {
        Map<String, Long> ticks = new TreeMap<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                String stat;
                try {
                    stat = Files.readString(task.resolve("stat"));
                } catch (IOException e) {
                    continue; // the thread ended meanwhile
                }
                String comm = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ", -1);
                String group = comm.startsWith("rocksdb:low")
                        ? "compaction"
                        : comm.startsWith("rocksdb:high") ? "flush" : comm.startsWith("pool-") ? "callers" : "other";
                // Fields 14 and 15 of stat (utime, stime) are at 11 and 12 counting from field 3, the first after ") ".
                ticks.merge(group, Long.parseLong(f[11]) + Long.parseLong(f[12]), Long::sum);
            }
        }
        return ticks;
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean)
                        java.lang.management.ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    private long directoryBytes() throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile)
                    .mapToLong(p -> p.toFile().length())
                    .sum();
        }
    }

    private static String rss() throws IOException {
        StringBuilder out = new StringBuilder();
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS") || line.startsWith("VmHWM")) {
                out.append(line.replaceAll("\\s+", " ")).append("; ");
            }
        }
        return out.toString().trim();
    }

    /** Time as seen by the exact store: a day passes every {@code dayKeys} new keys. */
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
