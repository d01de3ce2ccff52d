package dev.deja.kafka.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.kafka.Dedup;
import dev.deja.kafka.testing.SharedBroker;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * The worker as a separate process, killed with SIGKILL at a random moment after each start while messages (5%
 * copies, some far apart) are produced, and started again each time. Then a read_committed consumer checks the output:
 * exactly-once, every unique id exactly once; at-least-once, none missing. System properties {@code chaos.messages} and
 * {@code chaos.kills} scale it up (deja-kafka/scripts/chaos.sh runs 1,000,000 messages and 5 kills).
 */
@Execution(ExecutionMode.CONCURRENT) // the two guarantees, on their own topics, at once: the suite waits half as long
class ChaosTest {

    private static final int MESSAGES = Integer.getInteger("chaos.messages", 10_000);
    private static final int KILLS = Integer.getInteger("chaos.kills", 3);
    private static final long SEED = Long.getLong("chaos.seed", 37);
    /**
     * New ids the exact store holds in memory per partition: a tenth of a partition's share of the messages (three
     * partitions), so that batches of ids are written to disk between the kills as well as held in memory across them.
     */
    private static final int IDS_IN_MEMORY = Math.max(Dedup.MIN_IDS_IN_MEMORY_PER_PARTITION, MESSAGES / 30);

    @TempDir
    Path dir;

    @Test
    void exactlyOnceSurvivesKillsWithEveryIdOnce() throws Exception {
        Map<String, Integer> out = run(Guarantee.EXACTLY_ONCE, "eos");
        assertThat(out)
                .allSatisfy(
                        (id, copies) -> assertThat(copies).as("copies of " + id).isEqualTo(1));
    }

    @Test
    void atLeastOnceSurvivesKillsWithNoIdMissing() throws Exception {
        run(Guarantee.AT_LEAST_ONCE, "alos");
    }

    /** Runs the chaos, checks that no unique id is missing, and returns how often each came out. */
    private Map<String, Integer> run(Guarantee guarantee, String name) throws Exception {
        String input = name + "-in";
        String output = name + "-out";
        SharedBroker.createTopics(3, input, output);
        List<DemoStream.Message> messages = DemoStream.generate(MESSAGES, 0.05, SEED);
        Set<String> unique = new HashSet<>();
        messages.forEach(m -> unique.add(m.id()));
        AtomicReference<Exception> producerFailure = new AtomicReference<>();
        Thread producer = new Thread(() -> produce(input, messages, producerFailure), "chaos-producer");
        producer.start();
        Random random = new Random(SEED);
        List<String> command = command(guarantee, name, input, output);
        Process worker = start(command, 0);
        for (int kill = 1; kill <= KILLS; kill++) {
            awaitStarted(kill - 1);
            Thread.sleep(500 + random.nextInt(2_500)); // a random moment of its start-up or its processing
            worker.destroyForcibly().waitFor(); // SIGKILL: no shutdown hook, no commit
            worker = start(command, kill);
        }
        producer.join();
        assertThat(producerFailure.get()).isNull();
        try {
            Map<String, Integer> counts = readCommitted(output, unique.size());
            Set<String> missing = new HashSet<>(unique);
            missing.removeAll(counts.keySet()); // a set difference: a million ids are too many for containsAll
            Process last = worker;
            assertThat(missing)
                    .as(() -> "ids missing from the output (" + missing.size() + "); "
                            + diagnosis(name, input, last, KILLS))
                    .isEmpty();
            assertThat(counts).as("ids out").hasSize(unique.size());
            return counts;
        } finally {
            worker.destroy(); // SIGTERM: the worker closes the application and exits
            assertThat(worker.waitFor(60, TimeUnit.SECONDS))
                    .as("stopped by SIGTERM")
                    .isTrue();
        }
    }

