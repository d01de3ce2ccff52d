package dev.deja.kafka.worker;

import dev.deja.kafka.Dedup;
import dev.deja.kafka.Route;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Produced;

/** The worker's Kafka Streams application: its topology over raw bytes, and its configuration. */
final class WorkerTopology {

    private WorkerTopology() {}

    /** Input to output through the de-dup step (or straight through, for the benchmark's pass-through copy). */
    static Topology build(WorkerSettings s) {
        StreamsBuilder builder = new StreamsBuilder();
        KStream<byte[], byte[]> input =
                builder.stream(s.input(), Consumed.with(Serdes.ByteArray(), Serdes.ByteArray()));
        KStream<byte[], byte[]> output = s.passThrough() ? input : dedup(s).apply(input);
        output.to(s.output(), Produced.with(Serdes.ByteArray(), Serdes.ByteArray()));
        return builder.build();
    }

    static Dedup<byte[], byte[]> dedup(WorkerSettings s) {
        Dedup.Builder<byte[], byte[]> b = Dedup.builder(Serdes.ByteArray(), Serdes.ByteArray())
                .id(s.id())
                .inputKeyedById(s.inputKeyedById())
                .window(s.window())
                .clock(s.clock())
                .store(s.store())
                .duplicates(s.duplicatesTopic() == null ? Route.drop() : Route.toTopic(s.duplicatesTopic()))
                .missingId(s.missingIdTopic() == null ? Route.pass() : Route.toTopic(s.missingIdTopic()));
        if (s.maxIdsPerPartition() != Dedup.NO_CAP) {
            b.maxIdsPerPartition(s.maxIdsPerPartition());
        }
        if (s.idsInMemoryPerPartition() != null) {
            b.idsInMemoryPerPartition(s.idsInMemoryPerPartition());
        }
        return b.build();
    }

    /**
     * Kafka Streams' configuration: the guarantee, state under the data directory, replication and standbys, with the
     * Kafka settings given by {@code --kafka-config} and {@code --kafka} (none of them one of these).
     */
    static Properties properties(WorkerSettings s) {
        Properties p = new Properties();
        // A new application starts from the beginning of its input: nothing already in the topic is skipped.
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
        p.putAll(s.kafka().values());
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, s.applicationId());
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, s.bootstrap());
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, s.guarantee().streamsValue());
        p.put(StreamsConfig.STATE_DIR_CONFIG, s.dataDir().resolve("state").toString());
        p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, s.threads());
        p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, s.replicationFactor());
        p.put(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, s.standbyReplicas());
        return p;
    }
}
