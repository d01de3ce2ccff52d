package dev.deja.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
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

    @Mixin
    @SuppressWarnings("UnusedVariable") // read by picocli only
    private HelpOption help;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "Missing the store kind: one of bloom, recent, exact");
    }
}
