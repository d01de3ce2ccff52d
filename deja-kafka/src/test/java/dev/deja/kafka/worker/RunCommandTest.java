package dev.deja.kafka.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.kafka.testing.SharedBroker;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code deja kafka run}'s options: refused before anything connects, layered like {@code deja serve}'s. */
class RunCommandTest {

    @TempDir
    Path dir;

    private final StringWriter err = new StringWriter();
    private final StringWriter out = new StringWriter();

    private int execute(Map<String, String> environment, String... args) {
        CommandLine kafka = KafkaMain.commandLine(environment);
        kafka.setErr(new PrintWriter(err, /* autoFlush= */ true));
        kafka.setOut(new PrintWriter(out, /* autoFlush= */ true));
        return kafka.execute(args);
    }

    /** {@code run} against a port no broker listens on, with distinct topics and the options given. */
    private int runWithTopics(String... options) {
        List<String> args =
                new ArrayList<>(List.of("run", "--bootstrap", "127.0.0.1:9", "--input", "a", "--output", "b"));
        args.addAll(List.of(options));
        return execute(Map.of(), args.toArray(String[]::new));
    }

    /**
     * {@code run} from {@code input} into another topic with valid options, {@code options} added, which connects to
     * {@code bootstrap}: two seconds to find the broker, no HTTP endpoints, state in this test's directory.
     */
    private int runConnecting(String bootstrap, String input, String... options) {
        List<String> args = new ArrayList<>(List.of(
                "run",
                "--bootstrap",
                bootstrap,
                "--input",
                input,
                "--output",
                input + "-out",
                "--connect-timeout",
                "2s",
                "--http-port",
                "-1",
                "--data-dir",
                dir.toString()));
        args.addAll(List.of(options));
        return execute(Map.of(), args.toArray(String[]::new));
    }

    @Test
    void badOptionsAreRefusedBeforeConnecting() {
        // no broker listens on port 9: these fail on the options, with status 2, never on the connection
        assertThat(execute(Map.of(), "run", "--bootstrap", "127.0.0.1:9", "--input", "a", "--output", "a"))
                .isEqualTo(2);
        assertThat(err.toString()).contains("--input and --output must be different topics");
        assertThat(runWithTopics("--window", "forever")).isEqualTo(2);
        assertThat(err.toString()).contains("'forever' is not a duration");
        assertThat(runWithTopics("--id", "xml:id")).isEqualTo(2);
        assertThat(err.toString()).contains("none of key, header:NAME, json:PATH");
        assertThat(runWithTopics("--guarantee", "twice")).isEqualTo(2);
        assertThat(runWithTopics("--store", "memory")).isEqualTo(2);
        assertThat(err.toString()).contains("--store").contains("EXACT, WINDOW");
        assertThat(runWithTopics("--max-ids-per-partition", "1000")).isEqualTo(2);
        assertThat(err.toString()).contains("--max-ids-per-partition applies to --store WINDOW only");
        assertThat(runWithTopics("--store", "WINDOW", "--ids-in-memory-per-partition", "5000"))
                .isEqualTo(2);
        assertThat(err.toString()).contains("--ids-in-memory-per-partition applies to --store EXACT only");
        assertThat(runWithTopics("--ids-in-memory-per-partition", "1000")).isEqualTo(2);
        assertThat(err.toString()).contains("--ids-in-memory-per-partition must be in [1024, 67108864], not 1000");
        assertThat(runWithTopics("--window", "500ms")).isEqualTo(2);
        assertThat(err.toString()).contains("--store EXACT holds a window of at least 1s");
    }

