package dev.deja.cli;

import static dev.deja.cli.SizeReport.bytes;
import static dev.deja.cli.SizeReport.count;

import dev.deja.sizing.ExactSize;
import dev.deja.sizing.ExactSizing;
import dev.deja.sizing.Sizing;
import java.time.Duration;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code deja size exact}: a rough disk estimate for the exact (RocksDB) store over a window. */
@Command(name = "exact",
        sortOptions = false,
        description = {"Exact store: a rough disk estimate per key and per window.",
                "Give --rate and --window; --key-length and --owners describe the keys."})
final class ExactSizeCommand implements Runnable {

    @Spec
    private CommandSpec spec;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    private boolean help;

    @Option(names = "--rate", required = true, paramLabel = "KEYS_PER_SECOND", description = "New keys per second.")
    private double rate;

    @Option(names = "--window", required = true, paramLabel = "DURATION", converter = DurationConverter.class,
            description = "How long keys are kept, e.g. 3600s, 30m, 1h, 7d.")
    private Duration window;

    @Option(names = "--key-length", defaultValue = "16", paramLabel = "BYTES",
            description = "Bytes per key (default: ${DEFAULT-VALUE}, a binary UUID).")
    private int keyLength;

    @Option(names = "--owners", description = "Keys are stored with their 8-byte owner.")
    private boolean owners;

    @Option(names = "--json", description = "Print one JSON object instead of the table.")
    private boolean json;

    @Override
    public void run() {
        SizeCommand.checkRate(spec, rate);
        if (keyLength < 1 || keyLength > ExactSizing.MAX_KEY_LENGTH) {
            throw SizeCommand.usage(spec, "--key-length must be in [1, " + ExactSizing.MAX_KEY_LENGTH + "] (got "
                    + keyLength + ")");
        }
        long keys = SizeCommand.keysPerWindow(spec, rate, window);
        ExactSize size = SizeCommand.compute(spec, () -> Sizing.exact(keys, keyLength, owners));
        new SizeReport("exact", "exact store sizing (RocksDB; a rough estimate, not a measurement)")
                .input("rate", "rate", rate, SizeReport.rate(rate))
                .input("windowSeconds", "window", SizeCommand.seconds(window),
                        SizeReport.duration(SizeCommand.seconds(window)))
                .input("keyLength", "key length (L)", (long) keyLength, keyLength + " bytes")
                .input("owners", "owners", owners, owners ? "yes (V = 8 bytes)" : "no (V = 0)")
                .result("keys", "keys per window (x)", keys, count(keys))
                .result("bytesPerKey", "disk per key", size.bytesPerKey(),
                        String.format(Locale.ROOT, "%.2f bytes", size.bytesPerKey()))
                .result("diskBytes", "disk", size.diskBytes(), bytes(size.diskBytes()))
                .formula("x = rate * window")
                .formula("bytes per key = (L + V + 8 + 3 + 1.25) * 1.1: key, value, internal-key trailer,"
                        + " lengths and index, bloom filter at 10 bits/key, levelled-compaction space amplification")
                .formula("disk = x * bytes per key")
                .note("Compression, prefix encoding and the generations kept beyond the window are not counted.")
                .print(spec.commandLine().getOut(), json);
    }
}
