package dev.deja.kafka.worker;

import ch.qos.logback.classic.Level;
import dev.deja.kafka.Dedup;
import dev.deja.kafka.IdSource;
import dev.deja.kafka.WindowClock;
import dev.deja.kafka.broker.EmbeddedBroker;
import dev.deja.kafka.broker.Topics;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code deja kafka demo}: starts a broker in this process, produces a stream with a known share of duplicates, runs
 * the worker over it exactly-once, reads the output with {@code read_committed}, says what came out, and deletes
 * everything it made.
 */
@Command(
        name = "demo",
        mixinStandardHelpOptions = true,
        description = "Runs the worker on a broker started in this process (nothing to install) and shows what it"
                + " removed.")
final class DemoCommand implements Callable<Integer> {

    private static final String INPUT = "demo-events";
    private static final String OUTPUT = "demo-events-unique";
    private static final Duration QUIET_LIMIT = Duration.ofSeconds(60);

    @Spec
    CommandSpec spec;

    @Option(
            names = "--messages",
            defaultValue = "200000",
            description = "Messages produced. Default: ${DEFAULT-VALUE}.")
    int messages;

    @Option(
            names = "--duplicates",
            defaultValue = "0.05",
            description = "Share of the messages that are copies of earlier ones. Default: ${DEFAULT-VALUE}.")
    double duplicateShare;

    @Option(names = "--partitions", defaultValue = "4", description = "Input partitions. Default: ${DEFAULT-VALUE}.")
    int partitions;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        quietKafkaLogs();
        Path data = Files.createTempDirectory("deja-kafka-demo");
        out.println("starting a Kafka broker in this process (KRaft, 127.0.0.1, data in a temporary directory)");
        out.flush();
        try (EmbeddedBroker broker = EmbeddedBroker.start()) {
            try (Admin admin =
                    Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
                Topics.create(admin, partitions, INPUT, OUTPUT);
            }
            List<DemoStream.Message> stream = DemoStream.generate(messages, duplicateShare, /* seed= */ 2026);
            Set<String> uniqueIn = new HashSet<>();
            stream.forEach(m -> uniqueIn.add(m.id()));
            long producing = System.nanoTime();
            produce(broker.bootstrapServers(), stream);
            out.printf(
                    "produced %,d messages to %s: %,d unique ids, %,d duplicates (%.1f s)%n",
                    stream.size(), INPUT, uniqueIn.size(), stream.size() - uniqueIn.size(), seconds(producing));
            out.println("running: deja kafka run --input " + INPUT + " --output " + OUTPUT
                    + " --id json:messageId --input-keyed-by-id --window 24h --guarantee exactly-once");
            out.flush();
            long start = System.nanoTime();
            Set<String> uniqueOut = new HashSet<>();
            long outRecords;
            Worker worker = Worker.start(settings(broker.bootstrapServers(), data));
            try {
                outRecords = readOutput(broker.bootstrapServers(), uniqueIn.size(), uniqueOut);
            } finally {
                worker.close();
            }
            double elapsed = seconds(start);
            out.printf("unique in:  %,d%n", uniqueIn.size());
            out.printf(
                    "unique out: %,d (%,d records: %s)%n",
                    uniqueOut.size(),
                    outRecords,
                    outRecords == uniqueOut.size() ? "each id once" : "SOME IDS MORE THAN ONCE");
            out.printf("duplicates removed: %,d of %,d%n", stream.size() - outRecords, stream.size() - uniqueIn.size());
            out.printf(
                    "throughput: %,.0f input records/s (%,d in %.1f s, from the worker's start, its start-up"
                            + " included)%n",
                    stream.size() / elapsed, stream.size(), elapsed);
            out.flush();
            return uniqueOut.size() == uniqueIn.size() && outRecords == uniqueIn.size() ? 0 : 1;
        } finally {
            delete(data);
            out.println("stopped the broker and deleted its data");
            out.flush();
        }
    }

    /** The broker's and the clients' warnings are about the demo's own set-up (one broker, a temp dir): not shown. */
    private static void quietKafkaLogs() {
        for (String name : new String[] {"org.apache.kafka", "kafka", "state.change.logger"}) {
            ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger(name)).setLevel(Level.ERROR);
        }
    }

    private static WorkerSettings settings(String bootstrap, Path data) {
        return new WorkerSettings(
                bootstrap,
                INPUT,
                OUTPUT,
                IdSource.jsonField("messageId"),
                /* inputKeyedById= */ true,
                Duration.ofHours(24),
                WindowClock.RECORD_TIME,
                Dedup.DEFAULT_STORE,
                Long.MAX_VALUE,
                null,
                null,
                null,
                Guarantee.EXACTLY_ONCE,
                "deja-demo",
                data,
                WorkerSettings.defaultThreads(),
                1,
                0,
                Duration.ofSeconds(30),
                InetAddress.getLoopbackAddress(),
                -1,
                /* passThrough= */ false,
                ClientProperties.NONE);
    }

    private static void produce(String bootstrap, List<DemoStream.Message> stream) {
        Map<String, Object> props = Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap,
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                true,
                ProducerConfig.LINGER_MS_CONFIG,
                5,
                ProducerConfig.BATCH_SIZE_CONFIG,
                256 * 1024);
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            AtomicReference<Exception> failed = new AtomicReference<>();
            for (DemoStream.Message m : stream) {
                // the callback keeps the first failure; the future is not needed, since flush waits for all
                var unused = producer.send(new ProducerRecord<>(INPUT, utf8(m.id()), utf8(m.value())), (meta, e) -> {
                    if (e != null) {
                        failed.compareAndSet(null, e);
                    }
                });
            }
            producer.flush();
            if (failed.get() != null) {
                throw new IllegalStateException("a demo message was not written", failed.get());
            }
        }
    }

    /** Reads the output, read_committed, until every unique id came or nothing came for a minute; the record count. */
    private static long readOutput(String bootstrap, int expected, Set<String> ids) {
        Map<String, Object> props = Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.GROUP_ID_CONFIG, "deja-demo-reader",
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        long records = 0;
        long lastProgress = System.nanoTime();
        try (KafkaConsumer<byte[], byte[]> consumer =
                        new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
                ProgressBar bar = new ProgressBarBuilder()
                        .setTaskName("unique out")
                        .setInitialMax(expected)
                        .setUnit(" ids", 1)
                        .showSpeed()
                        .build()) {
            consumer.subscribe(List.of(OUTPUT));
            while (ids.size() < expected && System.nanoTime() - lastProgress < QUIET_LIMIT.toNanos()) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    records++;
                    ids.add(new String(r.key(), StandardCharsets.UTF_8));
                    lastProgress = System.nanoTime();
                }
                bar.stepTo(ids.size());
            }
            // a further moment, so that a copy arriving after the last new id would be counted
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofSeconds(1))) {
                records++;
                ids.add(new String(r.key(), StandardCharsets.UTF_8));
            }
        }
        return records;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static double seconds(long sinceNanos) {
        return (System.nanoTime() - sinceNanos) / 1e9;
    }

    private static void delete(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + dir, e);
        }
    }
}
