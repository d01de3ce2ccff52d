package dev.deja.kafka.worker;

import dev.deja.kafka.IdSource;
import dev.deja.kafka.StoreKind;
import dev.deja.kafka.WindowClock;
import dev.deja.kafka.testing.SharedBroker;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Future;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** What the worker tests against the shared broker have in common: settings, input, output and waiting. */
final class Workers {

    private static final Duration WAIT = Duration.ofSeconds(90);

    private Workers() {}

    /**
     * A worker over {@code input} (ids in the record keys) into {@code output}, the exact store, its HTTP endpoints on
     * a free loopback port.
     */
    static WorkerSettings settings(
            String input, String output, String applicationId, Guarantee guarantee, Path dataDir, int standbys) {
        return new WorkerSettings(
                SharedBroker.bootstrapServers(),
                input,
                output,
                IdSource.key(),
                /* inputKeyedById= */ true,
                Duration.ofHours(1),
                WindowClock.RECORD_TIME,
                StoreKind.EXACT,
                Long.MAX_VALUE,
                null,
                null,
                null,
                guarantee,
                applicationId,
                dataDir,
                1,
                1,
                standbys,
                Duration.ofSeconds(10),
                InetAddress.getLoopbackAddress(),
                0,
                /* passThrough= */ false,
                ClientProperties.NONE);
    }

    /** Sends each key as a record of its own, and waits until the broker has them all. */
    static void send(String topic, Collection<String> keys) throws Exception {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, SharedBroker.bootstrapServers(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class))) {
            List<Future<RecordMetadata>> acks = new ArrayList<>();
            for (String key : keys) {
                acks.add(producer.send(new ProducerRecord<>(topic, key, "body of " + key)));
            }
            for (Future<RecordMetadata> ack : acks) {
                ack.get();
            }
        }
    }

    /**
     * The keys of the topic's committed records, read from the beginning until at least {@code expected} have come
     * and a further second brings none (so that a copy too many would be seen), or until the wait runs out.
     */
    static List<String> readCommittedKeys(String topic, int expected) {
        List<String> keys = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(
                Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        SharedBroker.bootstrapServers(),
                        ConsumerConfig.GROUP_ID_CONFIG,
                        "reader-" + UUID.randomUUID(),
                        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                        "earliest",
                        ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                        "read_committed"),
                new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + WAIT.toNanos();
            int quiet = 0;
            while (System.nanoTime() < deadline && (keys.size() < expected || quiet < 4)) {
                var records = consumer.poll(Duration.ofMillis(250));
                quiet = records.isEmpty() ? quiet + 1 : 0;
                for (ConsumerRecord<byte[], byte[]> r : records) {
                    keys.add(new String(r.key(), StandardCharsets.UTF_8));
                }
            }
        }
        return keys;
    }

    /** Waits until the condition holds, or fails saying what was awaited. */
    static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("waited " + WAIT.toSeconds() + " s for " + what);
            }
            Thread.sleep(100);
        }
    }

    /** The worker's active tasks now. */
    static long activeTasks(Worker worker) {
        return worker.threads().stream().mapToLong(t -> t.activeTasks().size()).sum();
    }

    /** The worker's standby tasks now. */
    static long standbyTasks(Worker worker) {
        return worker.threads().stream().mapToLong(t -> t.standbyTasks().size()).sum();
    }

    /** GET {@code path} on the worker's HTTP endpoints. */
    static HttpResponse<String> get(Worker worker, String path) throws Exception {
        try (HttpClient http = HttpClient.newHttpClient()) {
            URI uri = URI.create("http://127.0.0.1:" + worker.httpPort() + path);
            return http.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
        }
    }

    /** {@code count} ids named {@code prefix} and a number. */
    static List<String> ids(String prefix, int count) {
        List<String> ids = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            ids.add(prefix + i);
        }
        return ids;
    }
}
