package dev.deja.bench;

import com.google.common.hash.BloomFilter;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.SplittableRandom;
import java.util.function.LongSupplier;

/**
 * What a memory access and a locked instruction cost a loop of insertions on this machine, beside deja's and Guava's
 * insertions of new keys, in alternating bursts in one JVM.
 *
 * <p>Why. deja's insertion takes its block's stripe lock with a compare-and-set, a locked instruction on x86, and x86
 * does not reorder loads with locked instructions. If that kept each call's cache miss from starting before the
 * previous call's lock was taken, consecutive insertions could not overlap their misses as lookups do, and no
 * thread-safe insertion could run faster than one memory access's full latency. The loops below test that directly
 * (docs/BENCHMARKS.md, section bloom vs Guava).
 *
 * <p>The loops, each over {@link #CALLS} calls, on a 1 GiB {@code long[]} apart from the filters:
 * <ul>
 *   <li>{@code chain}: each load's address is the value the previous one read (a random cycle over the array's
 *       cache lines): the latency of one memory access;
 *   <li>{@code locked}: a load from a random cache line, then what deja's insertion does around it: a compare-and-set
 *       of one of 1,024 striped lock words, a store to the line and a release store of the lock;
 *   <li>{@code unlocked}: the same load and store without the lock, to show what the locked instruction costs;
 *   <li>deja's {@code add} and {@code checkThenAdd}, and Guava's {@code put}, of keys never added, on the 1 GiB
 *       filters at their design fill, as in {@link BloomStreamPairedRun} with {@code newEvery} 1.
 * </ul>
 * The result is each loop's median over the rounds, in nanoseconds per call, and per round the ratio of each filter's
 * time to {@code locked}'s.
 *
 * <p>Usage: {@code java --add-modules=jdk.incubator.vector -Xms6g -Xmx6g -XX:+UseTransparentHugePages
 * -XX:+AlwaysPreTouch -cp benchmarks.jar dev.deja.bench.InsertCostRun [rounds]}.
 */
public final class InsertCostRun {

    private static final int CALLS = BloomStreamPairedRun.CALLS;
    private static final int WARM_UP_ROUNDS = 5;
    /** Cache lines of the 1 GiB array: 2^24. */
    private static final int LINE_BITS = 24;

    private static final int LINES = 1 << LINE_BITS;
    private static final int LINE_WORDS = 8;
    private static final int STRIPES = 1024;
    /**
     * A multiplier that spreads a counter's bits into the top ones, which pick the line. The counter steps as
     * {@link BloomNewKeyBenchmark.FreshKeys}' does, by an odd number, so it takes 2^64 values before it repeats.
     */
    private static final long MIX = 0xD6E8FEB86659FD93L;

    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(long[].class);
    private static final String[] LOOPS = {"chain", "locked", "unlocked", "deja add", "deja checkThenAdd", "Guava put"};

    private final long[] memory = new long[LINES * LINE_WORDS];
    private final long[] locks = new long[STRIPES * LINE_WORDS];
    private long counter;
    private int chainAt;

    private InsertCostRun() {
        // A random cycle through every line (Sattolo's shuffle): word 0 of each line holds the next line's index.
        for (int line = 0; line < LINES; line++) {
            memory[line * LINE_WORDS] = line;
        }
        SplittableRandom random = new SplittableRandom(3);
        for (int i = LINES - 1; i > 0; i--) {
            int j = random.nextInt(i);
            long swap = memory[i * LINE_WORDS];
            memory[i * LINE_WORDS] = memory[j * LINE_WORDS];
            memory[j * LINE_WORDS] = swap;
        }
    }

