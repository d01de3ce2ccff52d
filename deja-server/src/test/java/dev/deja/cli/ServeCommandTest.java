package dev.deja.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.journal.FsyncPolicy;
import dev.deja.namespace.NamespaceSpec;
import dev.deja.server.ServerConfig;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code deja serve}'s options: help, defaults, and the config-file layer under the command line. */
class ServeCommandTest {

    @TempDir
    Path dir;

    @Test
    void helpDocumentsEveryOptionWithItsDefault() {
        StringWriter out = new StringWriter();
        CommandLine cli = Main.commandLine();
        cli.setOut(new PrintWriter(out));
        assertThat(cli.execute("serve", "--help")).isZero();
        assertThat(out.toString().replaceAll("\\s+", " ")) // as read, whatever the line wrapping
                .contains("--data-dir", "Default: deja-data")
                .contains("--bind", "Default: 127.0.0.1")
                .contains("--http-port", "Default: 8889")
                .contains("--resp-port", "Default: 6389")
                .contains("--fsync", "Default: everysec")
                .contains("--password")
                .contains("--memory-limit", "Default: auto")
                .contains("--max-namespaces", "Default: 1024")
                .contains("--native-memory-limit")
                .contains("--max-http-connections", "--max-resp-connections", "one per 4 MiB of the JVM's maximum heap")
                .contains("--request-timeout", "Default: 30")
                .contains("--request-memory", "a sixteenth of the JVM's maximum heap")
                .contains("DEJA_HTTP_PORT");
    }

    @Test
    void defaultsAreThoseOfTheIssue() throws Exception {
        ServerConfig config = parse();
        assertThat(config.dataDir()).isEqualTo(Path.of("deja-data"));
        assertThat(config.bind()).isEqualTo("127.0.0.1");
        assertThat(config.httpPort()).isEqualTo(8889);
        assertThat(config.respPort()).isEqualTo(6389);
        assertThat(config.fsync()).isEqualTo(FsyncPolicy.EVERYSEC);
        assertThat(config.password()).isNull();
        assertThat(config.maxKeyBytes()).isEqualTo(65536);
        assertThat(config.defaultSpec()).isEqualTo(ServerConfig.DEFAULT_FILTER);
        assertThat(config.memoryLimit())
                .as("auto: a share of the heap, resolved by the registry")
                .isZero();
        assertThat(config.maxNamespaces()).isEqualTo(1024);
        assertThat(config.requestTimeoutSeconds()).isEqualTo(30);
        long heap = Runtime.getRuntime().maxMemory();
        assertThat(config.maxHttpConnections())
                .as("auto: one per 4 MiB of heap, within [64, 10000]")
                .isEqualTo(Math.clamp(heap >> 22, 64, 10_000))
                .isEqualTo(config.maxRespConnections());
        assertThat(config.requestMemory())
                .as("auto: a sixteenth of the heap, at least the largest request")
                .isEqualTo(Math.max(heap / 16, config.maxRequestBytes()));
    }

    @Test
    void connectionLimitsAndRequestMemoryTakeNumbersOrAuto() throws Exception {
        ServerConfig config = parse(
                "--max-http-connections",
                "7",
                "--max-resp-connections",
                "9",
                "--request-memory",
                "1g",
                "--request-timeout",
                "0");
        assertThat(config.maxHttpConnections()).isEqualTo(7);
        assertThat(config.maxRespConnections()).isEqualTo(9);
        assertThat(config.requestMemory()).isEqualTo(1L << 30);
        assertThat(config.requestTimeoutSeconds()).as("never").isZero();
        assertThatThrownBy(() -> parse("--max-http-connections", "0"))
                .hasMessageContaining("--max-http-connections must be a whole number >= 1 or auto (got '0')");
        assertThatThrownBy(() -> parse("--request-memory", "1m"))
                .hasMessageContaining("--request-memory must be at least the largest request a connection may hold");
        assertThatThrownBy(() -> parse("--request-timeout", "-1"))
                .hasMessageContaining("--request-timeout must be >= 0 (got -1)");
    }

    @Test
    void memoryLimitIsASizeWithinTheHeap() throws Exception {
        assertThat(parse("--memory-limit", "64m").memoryLimit()).isEqualTo(64L << 20);
        assertThat(parse("--memory-limit", "AUTO").memoryLimit()).isZero();
        assertThat(parse("--native-memory-limit", "2g").nativeMemoryLimit()).isEqualTo(2L << 30);
        assertThat(parse().nativeMemoryLimit()).as("auto").isZero();
        assertThatThrownBy(() -> parse("--memory-limit", "lots")).hasMessageContaining("'lots' is not a size");
        assertThatThrownBy(() -> parse("--memory-limit", "1024t"))
                .hasMessageContaining("exceeds the JVM's maximum heap");
    }

    @Test
    void configFileFillsWhatTheCommandLineLeavesOut() throws Exception {
        Path file = dir.resolve("deja.properties");
        Files.writeString(file, "http-port=1234\nresp-port=4321\nfsync=always\ndata-dir=" + dir + "\n");
        ServerConfig config = parse("--config", file.toString(), "--resp-port", "0");
        assertThat(config.httpPort()).isEqualTo(1234);
        assertThat(config.respPort()).as("the command line wins").isZero();
        assertThat(config.fsync()).isEqualTo(FsyncPolicy.ALWAYS);
        assertThat(config.dataDir()).isEqualTo(dir);
    }