    private List<String> command(Guarantee guarantee, String name, String input, String output) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        return List.of(
                java,
                "-Xmx256m",
                "--enable-native-access=ALL-UNNAMED",
                "--sun-misc-unsafe-memory-access=allow",
                "-cp",
                System.getProperty("java.class.path"),
                KafkaMain.class.getName(),
                "run",
                "--bootstrap",
                SharedBroker.bootstrapServers(),
                "--input",
                input,
                "--output",
                output,
                "--id",
                "json:messageId",
                "--input-keyed-by-id",
                "--guarantee",
                guarantee.toString(),
                "--application-id",
                "chaos-" + name,
                "--data-dir",
                dir.resolve(name).toString(),
                "--replication-factor",
                "1",
                "--standby-replicas",
                "0",
                "--ids-in-memory-per-partition",
                Integer.toString(IDS_IN_MEMORY),
                "--http-port",
                "-1");
    }

    private Process start(List<String> command, int run) throws IOException {
        File log = dir.resolve("worker-" + run + ".log").toFile();
        return new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log)
                .start();
    }

    /** Waits until the worker of run {@code run} says it is running: its application has started. */
    private void awaitStarted(int run) throws IOException, InterruptedException {
        Path log = dir.resolve("worker-" + run + ".log");
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (!Files.readString(log).contains("deja kafka: de-duplicating")) {
            assertThat(System.nanoTime()).as("worker " + run + " started").isLessThan(deadline);
            Thread.sleep(100);
        }
    }

    /**
     * Produces the messages keyed by id in 20 slices over several seconds, so that the kills land while records flow.
     */
    private static void produce(String topic, List<DemoStream.Message> messages, AtomicReference<Exception> failure) {
        Map<String, Object> props = Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                SharedBroker.bootstrapServers(),
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                true);
        int slice = Math.max(1, messages.size() / 20);
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            List<Future<RecordMetadata>> acks = new ArrayList<>();
            for (int i = 0; i < messages.size(); i++) {
                DemoStream.Message m = messages.get(i);
                acks.add(producer.send(new ProducerRecord<>(topic, bytes(m.id()), bytes(m.value()))));
                if ((i + 1) % slice == 0 || i == messages.size() - 1) {
                    for (Future<RecordMetadata> ack : acks) {
                        ack.get(); // every message is in the input: the check below expects them all
                    }
                    acks.clear();
                    Thread.sleep(300);
                }
            }
        } catch (Exception e) {
            failure.set(e);
        }
    }

    /** Reads the output read_committed until every expected id came and a few polls bring nothing more. */
    private static Map<String, Integer> readCommitted(String topic, int expected) {
        Map<String, Integer> counts = new HashMap<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(
                Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        SharedBroker.bootstrapServers(),
                        ConsumerConfig.GROUP_ID_CONFIG,
                        topic + "-checker",
                        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                        "earliest",
                        ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                        "read_committed"),
                new StringDeserializer(),
                new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            // a worker killed while its group rebalances can hold the rebalance for the group's rebalance timeout,
            // Kafka Streams' max.poll.interval.ms (five minutes), before the live worker gets its partitions: six
            // minutes, and a millisecond per message for the large runs of scripts/chaos.sh
            long deadline = System.nanoTime()
                    + Duration.ofMinutes(6).plusMillis(MESSAGES).toNanos();
            int quiet = 0;
            while (System.nanoTime() < deadline && (counts.size() < expected || quiet < 8)) {
                var records = consumer.poll(Duration.ofMillis(250));
                quiet = records.isEmpty() ? quiet + 1 : 0;
                for (ConsumerRecord<String, String> r : records) {
                    counts.merge(r.key(), 1, Integer::sum);
                }
            }
        }
        return counts;
    }

    /**
     * What a failure needs to be read: whether the last worker still runs, how far the application's committed input
     * offsets are from the input's end (short of it, the worker stalled; at it, ids were dropped), and the end of
     * each worker's log.
     */
    private String diagnosis(String name, String input, Process last, int runs) {
        StringBuilder out = new StringBuilder("last worker alive: " + last.isAlive());
        try (Admin admin =
                Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, SharedBroker.bootstrapServers()))) {
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets("chaos-" + name)
                    .partitionsToOffsetAndMetadata()
                    .get(30, TimeUnit.SECONDS);
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            committed.keySet().stream()
                    .filter(tp -> tp.topic().equals(input))
                    .forEach(tp -> latest.put(tp, OffsetSpec.latest()));
            var ends = admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS);
            latest.keySet()
                    .forEach(tp -> out.append("; ")
                            .append(tp)
                            .append(" committed ")
                            .append(committed.get(tp).offset())
                            .append(" of ")
                            .append(ends.get(tp).offset()));
        } catch (Exception e) {
            out.append("; input offsets not read: ").append(e);
        }
        for (int run = 0; run <= runs; run++) {
            try {
                List<String> lines = Files.readAllLines(dir.resolve("worker-" + run + ".log"));
                out.append("\n--- worker-")
                        .append(run)
                        .append(".log, last lines:\n")
                        .append(String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size())));
            } catch (IOException e) {
                out.append("\n--- worker-")
                        .append(run)
                        .append(".log not read: ")
                        .append(e);
            }
        }
        return out.toString();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
