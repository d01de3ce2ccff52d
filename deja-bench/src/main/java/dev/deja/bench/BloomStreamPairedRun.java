package dev.deja.bench;

import com.google.common.hash.BloomFilter;
import dev.deja.seen.Verdict;
import java.io.IOException;
import java.util.Arrays;
import java.util.function.LongSupplier;

/**
 * check, add and checkThenAdd of deja's 1 GiB filter and Guava's, on one de-duplication stream
 * ({@link DuplicateStream}), measured in alternating bursts in one JVM: each round times {@link #CALLS} calls of each
 * filter in turn, for each operation, the two filters in the opposite order every other round, and the result is the
 * median over the rounds of each round's ratio of deja's rate to Guava's.
 *
 * <p>Why beside the JMH benchmarks ({@link BloomBenchmark}, {@link BloomNewKeyBenchmark}, {@link BloomMixBenchmark}).
 * Out of cache, a call costs about one memory access (deja) or several (Guava), and on a shared machine the memory's
 * speed drifts from one minute to the next. JMH measures one benchmark after the other, so a deja score and the Guava
 * score it is divided by come from different minutes; here the two halves of a ratio come from the same round, and a
 * drift moves both.
 *
 * <p>The filters are those of the JMH benchmarks: at their design fill ({@link DesignFill}), holding the pool's held
 * keys, put in through no call measured here. One stream per JVM, and one loop per filter and operation, so each
 * loop is compiled for the stream it runs on. Each operation's stream has its own series of new keys, the same for
 * both filters, so add and checkThenAdd, which share a filter, never meet each other's new keys, and check's new keys
 * are never held. Guava has no checkThenAdd; its {@code put}, which returns whether any bit changed, is the analogue.
 *
 * <p>Usage: {@code java --add-modules=jdk.incubator.vector -Xms5g -Xmx5g -XX:+UseTransparentHugePages
 * -XX:+AlwaysPreTouch -cp benchmarks.jar dev.deja.bench.BloomStreamPairedRun newEvery [rounds]}, where
 * {@code newEvery} is 0 for duplicates only, 1 for new keys only, 16 for one new key in sixteen.
 */
public final class BloomStreamPairedRun {

    static final int CALLS = 1 << 20;
    private static final int WARM_UP_ROUNDS = 5;
    private static final String[] OPERATIONS = {"check", "add", "checkThenAdd"};
    /** Consumes every answer, so no call can be dropped as dead code. */
    private static long sink;

    private BloomStreamPairedRun() {}

