package dev.deja.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code deja size}: sizes a store for a workload and shows the formulas used. */
@Command(
        name = "size",
        description = "Sizes a store for a workload and shows the formulas.",
        subcommands = {BloomSizeCommand.class, RecentSizeCommand.class, ExactSizeCommand.class})
final class SizeCommand implements Runnable {

    @Spec
    private CommandSpec spec;

    @Option(
            names = {"-h", "--help"},
            usageHelp = true,
            description = "Show this help and exit.")
    @SuppressWarnings("UnusedVariable") // declares --help to picocli, which sets it and prints the usage itself
    private boolean help;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "Missing the store kind: one of bloom, recent, exact");
    }
}
