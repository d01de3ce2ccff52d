package dev.deja.bench;

import dev.deja.sizing.BloomLayout;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.IntToLongFunction;

/**
 * Single calls of deja's filter and Guava's, measured in alternating bursts in one JVM: each round times 2^20 calls
 * of each contender in turn, for each operation, and the result is the median over the rounds of the per-round
 * ratio to Guava. A companion to {@link BloomBenchmark} for a shared machine whose speed drifts within seconds: JMH
 * measures one benchmark after another, so a deja score and the Guava score it is divided by come from different
 * minutes, while here both halves of a ratio come from the same round, one burst apart. The filters, keys and Guava's
 * analogue of checkThenAdd ({@code put}) are {@link BloomBenchmark}'s.
 *
 * <p>More contenders, each also compared per round with this build's filter: {@code format1}, a filter read from
 * bloom format 1 (scattered bits); and the path of another build's {@code benchmarks.jar}, that build's filter,
 * loaded beside this one ({@link BuildLoader}) and driven by the same loops ({@link BuildBursts}), so that a change
 * to the lookup is measured against the code before it in the same rounds.
 *
 * <p>Usage: {@code java --add-modules=jdk.incubator.vector -Xms12g -Xmx12g -XX:+UseTransparentHugePages
 * -XX:+AlwaysPreTouch -cp benchmarks.jar dev.deja.bench.BloomPairedRun [IN_CACHE|OUT_OF_CACHE] [rounds] [format1]
 * [other-build.jar ...]} (each contender holds two filters, each 1 GiB filter takes about 1 GiB of heap, and each key
 * pool 60 MiB).
 */
public final class BloomPairedRun {

    private static final int CALLS = KeyPool.SIZE;
    private static final int WARM_UP_ROUNDS = 5;
    private static final String[] OPERATIONS = {"check", "add", "checkThenAdd"};
    /** Consumes every answer, so no call can be dropped as dead code. */
    private static long sink;

    /**
     * One filter under test: its name and a burst of {@link #CALLS} calls of an operation. checkThenAdd runs on a
     * filter of its own, so that its first burst, like add's, meets the odd keys new: add, which runs before it in
     * each round, would otherwise have added them, and the compiler would then build checkThenAdd for a stream that
     * never inserts and add for one that does, so the two would not be compiled alike. Both then run on duplicates
     * with code compiled while inserting, a case {@code BloomBenchmark} does not measure (docs/BENCHMARKS.md, section
     * Duplicates measured on code compiled for them).
     */
    private interface Contender {
        String name();

        long burst(int operation);
    }

    private BloomPairedRun() {}

    /** Runs the rounds and prints one line per round and a summary per operation. */
    public static void main(String[] args) throws IOException {
        BloomShape shape = BloomShape.valueOf(args.length > 0 ? args[0] : "OUT_OF_CACHE");
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 31;
        List<Contender> contenders = new ArrayList<>();
        contenders.add(deja(shape, BloomLayout.SECTORED));
        for (int i = 2; i < args.length; i++) {
            contenders.add(
                    args[i].equals("format1") ? deja(shape, BloomLayout.SCATTERED) : build(shape, Path.of(args[i])));
        }
        contenders.add(guava(shape));
        int n = contenders.size();
        double[][][] rates = new double[OPERATIONS.length][n][rounds];
        for (int r = -WARM_UP_ROUNDS; r < rounds; r++) {
            StringBuilder line = new StringBuilder(r < 0 ? "warm-up" : "round " + r);
            for (int op = 0; op < OPERATIONS.length; op++) {
                line.append("  ").append(OPERATIONS[op]);
                for (int c = 0; c < n; c++) {
                    long start = System.nanoTime();
                    sink += contenders.get(c).burst(op);
                    double rate = CALLS / ((System.nanoTime() - start) / 1e3);
                    if (r >= 0) {
                        rates[op][c][r] = rate;
                    }
                    line.append(String.format(" %.2f", rate));
                }
            }
            System.out.println(line);
        }
        System.out.printf(
                "%s, %d rounds of %d calls per contender and operation, ops/us; medians over rounds%n",
                shape, rounds, CALLS);
        for (int op = 0; op < OPERATIONS.length; op++) {
            double[] guava = rates[op][n - 1];
            System.out.printf("%s: Guava %.2f%n", OPERATIONS[op], median(guava));
            for (int c = 0; c < n - 1; c++) {
                double[] ratios = perRound(rates[op][c], guava);
                System.out.printf(
                        "  %-22s %.2f; per round %.2fx Guava's (quartiles %.2fx to %.2fx, lowest %.2fx)%n",
                        contenders.get(c).name(),
                        median(rates[op][c]),
                        ratios[rounds / 2],
                        ratios[rounds / 4],
                        ratios[rounds * 3 / 4],
                        ratios[0]);
                if (c > 0) {
                    double[] toFirst = perRound(rates[op][c], rates[op][0]);
                    System.out.printf(
                            "  %-22s per round %.3fx %s's (quartiles %.3fx to %.3fx)%n",
                            "",
                            toFirst[rounds / 2],
                            contenders.get(0).name(),
                            toFirst[rounds / 4],
                            toFirst[rounds * 3 / 4]);
                }
            }
        }
        System.out.println("(sink " + sink + ")");
    }