    @Test
    void theCommandLineWinsOverTheEnvironmentWhichWinsOverTheConfigFile() throws Exception {
        Path file = dir.resolve("deja.properties");
        Files.writeString(file, "http-port=1234\nresp-port=4321\nmax-batch=77\n");
        Map<String, String> environment =
                Map.of("DEJA_CONFIG", file.toString(), "DEJA_HTTP_PORT", "5555", "DEJA_RESP_PORT", "6666");
        ServerConfig config = parse(environment, "--resp-port", "7777");
        assertThat(config.respPort()).as("the command line").isEqualTo(7777);
        assertThat(config.httpPort()).as("the environment over the file").isEqualTo(5555);
        assertThat(config.maxBatch())
                .as("the file (DEJA_CONFIG) over the default")
                .isEqualTo(77);
        assertThat(config.maxKeyBytes()).as("the default").isEqualTo(65536);
        assertThatThrownBy(() -> parse(Map.of("DEJA_IDLE_TIMEOUT", "soon")))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("--idle-timeout")
                .hasMessageContaining("(given as the environment variable DEJA_IDLE_TIMEOUT)");
    }

    @Test
    void badValuesNameTheOption() throws Exception {
        Path file = dir.resolve("bad.properties");
        Files.writeString(file, "http-port=eighty\n");
        assertThatThrownBy(() -> parse("--config", file.toString()))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("--http-port")
                .hasMessageContaining("(given as 'http-port' in " + file + ")")
                .satisfies(e -> assertThat(((CommandLine.ParameterException) e)
                                .getCommandLine()
                                .getCommandName())
                        .as("the usage printed with the error is deja serve's")
                        .isEqualTo("serve")
                        .matches(n -> ((CommandLine.ParameterException) e)
                                        .getCommandLine()
                                        .getParent()
                                != null));
        assertThatThrownBy(() ->
                        parse("--config", dir.resolve("missing.properties").toString()))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("cannot read the config file " + dir.resolve("missing.properties")
                        + " (--config): no such file");
        Files.writeString(file, "data-dir=\\u12\n");
        assertThatThrownBy(() -> parse("--config", file.toString()))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("cannot read the config file");
        Files.writeString(file, "idle-timeout=-5\n");
        assertThatThrownBy(() -> parse("--config", file.toString()))
                .hasMessageContaining("--idle-timeout (given as 'idle-timeout' in " + file + ") must be >= 0 (got -5)");
        Files.writeString(file, "colour=blue\n");
        assertThatThrownBy(() -> parse("--config", file.toString())).hasMessageContaining("unknown key 'colour'");
        assertThatThrownBy(() -> parse("--fsync", "sometimes"))
                .hasMessageContaining("fsync must be one of always|everysec|no");
        assertThatThrownBy(() -> parse("--http-port", "70000"))
                .hasMessageContaining("--http-port must be in [0, 65535]");
        assertThatThrownBy(() -> parse("--max-namespaces", "0")).hasMessageContaining("--max-namespaces must be");
        // values that would be refused at first use are refused at start
        assertThatThrownBy(() -> parse("--max-key-bytes", "1000000000"))
                .hasMessageContaining("--max-key-bytes must be at most --max-body-bytes (16777216) (got 1000000000)");
        assertThatThrownBy(() -> parse("--kv-namespace", "bad name")).hasMessageContaining("namespace name must be");
        assertThatThrownBy(() -> parse("--kv-params", "window=abc")).hasMessageContaining("window");
        assertThatThrownBy(() -> parse("--bind", "999.1.1.1"))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("--bind must be an address or host name of this machine")
                .hasMessageContaining("cannot resolve '999.1.1.1'");
        assertThatThrownBy(() -> parse("--default-kind", "sideways"))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("kind must be one of [bloom, recent, exact, cuckoo] (got 'sideways')");
    }

    @Test
    void aDefaultKindGivenAloneTakesThatKindsOwnDefaults() throws Exception {
        // the default filter's parameters belong to bloom: another kind must not inherit them
        assertThat(parse("--default-kind", "exact").defaultSpec()).isEqualTo(NamespaceSpec.parse("exact", ""));
        assertThat(parse("--default-kind", "bloom").defaultSpec()).isEqualTo(ServerConfig.DEFAULT_FILTER);
        assertThat(parse("--default-kind", "recent", "--default-params", "keys=1000")
                        .defaultSpec())
                .isEqualTo(NamespaceSpec.parse("recent", "keys=1000"));
        assertThatThrownBy(() -> parse("--default-kind", "recent"))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("--default-kind recent needs --default-params")
                .hasMessageContaining("buckets=")
                .hasMessageContaining("keys=");
        Path file = dir.resolve("recent.properties");
        Files.writeString(file, "default-kind=exact\n");
        assertThat(parse("--config", file.toString()).defaultSpec().kind()).isEqualTo("exact");
    }

    @Test
    void aServerWithBothFrontEndsDisabledIsRefused() {
        assertThatThrownBy(() -> parse("--http-port", "0", "--resp-port", "0"))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("--http-port and --resp-port are both 0");
    }

    @Test
    void respConnectionsStayOpenWhenIdleByDefaultAsInRedis() throws Exception {
        assertThat(parse().respIdleTimeoutSeconds()).isZero();
        assertThat(parse().idleTimeoutSeconds()).isEqualTo(300);
        assertThat(parse("--resp-idle-timeout", "60").respIdleTimeoutSeconds()).isEqualTo(60);
    }

    private static ServerConfig parse(String... args) throws Exception {
        return parse(Map.of(), args);
    }

    private static ServerConfig parse(Map<String, String> environment, String... args) throws Exception {
        // through the top-level command, as "deja serve ..." parses it
        CommandLine cli = Main.commandLine(environment);
        String[] full = new String[args.length + 1];
        full[0] = "serve";
        System.arraycopy(args, 0, full, 1, args.length);
        CommandLine.ParseResult result = cli.parseArgs(full);
        return ((ServeCommand) result.subcommand().commandSpec().userObject()).serverConfig();
    }
}
