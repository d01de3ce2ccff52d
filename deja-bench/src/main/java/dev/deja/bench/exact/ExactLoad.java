package dev.deja.bench.exact;

import dev.deja.seen.Verdict;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.rocksdb.RocksDBException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The exact store's load driver: random UUIDs inserted with checkThenAdd in batches, then a mixed load of new
 * keys and duplicates, against the exact store or the sequence-index layout of Segment's de-duplication design
 * ({@link SequenceIndexStore}), reporting throughput, bytes per key on disk, resident memory and bytes written by
 * flushes and compactions.
 *
 * <p>Usage: {@code java -cp deja-bench/target/benchmarks.jar dev.deja.bench.exact.ExactLoad
 * --store exact|seqindex --dir DIR [--keys N] [--mixed M] [--dup-ratio 0.05] [--batch 1000] [--threads 2]
 * [--day-keys D] [--generations G] [--memtable-mb 16] [--reopen-ops R]} ({@code --help} lists them with their
 * defaults). Both stores keep a one-day window in which D new keys arrive (default: the insert phase's N, so the
 * insert fills exactly one window and the mixed phase ages keys out): the exact store through a 24-hour window (G
 * generations, default 8 of 3 hours) and a clock that advances a day per D new keys ({@link ExactTarget}), the
 * baseline by deleting its oldest keys beyond D after every batch, as Segment's design does. Duplicates are drawn
 * from each thread's own keys of the last half day, so every one of them must be answered DUPLICATE and every new
 * key NEW; the driver counts any other answer as an error and exits non-zero.
 */
@Command(
        name = "ExactLoad",
        mixinStandardHelpOptions = true,
        description = "Drives the exact store or the baseline of Segment's de-duplication design with random UUIDs;"
                + " see the class comment.")
public final class ExactLoad implements Callable<Integer> {

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
            description = "exact store only: after the mixed phase, close and reopen the"
                    + " store and run this many mixed operations while its key filters load back"
                    + " (default: ${DEFAULT-VALUE})")
    private long reopenOps;

    @Option(
            names = "--reopen-as-after-crash",
            description = "exact store only: delete the key filters the close"
                    + " kept before reopening, as a crash would, so that every generation's keys are read back")
    private boolean reopenAsAfterCrash;

    private final AtomicLong errors = new AtomicLong();
    private long[] perThreadInserted;

    private LoadTarget target;

    public static void main(String[] args) {
        System.exit(new CommandLine(new ExactLoad()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (dayKeys <= 0) {
            dayKeys = keys;
        }
        perThreadInserted = new long[threads];
        run();
        return errors.get() == 0 ? 0 : 1;
    }

    private void run() throws Exception {
        if (Files.exists(dir)) {
            throw new IllegalArgumentException("--dir must not exist yet (got " + dir + ")");
        }
        target = kind == Store.exact
                ? new ExactTarget(dir, generations, memtableMb << 20, dayKeys)
                : new SequenceIndexStore(dir, 256L << 20, dayKeys);
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
                target.memtable());
        try {
            phase("insert", keys, 0.0);
            phase("mixed", mixed, dupRatio);
            if (reopenOps > 0 && target instanceof ExactTarget exact) {
                Thread filtersLoaded = exact.reopen(reopenAsAfterCrash);
                phase("reopened", reopenOps, dupRatio);
                filtersLoaded.join();
            }
        } finally {
            target.close();
        }
        System.out.println("errors=" + errors.get());
    }

    private void phase(String name, long ops, double dups) throws Exception {
        if (ops == 0) {
            return;
        }
        long[] writesBefore = target.bytesWritten();
        long cpuBefore = ProcessStats.processCpuNanos();
        Map<String, Long> threadsBefore = ProcessStats.threadCpuTicks();
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
        double cpuSeconds = (ProcessStats.processCpuNanos() - cpuBefore) / 1e9;
        Map<String, Long> threadsAfter = ProcessStats.threadCpuTicks();
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
            split.append(String.format(
                    Locale.ROOT, " %s %.2f", e.getKey(), ticks * 1e6 / ProcessStats.TICKS_PER_SECOND / ops));
        }
        System.out.printf(Locale.ROOT, "%s: CPU us/op by thread:%s%n", name, split);
        System.out.printf(Locale.ROOT, "%s: rss after load %s%n", name, ProcessStats.rss());
        settle();
        long[] writesAfter = target.bytesWritten();
        long sst = target.liveSstBytes();
        long held = target.keysHeld();
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
                ProcessStats.rss());
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
        Optional<String> state = target.state();
        if (state.isPresent()) {
            System.out.printf(Locale.ROOT, "%s: %s%n", name, state.get());
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
                batchKeys.add(target.key(thread, index));
            }
            Verdict[] verdicts = target.checkThenAddAll(batchKeys);
            for (int j = 0; j < n; j++) {
                if (verdicts[j] != (isDup[j] ? Verdict.DUPLICATE : Verdict.NEW)) {
                    // A key drawn twice as a duplicate inside one batch is legitimately DUPLICATE both times, and
                    // a fresh key is never repeated; anything else is a wrong answer.
                    errors.incrementAndGet();
                }
            }
            target.afterBatch(fresh);
            done += n;
        }
    }

    /** Flushes memtables and waits until compaction has caught up, so sizes are the steady state. */
    private void settle() throws Exception {
        target.flush();
        for (int i = 0; i < 1200; i++) {
            if (target.pendingCompaction() == 0) {
                return;
            }
            Thread.sleep(500);
        }
    }

    private long directoryBytes() throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile)
                    .mapToLong(p -> p.toFile().length())
                    .sum();
        }
    }
}