    /** Runs the rounds and prints one line per round and a summary per loop. */
    public static void main(String[] args) throws IOException {
        int rounds;
        try {
            if (args.length > 1) {
                throw new IllegalArgumentException("expected at most one argument (got " + args.length + ")");
            }
            rounds = args.length == 1 ? BloomStreamPairedRun.number("rounds", args[0], 1) : 21;
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage() + "\nusage: InsertCostRun [rounds]  (21 unless given)");
            System.exit(2);
            return;
        }
        DesignFill.OutOfCache filters = DesignFill.OutOfCache.filled();
        KeyPool pool = filters.pool();
        dev.deja.bloom.BloomFilter deja = filters.deja();
        BloomFilter<byte[]> guava = filters.guava();
        InsertCostRun bare = new InsertCostRun();
        // Each filter loop has its own series of new keys; deja's add and checkThenAdd share a filter.
        DuplicateStream dejaAdds = new DuplicateStream(pool, 1, 1);
        DuplicateStream dejaCheckThenAdds = new DuplicateStream(pool, 1, 2);
        DuplicateStream guavaPuts = new DuplicateStream(pool, 1, 1);
        LongSupplier[] loops = {
            bare::chain,
            bare::locked,
            bare::unlocked,
            () -> BloomStreamPairedRun.add(deja, dejaAdds),
            () -> BloomStreamPairedRun.checkThenAdd(deja, dejaCheckThenAdds),
            () -> BloomStreamPairedRun.put(guava, guavaPuts)
        };
        double[][] nanos = new double[LOOPS.length][rounds];
        for (int r = -WARM_UP_ROUNDS; r < rounds; r++) {
            StringBuilder line = new StringBuilder(r < 0 ? "warm-up" : "round " + r);
            // Every other round runs the loops in the opposite order, so no loop always follows the same one.
            for (int i = 0; i < LOOPS.length; i++) {
                int loop = (r & 1) == 0 ? i : LOOPS.length - 1 - i;
                double ns = 1e3 / BloomStreamPairedRun.rate(loops[loop]);
                if (r >= 0) {
                    nanos[loop][r] = ns;
                }
            }
            for (int loop = 0; loop < LOOPS.length && r >= 0; loop++) {
                line.append(String.format("  %s %.1f", LOOPS[loop], nanos[loop][r]));
            }
            System.out.println(line);
        }
        System.out.printf("1 GiB, %d rounds of %d calls per loop; ns per call, medians over rounds%n", rounds, CALLS);
        for (int loop = 0; loop < LOOPS.length; loop++) {
            double[] toLocked = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                toLocked[r] = nanos[loop][r] / nanos[1][r];
            }
            System.out.printf(
                    "%-18s %6.1f ns  (per round %.2fx locked's)%n",
                    LOOPS[loop], BloomPairedRun.median(nanos[loop]), BloomPairedRun.median(toLocked));
        }
    }

    /** The random line of a counter value: its bits spread into the top {@link #LINE_BITS} by {@link #MIX}. */
    private static int line(long counter) {
        return (int) ((counter * MIX) >>> (Long.SIZE - LINE_BITS));
    }

    // One method per loop, so that each is compiled with its own profile.

    private long chain() {
        int at = chainAt;
        for (int i = 0; i < CALLS; i++) {
            at = (int) memory[at * LINE_WORDS];
        }
        chainAt = at;
        return at;
    }

    private long locked() {
        long c = counter;
        long sum = 0;
        for (int i = 0; i < CALLS; i++) {
            int line = line(c += BloomNewKeyBenchmark.FreshKeys.STEP);
            int word = line * LINE_WORDS + 1;
            long value = memory[word];
            int lock = (line & (STRIPES - 1)) * LINE_WORDS;
            while (!SLOT.compareAndSet(locks, lock, 0L, 1L)) {
                Thread.onSpinWait();
            }
            memory[word] = value + 1;
            SLOT.setRelease(locks, lock, 0L);
            sum += value;
        }
        counter = c;
        return sum;
    }

    private long unlocked() {
        long c = counter;
        long sum = 0;
        for (int i = 0; i < CALLS; i++) {
            int word = line(c += BloomNewKeyBenchmark.FreshKeys.STEP) * LINE_WORDS + 1;
            long value = memory[word];
            memory[word] = value + 1;
            sum += value;
        }
        counter = c;
        return sum;
    }
}
