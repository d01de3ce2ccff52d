package dev.deja.cli;

import picocli.CommandLine.Option;

/**
 * The {@code -h}/{@code --help} option every command takes, as a picocli mixin: picocli sets the field and prints the
 * command's usage itself.
 */
final class HelpOption {

    @Option(
            names = {"-h", "--help"},
            usageHelp = true,
            description = "Show this help and exit.")
    @SuppressWarnings("UnusedVariable") // read by picocli only
    private boolean help;
}
