package dev.deja.kafka.worker;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The worker against a real broker, at-least-once: its output, /health, and its metrics on /metrics. */
class WorkerTest {

    @TempDir
    Path dataDir;

    @Test
    void theWorkerDeduplicatesAndServesHealthAndMetrics() throws Exception {
        SharedBroker.createTopics(2, "w-in", "w-out");
        int ids = 300;
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, SharedBroker.bootstrapServers(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class))) {
            for (int i = 0; i < ids; i++) {
                for (int copy = 0; copy < (i % 3 == 0 ? 2 : 1); copy++) {
                    producer.send(new ProducerRecord<>("w-in", "h" + i, "body " + i))
                            .get();
                }
            }
        }
        WorkerSettings settings = new WorkerSettings(
                SharedBroker.bootstrapServers(),
                "w-in",
                "w-out",
                IdSource.key(),
                /* inputKeyedById= */ true,
                Duration.ofHours(1),
                WindowClock.RECORD_TIME,
                StoreKind.WINDOW,
                Long.MAX_VALUE,
                null,
                null,
                null,
                Guarantee.AT_LEAST_ONCE,
                "worker-test",
                dataDir,
                1,
                1,
                0,
                Duration.ofSeconds(10),
                InetAddress.getLoopbackAddress(),
                0,
                /* passThrough= */ false,
                // a Kafka setting the worker has no option for, passed on to Kafka Streams
                ClientProperties.read(null, Map.of("client.id", "deja-worker-test")));
        Worker worker = Worker.start(settings);
        try {
            List<String> keys = read("w-out", ids);
            assertThat(keys).hasSize(ids).doesNotHaveDuplicates();
            assertThat(worker.threads())
                    .isNotEmpty()
                    .allSatisfy(thread -> assertThat(thread.consumerClientId()).startsWith("deja-worker-test-"));
            HttpClient http = HttpClient.newHttpClient();
            String base = "http://127.0.0.1:" + worker.httpPort();
            HttpResponse<String> health = get(http, base + "/health");
            assertThat(health.statusCode()).isEqualTo(200);
            assertThat(health.body()).contains("RUNNING");
            String metrics = get(http, base + "/metrics").body();
            assertThat(metrics).contains("duplicates_total").contains("effective_window_ms");
            assertThat(metrics).contains("kafka_stream"); // Kafka Streams' own, through the binder
        } finally {
            worker.close();
        }
    }

    private static HttpResponse<String> get(HttpClient http, String uri) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(uri)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static List<String> read(String topic, int expected) {
        List<String> keys = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(
                Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, SharedBroker.bootstrapServers(),
                        ConsumerConfig.GROUP_ID_CONFIG, "worker-test-reader",
                        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"),
                new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            int quiet = 0;
            while (System.nanoTime() < deadline && (seen.size() < expected || quiet < 4)) {
                var records = consumer.poll(Duration.ofMillis(250));
                quiet = records.isEmpty() ? quiet + 1 : 0;
                for (ConsumerRecord<byte[], byte[]> r : records) {
                    String key = new String(r.key(), StandardCharsets.UTF_8);
                    keys.add(key);
                    seen.add(key);
                }
            }
        }
        return keys;
    }
}
