package dev.deja.kafka.worker;

import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code deja kafka}: the de-dup worker ({@code run}) and its demonstration ({@code demo}). */
@Command(
        name = "deja kafka",
        mixinStandardHelpOptions = true,
        version = "deja 0.1.0",
        description = "De-duplication of a Kafka topic with Kafka Streams.",
        subcommands = {RunCommand.class, DemoCommand.class, CommandLine.HelpCommand.class})
public final class KafkaMain {

    public static void main(String[] args) {
        System.exit(commandLine(System.getenv()).execute(args));
    }

    /** The command line, with {@code run}'s options layered over {@code environment}. */
    static CommandLine commandLine(Map<String, String> environment) {
        CommandLine.IFactory factory = new CommandLine.IFactory() {
            @Override
            public <K> K create(Class<K> type) throws Exception {
                return type == RunCommand.class
                        ? type.cast(new RunCommand(environment))
                        : CommandLine.defaultFactory().create(type);
            }
        };
        CommandLine kafka = new CommandLine(new KafkaMain(), factory);
        CommandLine run = kafka.getSubcommands().get("run");
        run.setDefaultValueProvider(run.<RunCommand>getCommand().defaults);
        return kafka;
    }
}