    @Test
    void anUnreachableBrokerIsOneClearErrorAndStatusOne() throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        int status = runConnecting("127.0.0.1:" + closedPort, "a");
        assertThat(status).isEqualTo(1);
        assertThat(out.toString())
                .contains("checking the broker at 127.0.0.1:" + closedPort + " and the input topic (at most 2 s");
        assertThat(err.toString()).contains("no Kafka broker answered at 127.0.0.1:" + closedPort + " within 2 s");
    }

    @Test
    void kafkaSettingsComeFromTheirFileAndTheCommandLineWhichWinsAndReachKafkaStreamsAndTheBrokerCheck()
            throws IOException {
        Path file = Files.writeString(dir.resolve("client.properties"), """
                security.protocol=SASL_SSL
                sasl.mechanism=PLAIN
                producer.compression.type=lz4
                admin.request.timeout.ms=5000
                topic.min.insync.replicas=2
                """);
        WorkerSettings s = withTopics(
                Map.of(),
                "--kafka-config",
                file.toString(),
                "--kafka",
                "sasl.mechanism=SCRAM-SHA-512",
                "--kafka",
                "main.consumer.max.poll.records=200");
        Properties streams = WorkerTopology.properties(s);
        assertThat(streams)
                .containsEntry("security.protocol", "SASL_SSL")
                .containsEntry("sasl.mechanism", "SCRAM-SHA-512")
                .containsEntry("producer.compression.type", "lz4")
                .containsEntry("main.consumer.max.poll.records", "200")
                .containsEntry("topic.min.insync.replicas", "2")
                .containsEntry(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "k:1");
        // the file may be named by the environment, as every option may
        WorkerSettings fromEnvironment = settings(
                Map.of("DEJA_KAFKA_KAFKA_CONFIG", file.toString()),
                "--bootstrap",
                "k:1",
                "--input",
                "a",
                "--output",
                "b");
        assertThat(fromEnvironment.kafka().values()).containsEntry("sasl.mechanism", "PLAIN");
        // the admin client that checks the broker before Kafka Streams starts connects the same way
        assertThat(s.kafka().adminSettings())
                .containsEntry("security.protocol", "SASL_SSL")
                .containsEntry("sasl.mechanism", "SCRAM-SHA-512")
                .containsEntry("request.timeout.ms", "5000")
                .doesNotContainKeys("producer.compression.type", "compression.type", "max.poll.records");
    }

    @Test
    void aKafkaSettingThatIsUnknownMadeByAnOptionOrOfTheWrongTypeIsRefusedBeforeConnecting() throws IOException {
        Map<String, String> refusals = new LinkedHashMap<>(); // --kafka's value -> what the refusal says
        refusals.put("securty.protocol=SSL", "'securty.protocol' in --kafka is no Kafka Streams, consumer, producer");
        refusals.put("consumer.linger.ms=5", "'consumer.linger.ms' in --kafka is no Kafka Streams");
        refusals.put("bootstrap.servers=other:9092", "'bootstrap.servers' in --kafka is made by --bootstrap");
        refusals.put("session.timeout.ms=soon", "the Kafka setting 'session.timeout.ms' in --kafka:");
        refusals.put("security.protocol=TLS", "the Kafka setting 'security.protocol' in --kafka:");
        refusals.forEach((setting, refusal) -> {
            assertThat(runWithTopics("--kafka", setting)).as(setting).isEqualTo(2);
            assertThat(err.toString()).contains(refusal);
        });
        Path file = Files.writeString(dir.resolve("client.properties"), "processing.guarantee=at_least_once\n");
        assertThat(runWithTopics("--kafka-config", file.toString())).isEqualTo(2);
        assertThat(err.toString())
                .contains("'processing.guarantee' in " + file + " (--kafka-config) is made by --guarantee");
        assertThat(runWithTopics(
                        "--kafka-config", dir.resolve("missing.properties").toString()))
                .isEqualTo(2);
        assertThat(err.toString())
                .contains("cannot read the Kafka properties file")
                .contains("no such file");
    }

    @Test
    @Timeout(60) // were the settings not used by the check, the worker would start and retry until stopped
    void theBrokerCheckUsesTheKafkaSettings() {
        // the shared broker speaks plaintext, so a client told to use TLS cannot reach it: the check before Kafka
        // Streams starts fails, as it would not if the settings reached only Kafka Streams
        SharedBroker.createTopics(1, "tls-in");
        int status = runConnecting(SharedBroker.bootstrapServers(), "tls-in", "--kafka", "security.protocol=SSL");
        assertThat(status).isEqualTo(1);
        assertThat(err.toString()).contains("no Kafka broker answered at " + SharedBroker.bootstrapServers());
    }

    @Test
    void theCommandLineWinsOverTheEnvironmentWhichWinsOverTheConfigFile() throws IOException {
        Path config = Files.writeString(
                dir.resolve("kafka.properties"), "window=3h\nguarantee=at-least-once\nid=json:context.messageId\n");
        Map<String, String> environment = Map.of("DEJA_KAFKA_WINDOW", "2h", "DEJA_KAFKA_BOOTSTRAP", "k:9092");
        WorkerSettings fromLayers =
                settings(environment, "--config", config.toString(), "--input", "in", "--output", "out");
        assertThat(fromLayers.window()).isEqualTo(Duration.ofHours(2));
        assertThat(fromLayers.guarantee()).isEqualTo(Guarantee.AT_LEAST_ONCE);
        assertThat(fromLayers.id().toString()).isEqualTo("json:context.messageId");
        assertThat(fromLayers.bootstrap()).isEqualTo("k:9092");
        assertThat(fromLayers.applicationId()).isEqualTo("deja-dedup-in");
        WorkerSettings fromLine = settings(
                environment, "--config", config.toString(), "--input", "in", "--output", "out", "--window", "1h");
        assertThat(fromLine.window()).isEqualTo(Duration.ofHours(1));
    }

    @Test
    void streamThreadsDefaultToOnePerProcessorAndMayBeSetOnTheLineOrInTheEnvironment() {
        WorkerSettings byDefault = withTopics(Map.of());
        assertThat(byDefault.threads()).isEqualTo(Runtime.getRuntime().availableProcessors());
        assertThat(WorkerTopology.properties(byDefault))
                .containsEntry(
                        StreamsConfig.NUM_STREAM_THREADS_CONFIG,
                        Runtime.getRuntime().availableProcessors());
        Map<String, String> environment = Map.of("DEJA_KAFKA_THREADS", "5");
        assertThat(withTopics(environment).threads()).isEqualTo(5);
        WorkerSettings fromLine = withTopics(environment, "--threads", "3");
        assertThat(WorkerTopology.properties(fromLine)).containsEntry(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 3);
        assertThat(runWithTopics("--threads", "0")).isEqualTo(2);
        assertThat(err.toString()).contains("--threads must be at least 1");
    }

    @Test
    void idsInMemoryDefaultToTheStepsDefaultAndMayBeSetInTheEnvironmentOrOnTheLine() {
        WorkerSettings byDefault = withTopics(Map.of());
        assertThat(WorkerTopology.dedup(byDefault).idsInMemoryPerPartition())
                .isEqualTo(dev.deja.kafka.Dedup.DEFAULT_IDS_IN_MEMORY_PER_PARTITION);
        Map<String, String> environment = Map.of("DEJA_KAFKA_IDS_IN_MEMORY_PER_PARTITION", "70000");
        assertThat(WorkerTopology.dedup(withTopics(environment)).idsInMemoryPerPartition())
                .isEqualTo(70_000);
        WorkerSettings fromLine = withTopics(environment, "--ids-in-memory-per-partition", "4096");
        assertThat(WorkerTopology.dedup(fromLine).idsInMemoryPerPartition()).isEqualTo(4096);
    }

    @Test
    void theConfigFileMayBeNamedByTheEnvironmentAndABadValueSaysWhereItCameFrom() throws IOException {
        Path config = Files.writeString(dir.resolve("kafka.properties"), "window=3h\n");
        WorkerSettings fromFile = withTopics(Map.of("DEJA_KAFKA_CONFIG", config.toString()));
        assertThat(fromFile.window()).isEqualTo(Duration.ofHours(3));
        assertThat(execute(
                        Map.of("DEJA_KAFKA_PASS_THROUGH", "maybe"),
                        "run",
                        "--bootstrap",
                        "k:1",
                        "--input",
                        "a",
                        "--output",
                        "b"))
                .isEqualTo(2);
        assertThat(err.toString())
                .contains("'maybe' is not a boolean")
                .contains("given as the environment variable DEJA_KAFKA_PASS_THROUGH");
    }

    @Test
    void aConfigFileKeyThatNamesNoOptionIsRefused() throws IOException {
        Path config = Files.writeString(dir.resolve("kafka.properties"), "windw=3h\n");
        assertThat(execute(
                        Map.of(),
                        "run",
                        "--config",
                        config.toString(),
                        "--bootstrap",
                        "k:1",
                        "--input",
                        "a",
                        "--output",
                        "b"))
                .isEqualTo(2);
        assertThat(err.toString()).contains("unknown key 'windw'");
    }

    /** The settings of {@code run} with a broker, an input and an output given, {@code options} after them. */
    private static WorkerSettings withTopics(Map<String, String> environment, String... options) {
        List<String> args = new ArrayList<>(List.of("--bootstrap", "k:1", "--input", "a", "--output", "b"));
        args.addAll(List.of(options));
        return settings(environment, args.toArray(String[]::new));
    }

    private static WorkerSettings settings(Map<String, String> environment, String... args) {
        CommandLine kafka = KafkaMain.commandLine(environment);
        CommandLine.ParseResult parsed = kafka.parseArgs(prepend("run", args));
        return parsed.subcommand()
                .commandSpec()
                .commandLine()
                .<RunCommand>getCommand()
                .settings();
    }

    private static String[] prepend(String first, String... rest) {
        String[] all = new String[rest.length + 1];
        all[0] = first;
        System.arraycopy(rest, 0, all, 1, rest.length);
        return all;
    }
}
