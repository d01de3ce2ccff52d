package dev.deja.kafka.worker;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code deja kafka run}'s options: refused before anything connects, layered like {@code deja serve}'s. */
class RunCommandTest {

    @TempDir
    Path dir;

    private final StringWriter err = new StringWriter();

    private int execute(Map<String, String> environment, String... args) {
        CommandLine kafka = KafkaMain.commandLine(environment);
        kafka.setErr(new PrintWriter(err, /* autoFlush= */ true));
        kafka.setOut(new PrintWriter(new StringWriter(), /* autoFlush= */ true));
        return kafka.execute(args);
    }

    /** {@code run} against a port no broker listens on, with distinct topics and the options given. */
    private int runWithTopics(String... options) {
        List<String> args =
                new ArrayList<>(List.of("run", "--bootstrap", "127.0.0.1:9", "--input", "a", "--output", "b"));
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
        assertThat(runWithTopics("--window", "500ms")).isEqualTo(2);
        assertThat(err.toString()).contains("--store EXACT holds a window of at least 1s");
    }

    @Test
    void anUnreachableBrokerIsOneClearErrorAndStatusOne() throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        int status = execute(
                Map.of(),
                "run",
                "--bootstrap",
                "127.0.0.1:" + closedPort,
                "--input",
                "a",
                "--output",
                "b",
                "--connect-timeout",
                "2s",
                "--http-port",
                "-1",
                "--data-dir",
                dir.toString());
        assertThat(status).isEqualTo(1);
        assertThat(err.toString()).contains("no Kafka broker answered at 127.0.0.1:" + closedPort + " within 2 s");
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
    void theConfigFileMayBeNamedByTheEnvironmentAndABadValueSaysWhereItCameFrom() throws IOException {
        Path config = Files.writeString(dir.resolve("kafka.properties"), "window=3h\n");
        WorkerSettings fromFile = settings(
                Map.of("DEJA_KAFKA_CONFIG", config.toString()), "--bootstrap", "k:1", "--input", "a", "--output", "b");
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