    private static Contender deja(BloomShape shape, BloomLayout layout) throws IOException {
        return contender(
                "deja " + layout.name().toLowerCase(Locale.ROOT), dejaBursts(shape, layout), dejaBursts(shape, layout));
    }

    private static BuildBursts dejaBursts(BloomShape shape, BloomLayout layout) throws IOException {
        BloomBenchmark.Deja state = new BloomBenchmark.Deja();
        state.shape = shape;
        state.layout = layout;
        state.setUp();
        return new BuildBursts(state.filter, state.keys);
    }

    /** The sectored filter of another build, from its {@code benchmarks.jar}. */
    private static Contender build(BloomShape shape, Path jar) throws IOException {
        try {
            var constructor =
                    new BuildLoader(jar).loadClass(BuildBursts.class.getName()).getConstructor(String.class);
            return contender(
                    "deja " + jar.getFileName(),
                    (IntToLongFunction) constructor.newInstance(shape.name()),
                    (IntToLongFunction) constructor.newInstance(shape.name()));
        } catch (ReflectiveOperationException e) {
            throw new IOException("cannot load deja's filter from " + jar + ": " + e, e);
        }
    }

    /** A contender whose checkThenAdd bursts run on a filter of their own ({@link Contender}). */
    private static Contender contender(String name, IntToLongFunction bursts, IntToLongFunction checkThenAddBursts) {
        return new Contender() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public long burst(int operation) {
                return (operation == 2 ? checkThenAddBursts : bursts).applyAsLong(operation);
            }
        };
    }

    private static Contender guava(BloomShape shape) throws IOException {
        BloomBenchmark.Guava state = guavaState(shape);
        BloomBenchmark.Guava checkThenAddState = guavaState(shape);
        return new Contender() {
            @Override
            public String name() {
                return "Guava";
            }

            @Override
            public long burst(int operation) {
                return switch (operation) {
                    case 0 -> mightContain(state.filter, state.keys);
                    case 1 -> put(state.filter, state.keys);
                    default -> put(checkThenAddState.filter, checkThenAddState.keys);
                };
            }
        };
    }

    private static BloomBenchmark.Guava guavaState(BloomShape shape) throws IOException {
        BloomBenchmark.Guava state = new BloomBenchmark.Guava();
        state.shape = shape;
        state.setUp();
        return state;
    }

    // One method per loop, so that each is compiled with its own profile, as a JMH benchmark method is (deja's are
    // in BuildBursts).

    private static long mightContain(com.google.common.hash.BloomFilter<byte[]> filter, KeyPool keys) {
        long n = 0;
        for (int i = 0; i < CALLS; i++) {
            n += filter.mightContain(keys.next()) ? 1 : 0;
        }
        return n;
    }

    private static long put(com.google.common.hash.BloomFilter<byte[]> filter, KeyPool keys) {
        long n = 0;
        for (int i = 0; i < CALLS; i++) {
            n += filter.put(keys.next()) ? 1 : 0;
        }
        return n;
    }

    /** The ratios of two contenders' rates round by round, sorted. */
    private static double[] perRound(double[] rates, double[] anchor) {
        double[] ratios = new double[rates.length];
        for (int r = 0; r < rates.length; r++) {
            ratios[r] = rates[r] / anchor[r];
        }
        Arrays.sort(ratios);
        return ratios;
    }

    /** The median (the upper one for an even count). */
    static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }
}
