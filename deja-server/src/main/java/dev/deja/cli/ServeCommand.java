package dev.deja.cli;

import dev.deja.bloom.BloomFilter;
import dev.deja.namespace.NamespaceException;
import dev.deja.namespace.NamespaceLimits;
import dev.deja.namespace.NamespaceSpec;
import dev.deja.options.LayeredDefaults;
import dev.deja.server.DejaServer;
import dev.deja.server.ServerConfig;
import dev.deja.server.ServerContext;
import dev.deja.server.Transport;
import dev.deja.text.Units;
import io.netty.util.ResourceLeakDetector;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code deja serve}: runs the network server until Ctrl-C or SIGTERM.
 *
 * <p>Every option may also come from an environment variable ({@code DEJA_} and the option name in upper case
 * with underscores: {@code --http-port} is {@code DEJA_HTTP_PORT}) or a key of the {@code --config} properties
 * file (the option name without dashes: {@code http-port=8889}); the command line wins over the environment,
 * which wins over the file ({@link LayeredDefaults}, picocli's default value provider of this command).
 */
@Command(
        name = "serve",
        sortOptions = false,
        description = {
            "Runs the deja server: HTTP on --http-port, the Redis protocol (RESP) on --resp-port.",
            "Stops cleanly on Ctrl-C or SIGTERM (stop accepting, finish in-flight requests, snapshot);"
                    + " SIGUSR1 snapshots every namespace now."
        },
        footer = {
            "",
            "Every option can also be set by an environment variable DEJA_<OPTION> (for example"
                    + " DEJA_HTTP_PORT=8890) or by a key in the --config file (for example http-port=8890); the command"
                    + " line wins over the environment, which wins over the file."
        })
final class ServeCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    /** The values of the options not on the command line: the environment, then the config file. */
    final LayeredDefaults defaults;

    /** The command, its options layered over the process's environment. */
    ServeCommand() {
        this(System.getenv());
    }

    /** The command, its options layered over {@code environment}. */
    ServeCommand(Map<String, String> environment) {
        this.defaults = new LayeredDefaults("DEJA_", () -> spec, () -> config, environment);
    }

    @Option(
            names = "--config",
            paramLabel = "FILE",
            description = "Properties file with option values, keys named like the options (http-port=8889)."
                    + " Environment: DEJA_CONFIG.")
    Path config;

    @Option(
            names = "--data-dir",
            paramLabel = "DIR",
            defaultValue = "deja-data",
            description = "Where namespaces are kept. Default: ${DEFAULT-VALUE}.")
    Path dataDir;

    @Option(
            names = "--bind",
            paramLabel = "ADDRESS",
            defaultValue = "127.0.0.1",
            description = "Address both front ends listen on (0.0.0.0 for every interface). Default: ${DEFAULT-VALUE}.")
    String bind;

    @Option(
            names = "--http-port",
            paramLabel = "PORT",
            defaultValue = "8889",
            description = "HTTP port; 0 disables HTTP. Default: ${DEFAULT-VALUE}.")
    int httpPort;

    @Option(
            names = "--resp-port",
            paramLabel = "PORT",
            defaultValue = "6389",
            description = "Redis protocol (RESP) port; 0 disables RESP. Default: ${DEFAULT-VALUE}.")
    int respPort;

    @Option(
            names = "--fsync",
            paramLabel = "POLICY",
            defaultValue = "everysec",
            description = "Journal fsync policy: always, everysec or no. Default: ${DEFAULT-VALUE}.")
    String fsync;

    @Option(
            names = "--password",
            paramLabel = "SECRET",
            description =
                    "Password for RESP AUTH and HTTP (a bearer token, or Basic credentials with any user name, which"
                            + " a browser asks for on the status page). Default: none (no authentication).")
    String password;

    @Option(
            names = "--auto-create",
            paramLabel = "BOOLEAN",
            defaultValue = "true",
            arity = "1",
            description = "Create an unknown namespace on first use with the default kind and parameters."
                    + " Default: ${DEFAULT-VALUE}.")
    boolean autoCreate;

    @Option(
            names = "--allow-flush",
            paramLabel = "BOOLEAN",
            defaultValue = "false",
            arity = "1",
            description = "Let FLUSHDB and FLUSHALL drop every namespace and its files (the default namespace is"
                    + " emptied). Default: ${DEFAULT-VALUE} (refused).")
    boolean allowFlush;

    @Option(
            names = "--default-kind",
            paramLabel = "KIND",
            defaultValue = "bloom",
            description = "Kind of the 'default' namespace and of auto-created ones. Default: ${DEFAULT-VALUE}.")
    String defaultKind;

    /** Null when not given: the default depends on the kind (see {@link #defaultSpec}). */
    @Option(
            names = "--default-params",
            paramLabel = "NAME=VALUE,...",
            description = "Parameters of the 'default' namespace and of auto-created ones. Default for bloom:"
                    + " bits=8589934592,k=10,capacity=500000000 (1 GiB, 10 hashes: 5e8 keys at 0.1%%, allocated as"
                    + " it fills); for exact: none (a 24h window); recent has no default size: give buckets=N or"
                    + " keys=N.")
    String defaultParams;

    @Option(
            names = "--kv-namespace",
            paramLabel = "NAME",
            defaultValue = "kv",
            description = "The exact namespace the Redis key-value commands (SET key value NX EX, GET, EXISTS, DEL,"
                    + " TTL) address; created on first use. Default: ${DEFAULT-VALUE}.")
    String kvNamespace;

    @Option(
            names = "--kv-params",
            paramLabel = "NAME=VALUE,...",
            defaultValue = ServerConfig.KV_DEFAULT_PARAMS,
            description = "Parameters of the key-value namespace when it is created on first use (kind exact);"
                    + " expiries longer than its window are refused. Default: ${DEFAULT-VALUE}.")
    String kvParams;

    @Option(
            names = "--snapshot-interval",
            paramLabel = "SECONDS",
            defaultValue = "300",
            description = "Seconds between timed snapshots; 0 disables the timer. Default: ${DEFAULT-VALUE}.")
    int snapshotInterval;

    @Option(
            names = "--max-key-bytes",
            paramLabel = "BYTES",
            defaultValue = "65536",
            description = "Largest key accepted. Default: ${DEFAULT-VALUE}.")
    int maxKeyBytes;

    @Option(
            names = "--max-body-bytes",
            paramLabel = "BYTES",
            defaultValue = "16777216",
            description = "Largest HTTP body, or RESP command (its arguments together), accepted."
                    + " Default: ${DEFAULT-VALUE}.")
    int maxBodyBytes;

    @Option(
            names = "--max-batch",
            paramLabel = "KEYS",
            defaultValue = "100000",
            description = "Most keys in one HTTP batch or one RESP command (BF.MADD, DJ.MCHECKTHENADD, DEL...)."
                    + " Default: ${DEFAULT-VALUE}.")
    int maxBatch;

    @Option(
            names = "--max-http-connections",
            paramLabel = "N",
            defaultValue = "auto",
            description = "Most open HTTP connections; further ones get a 503 and are closed. A number, or auto: one"
                    + " per 4 MiB of the JVM's maximum heap, between 64 and 10000. Each front end has its own limit, so"
                    + " that clients of one cannot take the other's connections. Default: ${DEFAULT-VALUE}.")
    String maxHttpConnections;

    @Option(
            names = "--max-resp-connections",
            paramLabel = "N",
            defaultValue = "auto",
            description = "Most open RESP connections; further ones get 'ERR max number of clients reached' and are"
                    + " closed. A number, or auto, as for --max-http-connections. Default: ${DEFAULT-VALUE}.")
    String maxRespConnections;

    @Option(
            names = "--request-timeout",
            paramLabel = "SECONDS",
            defaultValue = "30",
            description = "Seconds within which a request (HTTP headers and body, or one RESP command) must arrive"
                    + " whole once its first byte has, however its bytes trickle in; a connection that takes longer"
                    + " gets an error (HTTP 408) and is closed. 0 never. Default: ${DEFAULT-VALUE}.")
    int requestTimeout;

    @Option(
            names = "--request-memory",
            paramLabel = "SIZE",
            defaultValue = "auto",
            description = "Memory all connections together may hold in requests received and not yet executed,"
                    + " beyond 64 KiB each; a connection whose next bytes do not fit gets an error (HTTP 503) and is"
                    + " closed, the others go on. A size such as 512m, or auto: a sixteenth of the JVM's maximum"
                    + " heap, and at least the largest request one connection may send. Default: ${DEFAULT-VALUE}.")
    String requestMemory;

    @Option(
            names = "--idle-timeout",
            paramLabel = "SECONDS",
            defaultValue = "300",
            description = "Seconds after which an HTTP connection waiting for its next request is closed; 0 never."
                    + " Default: ${DEFAULT-VALUE}.")
    int idleTimeout;

    @Option(
            names = "--resp-idle-timeout",
            paramLabel = "SECONDS",
            defaultValue = "0",
            description = "Seconds after which an idle RESP connection is closed; 0 never, as Redis's default"
                    + " 'timeout 0', which pooled Redis clients count on. Default: ${DEFAULT-VALUE}.")
    int respIdleTimeout;

    @Option(
            names = "--io-threads",
            paramLabel = "N",
            defaultValue = "0",
            description = "Network threads (event loops); 0 means one per core but one (at least one), which leaves"
                    + " a core to the journal, the garbage collector and clients on the same machine, whose turns on a"
                    + " loop's core would delay its replies (docs/BENCHMARKS.md, section Server settings)."
                    + " Default: ${DEFAULT-VALUE}.")
    int ioThreads;

    @Option(
            names = "--transport",
            paramLabel = "NAME",
            defaultValue = "auto",
            description = "The event loops' socket layer: epoll (Linux's, through Netty's native library), nio (the"
                    + " JDK's, anywhere), or auto for epoll where its library loads and nio elsewhere; the start says"
                    + " which runs. Default: ${DEFAULT-VALUE}.")
    String transport;

    @Option(
            names = "--memory-limit",
            paramLabel = "SIZE",
            defaultValue = "auto",
            description = "Heap the namespaces may take together (bloom and recent stores, counted at their full"
                    + " size when created); a namespace that would exceed it is refused. A size such as 4g, or auto:"
                    + " three quarters of the JVM's maximum heap (-Xmx, set with DEJA_JAVA_OPTS)."
                    + " Default: ${DEFAULT-VALUE}.")
    String memoryLimit;

    @Option(
            names = "--native-memory-limit",
            paramLabel = "SIZE",
            defaultValue = "auto",
            description = "Memory outside the heap the exact namespaces may take together (RocksDB's block cache"
                    + " plus three memtables each, counted when created); a namespace that would exceed it is"
                    + " refused. A size such as 8g, or auto: a quarter of the machine's memory."
                    + " Default: ${DEFAULT-VALUE}.")
    String nativeMemoryLimit;

    @Option(
            names = "--max-namespaces",
            paramLabel = "N",
            defaultValue = "" + NamespaceLimits.DEFAULT_COUNT,
            description = "Most namespaces the server holds; each keeps files of its own open (two for bloom and"
                    + " recent, RocksDB's for exact), while their journal and snapshot threads are shared."
                    + " Default: ${DEFAULT-VALUE}.")
    int maxNamespaces;

    @Mixin
    @SuppressWarnings("UnusedVariable") // read by picocli only
    private HelpOption help;

    @Override
    public Integer call() throws Exception {
        if (System.getProperty("io.netty.leakDetection.level") == null) {
            // Netty tracks a sample of buffers by default, a cost per request; the tests run with it on, and
            // -Dio.netty.leakDetection.level turns it back on here
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        }
        ServerConfig serverConfig = serverConfig();
        PrintWriter out = spec.commandLine().getOut();
        // SIGUSR1's default action ends the process: the handler goes in before the namespaces load, which can take
        // a while, and a snapshot asked for meanwhile is taken once they have
        SnapshotSignal usr1 = new SnapshotSignal();
        Signals.onUsr1(usr1::received);
        out.println("deja " + ServerContext.VERSION + " starting: loading the namespaces in "
                + dataDir.toAbsolutePath().normalize());
        out.flush();
        DejaServer server;
        try {
            server = DejaServer.start(serverConfig);
        } catch (IOException | RuntimeException e) {
            spec.commandLine()
                    .getErr()
                    .println("deja: cannot start the server on " + serverConfig.bind() + " (HTTP "
                            + serverConfig.httpPort() + ", RESP " + serverConfig.respPort() + ", data in "
                            + serverConfig.dataDir() + "): "
                            // a refused namespace says all there is to say; other failures keep their type
                            // (BindException)
                            + (e instanceof NamespaceException ? e.getMessage() : e));
            return 1;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            out.println("deja stopping: no new connections, finishing requests,"
                                    + " writing every namespace out");
                            out.flush();
                            server.close();
                            out.println("deja stopped");
                            out.flush();
                            stopped.countDown();
                        },
                        "deja-shutdown"));
        usr1.started(server);
        out.println("deja " + ServerContext.VERSION + " serving data in "
                + dataDir.toAbsolutePath().normalize());
        if (server.httpPort() > 0) {
            out.println("  HTTP on http://" + bind + ":" + server.httpPort() + "  (try: curl '" + "http://" + bind + ":"
                    + server.httpPort() + "/checkthenadd?e=hello')");
        }
        if (server.respPort() > 0) {
            out.println("  RESP on " + bind + ":" + server.respPort() + "  (try: redis-cli -p " + server.respPort()
                    + " BF.ADD default hello)");
        }
        out.println("  network: " + server.transport()
                + (server.transport() == Transport.NIO && serverConfig.transport() == Transport.AUTO
                        ? " (epoll is not available here: " + Transport.epollUnavailability() + ")"
                        : ""));
        // said, since a JVM started by hand rather than by ./deja lacks the module and runs the slower test
        out.println(
                BloomFilter.vectorLookups()
                        ? "  bloom lookups: 256-bit vectors"
                        : "  bloom lookups: scalar (a JVM started with --add-modules jdk.incubator.vector,"
                                + " as ./deja does, tests blocks with vectors, faster out of cache)");
        out.println("  Ctrl-C stops; kill -USR1 " + ProcessHandle.current().pid() + " snapshots now.");
        out.flush();
        stopped.await();
        return 0;
    }

    /** The server configuration: command line, then environment, then config file, then defaults. */
    ServerConfig serverConfig() {
        if (httpPort == 0 && respPort == 0) {
            throw usage("--http-port" + defaults.givenAs("--http-port")
                    + " and --resp-port" + defaults.givenAs("--resp-port")
                    + " are both 0, which disables both front ends:"
                    + " the server would answer nothing; enable at least one");
        }
        try {
            InetAddress.getByName(bind);
        } catch (UnknownHostException e) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(),
                    "--bind" + defaults.givenAs("--bind")
                            + " must be an address or host name of this machine, like 127.0.0.1 or 0.0.0.0"
                            + " (cannot resolve '" + bind + "')",
                    e);
        }
        try {
            return ServerConfig.builder()
                    .dataDir(dataDir)
                    .bind(bind)
                    .httpPort(httpPort)
                    .respPort(respPort)
                    .fsync(fsync)
                    .password(password)
                    .autoCreate(autoCreate)
                    .allowFlush(allowFlush)
                    .defaultSpec(defaultSpec())
                    .kvNamespace(kvNamespace)
                    .kvSpec(NamespaceSpec.parse("exact", kvParams))
                    .snapshotIntervalSeconds(snapshotInterval)
                    .maxKeyBytes(maxKeyBytes)
                    .maxBodyBytes(maxBodyBytes)
                    .maxBatch(maxBatch)
                    .maxHttpConnections(countOrAuto("--max-http-connections", maxHttpConnections))
                    .maxRespConnections(countOrAuto("--max-resp-connections", maxRespConnections))
                    .requestTimeoutSeconds(requestTimeout)
                    .requestMemory(sizeOrAuto(requestMemory))
                    .idleTimeoutSeconds(idleTimeout)
                    .respIdleTimeoutSeconds(respIdleTimeout)
                    .ioThreads(ioThreads)
                    .transport(transport)
                    .memoryLimit(sizeOrAuto(memoryLimit))
                    .nativeMemoryLimit(sizeOrAuto(nativeMemoryLimit))
                    .maxNamespaces(maxNamespaces)
                    .build();
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), SettingNames.asOptions(e.getMessage(), spec, defaults), e);
        }
    }

    /**
     * The default namespaces' kind and parameters. Without {@code --default-params} each kind takes its own defaults:
     * the 1 GiB default filter for bloom, the store's defaults for exact. A recent store has no size that suits most
     * uses (it is sized from a rate and a window), so there it must be given.
     */
    private NamespaceSpec defaultSpec() {
        if (defaultParams != null) {
            return NamespaceSpec.parse(defaultKind, defaultParams);
        }
        return switch (defaultKind) {
            case "bloom" -> ServerConfig.DEFAULT_FILTER;
            case "recent" ->
                throw usage("--default-kind recent"
                        + defaults.givenAs("--default-kind")
                        + " needs --default-params: a recent store has no default size;"
                        + " give buckets=N (total slots) or keys=N (how many later keys a key must survive),"
                        + " for example --default-params keys=3600000 (see: deja size recent)");
            default -> NamespaceSpec.parse(defaultKind, ""); // exact's own defaults; an unknown kind fails later
        };
    }

    /** A usage error (exit code 2) of {@code deja serve}. */
    private CommandLine.ParameterException usage(String message) {
        return new CommandLine.ParameterException(spec.commandLine(), message);
    }

    /** A count option's number, at least 1, or 0 for {@code auto} (the server then derives the value). */
    private int countOrAuto(String option, String value) {
        if (value.equalsIgnoreCase("auto")) {
            return 0;
        }
        try {
            int count = Integer.parseInt(value.strip());
            if (count >= 1) {
                return count;
            }
        } catch (NumberFormatException e) {
            // said below
        }
        throw usage(option + defaults.givenAs(option) + " must be a whole number >= 1 or auto (got '" + value + "')");
    }

    /** A size option's bytes, or 0 for {@code auto} (the server then derives the value). */
    private static long sizeOrAuto(String value) {
        return value.equalsIgnoreCase("auto") ? 0 : Units.bytes(value);
    }
}
