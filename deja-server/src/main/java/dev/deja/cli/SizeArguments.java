package dev.deja.cli;

import java.time.Duration;
import java.util.function.Supplier;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * What the {@code deja size} subcommands share: the checks of their common options and the usage errors (exit code
 * 2) they answer a bad argument with.
 */
final class SizeArguments {

    private SizeArguments() {}

    /** A usage error (exit code 2) for the command. */
    static ParameterException usage(CommandSpec spec, String message) {
        return new ParameterException(spec.commandLine(), message);
    }

    /** Runs a sizing computation, turning its argument errors into usage errors of the command. */
    static <T> T compute(CommandSpec spec, Supplier<T> computation) {
        try {
            return computation.get();
        } catch (IllegalArgumentException e) {
            throw usage(spec, e.getMessage());
        }
    }

    /** Checks {@code --rate}: a finite number of keys per second above zero. */
    static double checkRate(CommandSpec spec, double rate) {
        if (!(rate > 0) || Double.isInfinite(rate)) {
            throw usage(spec, "--rate must be a number of keys per second > 0 (got " + rate + ")");
        }
        return rate;
    }

    /** Keys arriving in one window: {@code rate * window}, rounded, at least one. */
    static long keysPerWindow(CommandSpec spec, double rate, Duration window) {
        double product = rate * seconds(window);
        double keys = Math.rint(product);
        if (keys < 1 || keys >= Long.MAX_VALUE) {
            throw usage(spec, "--rate times --window must be between 1 and 2^63 keys (got " + product + ")");
        }
        return (long) keys;
    }

    /** A duration in seconds, with its fraction. */
    static double seconds(Duration d) {
        return d.getSeconds() + d.getNano() / 1e9;
    }
}