    /** Runs the rounds and prints one line per round and a summary per operation. */
    public static void main(String[] args) throws IOException {
        int newEvery;
        int rounds;
        try {
            if (args.length < 1 || args.length > 2) {
                throw new IllegalArgumentException("expected one or two arguments (got " + args.length + ")");
            }
            newEvery = number("newEvery", args[0], 0);
            rounds = args.length > 1 ? number("rounds", args[1], 1) : 21;
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage() + "\nusage: BloomStreamPairedRun newEvery [rounds]  (newEvery: 0 "
                    + "duplicates only, 1 new keys only, 16 one new key in sixteen; rounds: 21 unless given)");
            System.exit(2);
            return;
        }
        DesignFill.OutOfCache filters = DesignFill.OutOfCache.filled();
        KeyPool pool = filters.pool();
        dev.deja.bloom.BloomFilter deja = filters.deja();
        BloomFilter<byte[]> guava = filters.guava();
        DuplicateStream[] dejaStreams = new DuplicateStream[OPERATIONS.length];
        DuplicateStream[] guavaStreams = new DuplicateStream[OPERATIONS.length];
        for (int op = 0; op < OPERATIONS.length; op++) {
            dejaStreams[op] = new DuplicateStream(pool, newEvery, op + 1);
            guavaStreams[op] = new DuplicateStream(pool, newEvery, op + 1);
        }
        double[][] dejaRates = new double[OPERATIONS.length][rounds];
        double[][] guavaRates = new double[OPERATIONS.length][rounds];
        for (int r = -WARM_UP_ROUNDS; r < rounds; r++) {
            StringBuilder line = new StringBuilder(r < 0 ? "warm-up" : "round " + r);
            for (int op = 0; op < OPERATIONS.length; op++) {
                double dejaRate;
                double guavaRate;
                if ((r & 1) == 0) {
                    dejaRate = dejaRate(deja, op, dejaStreams[op]);
                    guavaRate = guavaRate(guava, op, guavaStreams[op]);
                } else {
                    guavaRate = guavaRate(guava, op, guavaStreams[op]);
                    dejaRate = dejaRate(deja, op, dejaStreams[op]);
                }
                if (r >= 0) {
                    dejaRates[op][r] = dejaRate;
                    guavaRates[op][r] = guavaRate;
                }
                line.append(String.format("  %s %.2f / %.2f", OPERATIONS[op], dejaRate, guavaRate));
            }
            System.out.println(line);
        }
        System.out.printf(
                "1 GiB filters, newEvery=%d, %d rounds of %d calls per filter and operation, ops/us "
                        + "(deja / Guava); medians over rounds%n",
                newEvery, rounds, CALLS);
        for (int op = 0; op < OPERATIONS.length; op++) {
            double[] ratios = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                ratios[r] = dejaRates[op][r] / guavaRates[op][r];
            }
            Arrays.sort(ratios);
            System.out.printf(
                    "%-12s deja %.2f, Guava %.2f; per round %.2fx Guava's (quartiles %.2fx to %.2fx, "
                            + "lowest %.2fx)%n",
                    OPERATIONS[op],
                    BloomPairedRun.median(dejaRates[op]),
                    BloomPairedRun.median(guavaRates[op]),
                    ratios[rounds / 2],
                    ratios[rounds / 4],
                    ratios[rounds * 3 / 4],
                    ratios[0]);
        }
        System.out.println("(sink " + sink + ")");
    }

    /** The argument as a number of at least {@code min}, or the usage error. */
    static int number(String name, String arg, int min) {
        try {
            int value = Integer.parseInt(arg);
            if (value >= min) {
                return value;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(name + " must be a whole number of at least " + min + " (got " + arg + ")");
    }

    /** Calls per microsecond of one burst of the operation on deja's filter. */
    private static double dejaRate(dev.deja.bloom.BloomFilter filter, int operation, DuplicateStream keys) {
        return rate(() -> switch (operation) {
            case 0 -> check(filter, keys);
            case 1 -> add(filter, keys);
            default -> checkThenAdd(filter, keys);
        });
    }

    /** Calls per microsecond of one burst of the operation on Guava's filter. */
    private static double guavaRate(BloomFilter<byte[]> filter, int operation, DuplicateStream keys) {
        return rate(() -> operation == 0 ? mightContain(filter, keys) : put(filter, keys));
    }

    /** Calls per microsecond of one burst of {@link #CALLS} calls; its answers go to {@link #sink}. */
    static double rate(LongSupplier burst) {
        long start = System.nanoTime();
        sink += burst.getAsLong();
        return CALLS / ((System.nanoTime() - start) / 1e3);
    }

    // One method per loop, so that each is compiled with its own profile, as a JMH benchmark method is. Guava's add
    // and checkThenAdd are both put, on the same kind of stream: one loop serves both, as in BloomPairedRun.

    private static long check(dev.deja.bloom.BloomFilter filter, DuplicateStream keys) {
        long n = 0;
        for (int i = 0; i < CALLS; i++) {
            n += filter.check(keys.next()) ? 1 : 0;
        }
        return n;
    }

    static long add(dev.deja.bloom.BloomFilter filter, DuplicateStream keys) {
        for (int i = 0; i < CALLS; i++) {
            filter.add(keys.next());
        }
        return CALLS;
    }

    static long checkThenAdd(dev.deja.bloom.BloomFilter filter, DuplicateStream keys) {
        long n = 0;
        for (int i = 0; i < CALLS; i++) {
            n += filter.checkThenAdd(keys.next()) == Verdict.NEW ? 1 : 0;
        }
        return n;
    }

    private static long mightContain(BloomFilter<byte[]> filter, DuplicateStream keys) {
        long n = 0;
        for (int i = 0; i < CALLS; i++) {
            n += filter.mightContain(keys.next()) ? 1 : 0;
        }
        return n;
    }

    static long put(BloomFilter<byte[]> filter, DuplicateStream keys) {
        long n = 0;
        for (int i = 0; i < CALLS; i++) {
            n += filter.put(keys.next()) ? 1 : 0;
        }
        return n;
    }
}
