package dev.deja.kafka.worker;

import dev.deja.kafka.Dedup;
import dev.deja.kafka.IdSource;
import dev.deja.kafka.StoreKind;
import dev.deja.kafka.WindowClock;
import dev.deja.options.LayeredDefaults;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code deja kafka run}: de-duplicates a topic into another until stopped (SIGTERM or Ctrl-C). */
@Command(
        name = "run",
        mixinStandardHelpOptions = true,
        description = {
            "De-duplicates the input topic into the output topic with Kafka Streams, until stopped.",
            "More capacity: start more workers with the same --application-id.",
        },
        footer = {
            "",
            "Every option can also be set by an environment variable DEJA_KAFKA_<OPTION> (for example"
                    + " DEJA_KAFKA_BOOTSTRAP=kafka:9092) or by a key in the --config file (for example window=24h);"
                    + " the command line wins over the environment, which wins over the file.",
            "Exit status: 0 when stopped, 1 when the broker cannot be reached or the application fails,"
                    + " 2 for bad options."
        })
final class RunCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    final LayeredDefaults defaults;

    RunCommand(Map<String, String> environment) {
        this.defaults = new LayeredDefaults("DEJA_KAFKA_", () -> spec, () -> config, environment);
    }

    @Option(names = "--config", paramLabel = "FILE", description = "Properties file of option values (window=24h).")
    Path config;

    @Option(names = "--bootstrap", paramLabel = "HOST:PORT", description = "Kafka brokers to connect to.")
    String bootstrap;

    @Option(names = "--input", paramLabel = "TOPIC", description = "The topic to de-duplicate.")
    String input;

    @Option(names = "--output", paramLabel = "TOPIC", description = "Where the first copy of each id goes.")
    String output;

    @Option(
            names = "--id",
            paramLabel = "SOURCE",
            converter = Converters.IdSourceConverter.class,
            defaultValue = "key",
            description = "Where the id is: key, header:NAME, json:PATH (json:context.messageId) or hash (of the"
                    + " value). Default: ${DEFAULT-VALUE}.")
    IdSource id;

    @Option(
            names = "--input-keyed-by-id",
            defaultValue = "false",
            description = "The input is already partitioned by the id: skip the repartition by id (implied by --id"
                    + " key).")
    boolean inputKeyedById;

    @Option(
            names = "--window",
            paramLabel = "DURATION",
            converter = Converters.DurationConverter.class,
            defaultValue = "24h",
            description = "How long an id is held. Default: ${DEFAULT-VALUE}.")
    Duration window;

    @Option(
            names = "--clock",
            paramLabel = "CLOCK",
            defaultValue = "RECORD_TIME",
            description = "What places an id in the window: RECORD_TIME (the record's timestamp) or WALL_CLOCK (when"
                    + " first seen). Default: ${DEFAULT-VALUE}.")
    WindowClock clock;

    @Option(
            names = "--store",
            paramLabel = "KIND",
            defaultValue = "EXACT",
            description = "Where the ids live: EXACT (deja's exact store, changelog in batches) or WINDOW (Kafka"
                    + " Streams' window store, a changelog record per id). Default: ${DEFAULT-VALUE}.")
    StoreKind store;

    @Option(
            names = "--max-ids-per-partition",
            paramLabel = "N",
            description = "Cap on the ids held per input partition; past it the effective window shrinks (--store"
                    + " WINDOW only).")
    Long maxIdsPerPartition;

    @Option(
            names = "--ids-in-memory-per-partition",
            paramLabel = "N",
            description = "New ids the exact store holds in memory per input partition (about 40 bytes each) before"
                    + " writing them to disk in one batch; copies of them are answered from memory (--store EXACT"
                    + " only). Default: " + Dedup.DEFAULT_IDS_IN_MEMORY_PER_PARTITION + ".")
    Integer idsInMemoryPerPartition;

    @Option(names = "--duplicates", paramLabel = "TOPIC", description = "Send duplicates here instead of dropping.")
    String duplicates;

    @Option(
            names = "--missing-id",
            paramLabel = "TOPIC",
            description = "Send records without an id here instead of passing them on.")
    String missingId;

    @Option(
            names = "--guarantee",
            paramLabel = "G",
            converter = Converters.GuaranteeConverter.class,
            defaultValue = "exactly-once",
            description = "exactly-once or at-least-once. Default: ${DEFAULT-VALUE}.")
    Guarantee guarantee;

    @Option(
            names = "--application-id",
            paramLabel = "ID",
            description = "Kafka Streams application id, shared by all workers of one job. Default: deja-dedup-INPUT.")
    String applicationId;

    @Option(
            names = "--data-dir",
            paramLabel = "DIR",
            defaultValue = "deja-kafka-data",
            description = "Where the state stores live (DIR/state). Default: ${DEFAULT-VALUE}.")
    Path dataDir;

    @Option(
            names = "--threads",
            paramLabel = "N",
            description = "Stream threads; each runs some of the tasks (one per input partition). Default: one per"
                    + " processor.")
    Integer threads;

    @Option(
            names = "--replication-factor",
            paramLabel = "N",
            defaultValue = "-1",
            description = "Replicas of the changelog and repartition topics; -1: the broker's default.replication."
                    + "factor. Default: ${DEFAULT-VALUE}.")
    int replicationFactor;

    @Option(
            names = "--standby-replicas",
            paramLabel = "N",
            defaultValue = "1",
            description = "Warm copies of each state store on other workers. Default: ${DEFAULT-VALUE}.")
    int standbyReplicas;

    @Option(
            names = "--connect-timeout",
            paramLabel = "DURATION",
            converter = Converters.DurationConverter.class,
            defaultValue = "30s",
            description = "How long to wait for the broker at start. Default: ${DEFAULT-VALUE}.")
    Duration connectTimeout;

    @Option(
            names = "--http-bind",
            paramLabel = "ADDRESS",
            defaultValue = "127.0.0.1",
            description = "Address of /metrics and /health. Default: ${DEFAULT-VALUE}.")
    InetAddress httpBind;

    @Option(
            names = "--http-port",
            paramLabel = "PORT",
            defaultValue = "8890",
            description = "Port of /metrics and /health; 0 any free port, -1 none. Default: ${DEFAULT-VALUE}.")
    int httpPort;

    @Option(
            names = "--kafka-config",
            paramLabel = "FILE",
            description = "Kafka properties file (TLS, SASL, client settings; prefixes consumer., producer., admin. and"
                    + " topic. as in Kafka Streams), passed on to Kafka Streams.")
    Path kafkaConfig;

    @Option(
            names = "--kafka",
            paramLabel = "KEY=VALUE",
            description = "One Kafka setting, as in --kafka-config, over it; repeatable (--kafka"
                    + " security.protocol=SASL_SSL). Settings an option makes are refused (bootstrap.servers:"
                    + " --bootstrap).")
    Map<String, String> kafka;

    @Option(
            names = "--pass-through",
            defaultValue = "false",
            description = "Copy input to output without de-duplicating (the benchmark's anchor).")
    boolean passThrough;

    /** The settings the options make, checked; refuses bad ones as picocli refuses a bad option (status 2). */
    WorkerSettings settings() {
        try {
            return new WorkerSettings(
                    bootstrap,
                    input,
                    output,
                    id,
                    inputKeyedById,
                    window,
                    clock,
                    store,
                    maxIdsPerPartition == null ? Dedup.NO_CAP : positive(maxIdsPerPartition),
                    idsInMemoryPerPartition,
                    duplicates,
                    missingId,
                    guarantee,
                    applicationId == null ? "deja-dedup-" + input : applicationId,
                    dataDir,
                    threads == null ? WorkerSettings.defaultThreads() : threads,
                    replicationFactor,
                    standbyReplicas,
                    connectTimeout,
                    httpBind,
                    httpPort,
                    passThrough,
                    ClientProperties.read(kafkaConfig, kafka));
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    @Override
    public Integer call() throws InterruptedException {
        WorkerSettings settings = settings();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        // Kafka's client warns at each failed attempt while the check waits: this line says what the wait is for
        out.println("deja kafka: checking the broker at " + settings.bootstrap() + " and the input topic (at most "
                + settings.connectTimeout().toSeconds() + " s, --connect-timeout)");
        out.flush();
        Worker worker;
        try {
            worker = Worker.start(settings);
        } catch (WorkerException e) {
            err.println("deja kafka: " + e.getMessage());
            err.flush();
            return 1;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(worker::close, "deja-kafka-shutdown"));
        out.println("deja kafka: " + (settings.passThrough() ? "copying " : "de-duplicating ") + settings.input()
                + " -> " + settings.output() + " (" + settings.guarantee() + ", id " + settings.id() + ", window "
                + settings.window() + ", application " + settings.applicationId() + ")");
        if (worker.httpPort() >= 0) {
            String base = "http://" + settings.httpBind().getHostAddress() + ":" + worker.httpPort();
            out.println("  metrics on " + base + "/metrics, health on " + base + "/health");
        }
        out.flush();
        boolean failed = worker.awaitEnd();
        if (failed) {
            err.println("deja kafka: the application failed (see the log above); state " + worker.state());
            err.flush();
            worker.close();
            return 1;
        }
        return 0;
    }

    private long positive(long n) {
        if (n < 1) {
            throw new IllegalArgumentException("--max-ids-per-partition must be at least 1");
        }
        return n;
    }
}
