package dev.deja.cli;

import static dev.deja.cli.SizeReport.bytes;
import static dev.deja.cli.SizeReport.count;
import static dev.deja.cli.SizeReport.probability;

import dev.deja.sizing.BloomSize;
import dev.deja.sizing.BloomSizing;
import dev.deja.sizing.Sizing;
import java.util.Locale;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code deja size bloom}: bits, k and memory for a capacity and fpp, or the fpp a memory gives. */
@Command(
        name = "bloom",
        sortOptions = false,
        description = {
            "Bloom filter: bits, k and memory for a capacity and fpp, or the fpp of a memory.",
            "Give --capacity and one of --fpp (bits, k, memory) or --memory (best k and its fpp)."
        })
final class BloomSizeCommand implements Runnable {

    @Spec
    private CommandSpec spec;

    @Mixin
    @SuppressWarnings("UnusedVariable") // read by picocli only
    private HelpOption help;

    @Option(names = "--capacity", required = true, paramLabel = "KEYS", description = "Keys the filter must hold.")
    private long capacity;

    @ArgGroup(exclusive = true, multiplicity = "1")
    private Target target;

    @Option(names = "--json", description = "Print one JSON object instead of the table.")
    private boolean json;

    /** What is fixed besides the capacity: the false-positive probability or the memory. */
    static final class Target {
        @Option(names = "--fpp", paramLabel = "P", description = "Target false-positive probability, in (0, 1).")
        private Double fpp;

        @Option(
                names = "--memory",
                paramLabel = "SIZE",
                converter = ByteSizeConverter.class,
                description = "Memory for the bit array, e.g. 1g, 512m (powers of 1024).")
        private Long memory;
    }

    @Override
    public void run() {
        if (capacity <= 0) {
            throw SizeArguments.usage(spec, "--capacity must be a number of keys > 0 (got " + capacity + ")");
        }
        SizeReport report = new SizeReport(
                        "bloom",
                        "bloom filter sizing (blocked: each key's k bits in one 512-bit"
                                + " block, bit i in its 64-bit word i mod 8)")
                .input("capacity", "capacity", capacity, count(capacity) + " keys");
        BloomSize size;
        if (target.fpp != null) {
            double fpp = target.fpp;
            if (!(fpp > 0 && fpp < 1)) {
                throw SizeArguments.usage(spec, "--fpp must be in the open interval (0, 1) (got " + fpp + ")");
            }
            report.input("fpp", "target fpp", fpp, probability(fpp));
            size = SizeArguments.compute(spec, () -> Sizing.bloom(capacity, fpp));
        } else {
            long memory = target.memory;
            if (memory < BloomSizing.BLOCK_BITS / 8 || memory > BloomSizing.MAX_BITS / 8) {
                throw SizeArguments.usage(
                        spec,
                        "--memory must be in [64 bytes, " + bytes(BloomSizing.MAX_BITS / 8) + "] (got " + count(memory)
                                + " bytes)");
            }
            report.input("memoryBytes", "memory", memory, bytes(memory));
            size = SizeArguments.compute(spec, () -> Sizing.bloomForMemory(memory, capacity));
        }
        double classic = BloomSizing.classicFpp(size.bits(), size.hashes(), capacity);
        report.result("bits", "bits (m)", size.bits(), count(size.bits()))
                .result("hashes", "hashes (k)", (long) size.hashes(), Integer.toString(size.hashes()))
                .result("bytes", "memory", size.bytes(), bytes(size.bytes()))
                .result("blocks", "512-bit blocks", size.blocks(), count(size.blocks()))
                .result(
                        "bitsPerKey",
                        "bits per key (c)",
                        size.bitsPerKey(),
                        String.format(Locale.ROOT, "%.3f", size.bitsPerKey()))
                .result("fpp", "fpp at capacity", size.expectedFpp(), probability(size.expectedFpp()))
                .result("classicFpp", "classic fpp, same m, k", classic, probability(classic) + " (unblocked filter)");
        report.formula("fpp(c, k) = sum_{i>=0} Poisson(i; 512/c) * prod_{w=0..7} (1 - (1 - 1/64)^(k_w*i))^k_w,"
                        + "  c = m/n (blocked filter; Putze, Sanders, Singler 2007)")
                .formula("k_w = bits of a key in word w: floor(k/8) + 1 for w < k mod 8, else floor(k/8)"
                        + " (sectorized; Lang et al. 2019)")
                .formula(
                        target.fpp != null
                                ? "m = smallest multiple of 512 with fpp(m/n, k) <= target,"
                                        + " taking the smallest over k = 1..32"
                                : "m = memory * 8 rounded down to whole 512-bit blocks;"
                                        + " k = the k in 1..32 with the lowest fpp")
                .formula("classic (unblocked) Bloom, for comparison: (1 - e^(-k*n/m))^k")
                .formula("memory = m / 8 bytes");
        report.print(spec.commandLine().getOut(), json);
    }
}
