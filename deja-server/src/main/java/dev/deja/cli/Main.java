package dev.deja.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code deja} command line: one subcommand per job.
 */
@Command(name = "deja",
        mixinStandardHelpOptions = true,
        version = "deja 0.1.0",
        description = "Have I seen this id before? Seen-sets with a declared error direction.",
        subcommands = {SizeCommand.class, ServeCommand.class, CommandLine.HelpCommand.class})
public final class Main {

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The configured command line, shared by {@link #main} and the tests. */
    public static CommandLine commandLine() {
        return new CommandLine(new Main());
    }
}
