package dev.deja.cli;

import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code deja} command line: one subcommand per job.
 */
@Command(
        name = "deja",
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
        return commandLine(System.getenv());
    }

    /** The command line, with {@code deja serve}'s options layered over {@code environment}. */
    static CommandLine commandLine(Map<String, String> environment) {
        CommandLine.IFactory factory = new CommandLine.IFactory() {
            @Override
            public <K> K create(Class<K> type) throws Exception {
                return type == ServeCommand.class
                        ? type.cast(new ServeCommand(environment))
                        : CommandLine.defaultFactory().create(type);
            }
        };
        CommandLine deja = new CommandLine(new Main(), factory);
        CommandLine serve = deja.getSubcommands().get("serve");
        serve.setDefaultValueProvider(serve.<ServeCommand>getCommand().defaults);
        return deja;
    }
}
