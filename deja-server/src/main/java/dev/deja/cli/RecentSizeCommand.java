package dev.deja.cli;

import static dev.deja.cli.SizeReport.bytes;
import static dev.deja.cli.SizeReport.count;
import static dev.deja.cli.SizeReport.probability;

import dev.deja.recent.RecentFilter;
import dev.deja.sizing.RecentSize;
import dev.deja.sizing.RecentSizing;
import dev.deja.sizing.Sizing;
import java.time.Duration;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code deja size recent}: given two of the window, the probability and the memory, the third.
 *
 * <p>{@code --probability} is the probability that a key is still held at the end of the window;
 * {@code --lost-probability} is the reading of the NSQ de-duplication article behind the recent filter, the
 * probability that it has been overwritten by then.
 */
@Command(
        name = "recent",
        sortOptions = false,
        description = {
            "Recent filter: buckets and memory, or how long it holds a key, or the probability.",
            "Give --rate and two of:",
            "  --window, --probability (or --lost-probability), --memory (or --buckets);",
            "the third is computed: buckets and memory, the window a key is held for, or the probability."
        })
final class RecentSizeCommand implements Runnable {

    @Spec
    private CommandSpec spec;

    @Mixin
    @SuppressWarnings("UnusedVariable") // read by picocli only
    private HelpOption help;

    @Option(names = "--rate", required = true, paramLabel = "KEYS_PER_SECOND", description = "New keys per second.")
    private double rate;

    @Option(
            names = "--window",
            paramLabel = "DURATION",
            converter = DurationConverter.class,
            description = "How long a key must be remembered, e.g. 3600s, 30m, 1h, 7d.")
    private Duration window;

    @ArgGroup(exclusive = true)
    private Probability probability;

    @ArgGroup(exclusive = true)
    private Size size;

    @Option(
            names = "--ways",
            defaultValue = "" + RecentFilter.DEFAULT_WAYS,
            paramLabel = "W",
            description = "Buckets per set: 1 (the NSQ article's direct-mapped filter), 2, 4, 8 or 16"
                    + " (default: ${DEFAULT-VALUE}).")
    private int ways;

    @Option(names = "--owners", description = "Keep each key's 8-byte owner (twice the memory).")
    private boolean owners;

    @Option(names = "--json", description = "Print one JSON object instead of the table.")
    private boolean json;

    /** The probability, in one of its two readings. */
    static final class Probability {
        @Option(
                names = "--probability",
                paramLabel = "P",
                description = "Probability that a key is still held at the end of the window, in (0, 1).")
        private Double held;

        @Option(
                names = "--lost-probability",
                paramLabel = "P",
                description = "The NSQ article's reading: probability that a key has been overwritten by the end of"
                        + " the window.")
        private Double lost;
    }

    /** The filter size, as memory or as buckets. */
    static final class Size {
        @Option(
                names = "--memory",
                paramLabel = "SIZE",
                converter = ByteSizeConverter.class,
                description = "Memory for the buckets, e.g. 1g, 512m (powers of 1024).")
        private Long memory;

        @Option(names = "--buckets", paramLabel = "N", description = "Total buckets, a multiple of --ways.")
        private Long buckets;
    }

    @Override
    public void run() {
        SizeArguments.checkRate(spec, rate);
        if (ways < 1 || ways > RecentSizing.MAX_WAYS || Integer.bitCount(ways) != 1) {
            throw SizeArguments.usage(spec, "--ways must be one of 1, 2, 4, 8, 16 (got " + ways + ")");
        }
        int given = (window != null ? 1 : 0) + (probability != null ? 1 : 0) + (size != null ? 1 : 0);
        if (given != 2) {
            throw SizeArguments.usage(
                    spec,
                    "give exactly two of --window, --probability (or --lost-probability)"
                            + " and --memory (or --buckets); got " + given);
        }
        SizeReport report = new SizeReport(
                        "recent", "recent filter sizing (may forget old keys, never calls a new key seen)")
                .input("rate", "rate", rate, SizeReport.rate(rate));
        long keys = 0;
        if (window != null) {
            keys = SizeArguments.keysPerWindow(spec, rate, window);
            report.input(
                            "windowSeconds",
                            "window",
                            SizeArguments.seconds(window),
                            SizeReport.duration(SizeArguments.seconds(window)))
                    .input("keysPerWindow", "keys per window (x)", keys, count(keys));
        }
        double held = 0;
        if (probability != null) {
            held = probability.held != null
                    ? checkProbability("--probability", probability.held)
                    : 1 - checkProbability("--lost-probability", probability.lost);
            if (probability.held != null) {
                report.input("heldProbability", "probability held", held, probability(held));
            } else {
                report.input("lostProbability", "probability lost", probability.lost, probability(probability.lost));
            }
        }
        report.input("ways", "ways (W)", (long) ways, Integer.toString(ways))
                .input("owners", "owners", owners, owners ? "yes" : "no");
        if (!owners) {
            report.note("deja serve's recent namespaces keep owners unless created with owners=false (so that"
                    + " check-then-add can answer RETRY); size those with --owners, which doubles the memory.");
        }

        if (size == null) {
            forWindow(report, keys, held);
        } else {
            long buckets = buckets();
            if (size.memory != null) {
                report.input("memoryBytes", "memory", size.memory, bytes(size.memory));
            } else {
                report.input("buckets", "buckets", buckets, count(buckets));
            }
            if (window == null) {
                forMemory(report, buckets, held);
            } else {
                long x = keys;
                RecentSize result =
                        SizeArguments.compute(spec, () -> Sizing.recentForBuckets(buckets, ways, owners, x));
                shape(report, result);
                held(report, result);
                formulas(report);
                report.formula("x = rate * window; the answer is P(held after x)");
            }
        }
        report.formula("memory = N * " + RecentSizing.bytesPerBucket(owners) + " bytes"
                + (owners
                        ? " (8-byte fingerprint + 8-byte owner per bucket)"
                        : " (one 8-byte fingerprint per bucket)"));
        report.print(spec.commandLine().getOut(), json);
    }

