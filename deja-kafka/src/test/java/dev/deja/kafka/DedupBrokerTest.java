package dev.deja.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.kafka.testing.SharedBroker;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The step in a real Kafka Streams application against a real broker, exactly-once v2: records keyed by user with
 * the id in their JSON value, so the step repartitions by id; every id comes out once, with its own key, and every
 * later copy goes to the duplicates topic.
 */
class DedupBrokerTest {

    @TempDir
    Path stateDir;

    @Test
    void exactlyOnceOutputHoldsEveryIdOnceAndDuplicatesGoAside() throws Exception {
        SharedBroker.createTopics(3, "events", "events-unique", "events-dups");
        int ids = 2_000;
        List<String> sent = new ArrayList<>();
        List<Future<RecordMetadata>> acks = new ArrayList<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerProps())) {
            for (int i = 0; i < ids; i++) {
                String value = "{\"messageId\":\"m" + i + "\",\"n\":" + i + "}";
                acks.add(producer.send(new ProducerRecord<>("events", "user-" + (i % 7), value)));
                sent.add(value);
                if (i % 10 == 0) { // a copy under another key, so it lands in another input partition
                    acks.add(producer.send(new ProducerRecord<>("events", "user-" + ((i + 3) % 7), value)));
                }
            }
        }
        for (Future<RecordMetadata> ack : acks) {
            ack.get(); // every record is in the input before the application starts
        }
        StreamsBuilder builder = new StreamsBuilder();
        Dedup.builder(Serdes.String(), Serdes.String())
                .id(IdSource.jsonField("messageId"))
                .window(Duration.ofHours(1))
                .duplicates(Route.toTopic("events-dups"))
                .build()
                .apply(builder.stream("events"))
                .to("events-unique");
        try (KafkaStreams streams = new KafkaStreams(builder.build(), streamsProps())) {
            streams.start();
            Map<String, Integer> unique = count(readCommitted("events-unique", ids));
            assertThat(unique)
                    .hasSize(ids)
                    .allSatisfy((value, copies) -> assertThat(copies).isEqualTo(1));
            assertThat(unique.keySet()).containsExactlyInAnyOrderElementsOf(sent);
            assertThat(readCommitted("events-dups", ids / 10)).hasSize(ids / 10);
        }
    }

    /**
     * What a task restores after a crash is the committed changelog, so every id of the committed output must be in
     * it: the exact store's unwritten ids go into the same transaction as the records that brought them, not into the
     * next one (which a crash would abort).
     */
    @Test
    void theCommittedChangelogHoldsEveryIdOfTheCommittedOutput() throws Exception {
        SharedBroker.createTopics(1, "held-in", "held-out");
        int ids = 500;
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerProps())) {
            for (int i = 0; i < ids; i++) {
                producer.send(new ProducerRecord<>("held-in", "id-" + i, "v" + i))
                        .get();
            }
        }
        StreamsBuilder builder = new StreamsBuilder();
        Dedup.builder(Serdes.String(), Serdes.String())
                .id(IdSource.key())
                .inputKeyedById(true)
                .window(Duration.ofHours(1))
                .build()
                .apply(builder.stream("held-in"))
                .to("held-out");
        Properties props = streamsProps();
        String changelog =
                props.get(StreamsConfig.APPLICATION_ID_CONFIG) + "-" + Dedup.DEFAULT_STORE_NAME + "-changelog";
        try (KafkaStreams streams = new KafkaStreams(builder.build(), props)) {
            streams.start();
            assertThat(readCommitted("held-out", ids)).hasSize(ids);
            // still running: nothing written at a close counts
            int[] logged = {0};
            for (byte[] batch : readCommittedBytes(changelog)) {
                ChangelogBatch.read(batch, (high, low, owner, time) -> logged[0]++);
            }
            assertThat(logged[0]).isEqualTo(ids);
        }
    }

    private Properties streamsProps() {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "dedup-broker-test-" + UUID.randomUUID());
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, SharedBroker.bootstrapServers());
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
        props.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        props.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
        return props;
    }

    private static Properties producerProps() {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, SharedBroker.bootstrapServers());
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        return props;
    }

    /** Reads the topic with read_committed until {@code expected} values arrived and a further second brings none. */
    private static List<String> readCommitted(String topic, int expected) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, SharedBroker.bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "reader-" + UUID.randomUUID());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
            int quietPolls = 0;
            while (System.nanoTime() < deadline && (values.size() < expected || quietPolls < 4)) {
                var records = consumer.poll(Duration.ofMillis(250));
                quietPolls = records.isEmpty() ? quietPolls + 1 : 0;
                for (ConsumerRecord<String, String> r : records) {
                    values.add(r.value());
                }
            }
        }
        return values;
    }

    /** The values of a topic's committed records, read until a second brings none. */
    private static List<byte[]> readCommittedBytes(String topic) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, SharedBroker.bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "reader-" + UUID.randomUUID());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        List<byte[]> values = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            consumer.subscribe(List.of(topic));
            int quietPolls = 0;
            while (quietPolls < 4) {
                var records = consumer.poll(Duration.ofMillis(250));
                quietPolls = records.isEmpty() ? quietPolls + 1 : 0;
                for (ConsumerRecord<byte[], byte[]> r : records) {
                    values.add(r.value());
                }
            }
        }
        return values;
    }

    private static Map<String, Integer> count(List<String> values) {
        Map<String, Integer> counts = new HashMap<>();
        values.forEach(v -> counts.merge(v, 1, Integer::sum));
        return counts;
    }
}
