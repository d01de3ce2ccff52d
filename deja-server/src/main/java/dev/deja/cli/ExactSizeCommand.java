package dev.deja.cli;

import static dev.deja.cli.SizeReport.bytes;
import static dev.deja.cli.SizeReport.count;

import dev.deja.sizing.ExactSize;
import dev.deja.sizing.ExactSizing;
import dev.deja.sizing.Sizing;
import java.time.Duration;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code deja size exact}: a disk estimate for the exact (RocksDB) store over a window, calibrated on a measurement.
 */
@Command(
        name = "exact",
        sortOptions = false,
        description = {
            "Exact store: disk per key and per window for random ids (calibrated on 100M UUIDs).",
            "Give --rate and --window; --key-length, --owners and --generations describe the store."
        })
final class ExactSizeCommand implements Runnable {

    @Spec
    private CommandSpec spec;

    @Mixin
    @SuppressWarnings("UnusedVariable") // read by picocli only
    private HelpOption help;

    @Option(names = "--rate", required = true, paramLabel = "KEYS_PER_SECOND", description = "New keys per second.")
    private double rate;

    @Option(
            names = "--window",
            required = true,
            paramLabel = "DURATION",
            converter = DurationConverter.class,
            description = "How long keys are kept, e.g. 3600s, 30m, 1h, 7d.")
    private Duration window;

    @Option(
            names = "--key-length",
            defaultValue = "16",
            paramLabel = "BYTES",
            description = "Bytes per key (default: ${DEFAULT-VALUE}, a binary UUID).")
    private int keyLength;

    @Option(names = "--owners", description = "Keys are stored with their 8-byte owner.")
    private boolean owners;

    @Option(
            names = "--generations",
            defaultValue = "8",
            paramLabel = "G",
            description =
                    "Generations the window is cut into, as the store's 'generations' (default: ${DEFAULT-VALUE}).")
    private int generations;

    @Option(names = "--json", description = "Print one JSON object instead of the table.")
    private boolean json;

    @Override
    public void run() {
        SizeArguments.checkRate(spec, rate);
        if (keyLength < 1 || keyLength > ExactSizing.MAX_KEY_LENGTH) {
            throw SizeArguments.usage(
                    spec, "--key-length must be in [1, " + ExactSizing.MAX_KEY_LENGTH + "] (got " + keyLength + ")");
        }
        if (generations < 2 || generations > 1024) {
            throw SizeArguments.usage(spec, "--generations must be in [2, 1024] (got " + generations + ")");
        }
        long keys = SizeArguments.keysPerWindow(spec, rate, window);
        ExactSize size = SizeArguments.compute(spec, () -> Sizing.exact(keys, keyLength, owners, generations));
        new SizeReport("exact", "exact store sizing (RocksDB; an estimate for random ids, calibrated on a measurement)")
                .input("rate", "rate", rate, SizeReport.rate(rate))
                .input(
                        "windowSeconds",
                        "window",
                        SizeArguments.seconds(window),
                        SizeReport.duration(SizeArguments.seconds(window)))
                .input("keyLength", "key length (L)", (long) keyLength, keyLength + " bytes")
                .input("owners", "owners", owners, owners ? "yes (V = 8 bytes)" : "no (V = 0)")
                .input("generations", "generations (G)", (long) generations, String.valueOf(generations))
                .result("keys", "keys per window (x)", keys, count(keys))
                .result(
                        "bytesPerKey",
                        "disk per key",
                        size.bytesPerKey(),
                        String.format(Locale.ROOT, "%.2f bytes", size.bytesPerKey()))
                .result("diskBytes", "disk", size.diskBytes(), bytes(size.diskBytes()))
                .result("peakDiskBytes", "peak disk", size.peakDiskBytes(), bytes(size.peakDiskBytes()))
                .result("peakFilterBytes", "peak filter memory", size.peakFilterBytes(), bytes(size.peakFilterBytes()))
                .formula("x = rate * window")
                .formula(String.format(
                        Locale.ROOT,
                        "bytes per key = max(L - log2(x / G) / 8, 0) + V + %.2f: the key less"
                                + " the prefix sorted neighbours share, the owner, and %.2f bytes measured (time,"
                                + " headers, block overhead)",
                        ExactSizing.OVERHEAD_BYTES,
                        ExactSizing.OVERHEAD_BYTES))
                .formula(
                        "disk = x * bytes per key; peak disk = disk * (1 + 1/G), one generation kept beyond the window")
                .formula(String.format(
                        Locale.ROOT,
                        "peak filter memory = x * (1 + 1/G) * %.2f bits / 8: a Bloom"
                                + " filter at 0.1%% per generation, in front of RocksDB",
                        ExactSize.FILTER_BITS_PER_KEY))
                .note(String.format(
                                Locale.ROOT,
                                "Calibrated on 100 million random UUIDs (%.2f bytes per key measured,"
                                        + " docs/BENCHMARKS.md);",
                                ExactSizing.CALIBRATION_BYTES_PER_KEY)
                        + " keys with common text compress further, so for them this is an upper bound.")
                .print(spec.commandLine().getOut(), json);
    }
}