    /** Window and probability given: the buckets. */
    private void forWindow(SizeReport report, long keys, double held) {
        RecentSize result = SizeArguments.compute(spec, () -> Sizing.recent(keys, held, ways, owners));
        shape(report, result);
        held(report, result);
        formulas(report);
        report.formula("x = rate * window");
        report.formula(
                ways == 1
                        ? "N = ceil(1 / (1 - p_held^(1/x))): the smallest whole N with (1 - 1/N)^x >= p_held"
                        : "N = W * (smallest S with P(held after x) >= p_held), found by bisection");
        if (probability.lost != null) {
            report.formula("p_held = 1 - p_lost (the NSQ article's: p_lost = 1 - (1 - 1/N)^x)");
        } else if (ways == 1) {
            String articleFigure;
            try {
                articleFigure = count(RecentSizing.bucketsFor(keys, 1 - held, 1)) + " buckets";
            } catch (IllegalArgumentException tooLarge) {
                articleFigure = "more than the largest filter";
            }
            report.note("the NSQ article's figure for these numbers, " + articleFigure
                    + ", answers the inverse question: a key"
                    + " held with probability " + probability(1 - held) + " (lost with " + probability(held)
                    + "); --lost-probability " + probability.held + " gives it.");
        }
    }

    /** Memory and probability given: how long a key is held. */
    private void forMemory(SizeReport report, long buckets, double held) {
        long keysHeld = SizeArguments.compute(spec, () -> RecentSizing.keysHeld(buckets, ways, held));
        RecentSize result = Sizing.recentForBuckets(buckets, ways, owners, keysHeld);
        shape(report, result);
        report.result("keysHeld", "keys held for (x)", keysHeld, count(keysHeld) + " further keys")
                .result("windowSeconds", "window held for", keysHeld / rate, SizeReport.duration(keysHeld / rate));
        formulas(report);
        report.formula("x = largest x with P(held after x) >= p_held (bisection); window = x / rate");
        if (probability.lost != null) {
            report.formula("p_held = 1 - p_lost");
        } else if (ways == 1) {
            long articleKeys = RecentSizing.keysHeld(buckets, 1, 1 - held);
            report.note("the NSQ article's reading of the same numbers (a key lost with probability "
                    + probability(held) + ") gives " + SizeReport.duration(articleKeys / rate)
                    + ": that is the inverse question.");
        }
    }

    private void shape(SizeReport report, RecentSize result) {
        report.result("buckets", "buckets (N)", result.buckets(), count(result.buckets()))
                .result("sets", "sets (S = N/W)", result.sets(), count(result.sets()))
                .result("bytes", "memory", result.bytes(), bytes(result.bytes()));
    }

    private static void held(SizeReport report, RecentSize result) {
        report.result(
                        "heldProbability",
                        "held after window",
                        result.heldProbability(),
                        probability(result.heldProbability()))
                .result(
                        "lostProbability",
                        "lost by window end",
                        result.lostProbability(),
                        probability(result.lostProbability()));
    }

    private void formulas(SizeReport report) {
        report.formula(
                ways == 1
                        ? "P(held after x further keys) = (1 - 1/N)^x   (the NSQ article's, direct-mapped)"
                        : "P(held after x further keys) = P(Binomial(x, 1/S) < W)"
                                + " = sum_{j<W} C(x,j) (1/S)^j (1-1/S)^(x-j)");
    }

    private long buckets() {
        if (size.memory != null) {
            long min = (long) ways * RecentSizing.bytesPerBucket(owners);
            long max = RecentSizing.MAX_BUCKETS * RecentSizing.bytesPerBucket(owners);
            if (size.memory < min || size.memory > max) {
                throw SizeArguments.usage(
                        spec,
                        "--memory must be in [" + count(min) + " bytes, " + bytes(max) + "] for --ways " + ways
                                + (owners ? " with --owners" : "") + " (got " + count(size.memory) + " bytes)");
            }
            return RecentSizing.bucketsForMemory(size.memory, ways, owners);
        }
        long n = size.buckets;
        if (n < ways || n > RecentSizing.MAX_BUCKETS || n % ways != 0) {
            throw SizeArguments.usage(
                    spec,
                    "--buckets must be a multiple of --ways (" + ways + ") in [" + ways + ", "
                            + count(RecentSizing.MAX_BUCKETS) + "] (got " + n + ")");
        }
        return n;
    }

    private double checkProbability(String option, double p) {
        if (!(p > 0 && p < 1)) {
            throw SizeArguments.usage(spec, option + " must be in the open interval (0, 1) (got " + p + ")");
        }
        return p;
    }
}
