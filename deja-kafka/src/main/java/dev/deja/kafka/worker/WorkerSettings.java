package dev.deja.kafka.worker;

import dev.deja.kafka.Dedup;
import dev.deja.kafka.IdSource;
import dev.deja.kafka.StoreKind;
import dev.deja.kafka.WindowClock;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Everything {@code deja kafka run} was told, checked: the worker is built from this, and nothing connects before
 * it exists.
 *
 * @param duplicatesTopic the topic duplicates go to, or null to drop them
 * @param missingIdTopic the topic records without an id go to, or null to pass them on
 * @param maxIdsPerPartition the cap, or {@link dev.deja.kafka.Dedup#NO_CAP}
 * @param idsInMemoryPerPartition the new ids the exact store holds in memory per task, or null for {@link
 *     Dedup#DEFAULT_IDS_IN_MEMORY_PER_PARTITION}
 * @param threads the Kafka Streams stream threads, each running some of the worker's tasks (one per input
 *     partition); {@link #defaultThreads} unless told
 * @param httpPort the port of /metrics and /health, 0 for any free one, -1 for none
 * @param passThrough copy the input to the output without the step (the benchmark's anchor)
 * @param kafka more Kafka settings, passed on to Kafka Streams and its clients as they are
 */
record WorkerSettings(
        String bootstrap,
        String input,
        String output,
        IdSource id,
        boolean inputKeyedById,
        Duration window,
        WindowClock clock,
        StoreKind store,
        long maxIdsPerPartition,
        Integer idsInMemoryPerPartition,
        String duplicatesTopic,
        String missingIdTopic,
        Guarantee guarantee,
        String applicationId,
        Path dataDir,
        int threads,
        int replicationFactor,
        int standbyReplicas,
        Duration connectTimeout,
        InetAddress httpBind,
        int httpPort,
        boolean passThrough,
        ClientProperties kafka) {

    WorkerSettings {
        requireTopic("--input", input);
        requireTopic("--output", output);
        if (input.equals(output)) {
            throw new IllegalArgumentException("--input and --output must be different topics");
        }
        if (duplicatesTopic != null) {
            requireTopic("--duplicates", duplicatesTopic);
        }
        if (missingIdTopic != null) {
            requireTopic("--missing-id", missingIdTopic);
        }
        if (applicationId == null || !applicationId.matches("[a-zA-Z0-9._-]+")) {
            throw new IllegalArgumentException(
                    "--application-id is letters, digits, '.', '_' and '-', not '" + applicationId + "'");
        }
        if (bootstrap == null || bootstrap.isBlank()) {
            throw new IllegalArgumentException("--bootstrap is required: HOST:PORT of one or more brokers");
        }
        if (store == StoreKind.EXACT && maxIdsPerPartition != Dedup.NO_CAP) {
            throw new IllegalArgumentException("--max-ids-per-partition applies to --store WINDOW only");
        }
        if (idsInMemoryPerPartition != null) {
            if (store != StoreKind.EXACT) {
                throw new IllegalArgumentException("--ids-in-memory-per-partition applies to --store EXACT only");
            }
            if (idsInMemoryPerPartition < Dedup.MIN_IDS_IN_MEMORY_PER_PARTITION
                    || idsInMemoryPerPartition > Dedup.MAX_IDS_IN_MEMORY_PER_PARTITION) {
                throw new IllegalArgumentException("--ids-in-memory-per-partition must be in ["
                        + Dedup.MIN_IDS_IN_MEMORY_PER_PARTITION + ", " + Dedup.MAX_IDS_IN_MEMORY_PER_PARTITION
                        + "], not " + idsInMemoryPerPartition);
            }
        }
        if (store == StoreKind.EXACT && window.toMillis() < 1000) {
            throw new IllegalArgumentException("--store EXACT holds a window of at least 1s, not " + window);
        }
        if (threads < 1) {
            throw new IllegalArgumentException("--threads must be at least 1");
        }
        if (replicationFactor == 0 || replicationFactor < -1) {
            throw new IllegalArgumentException("--replication-factor is -1 (the broker's default) or at least 1");
        }
        if (standbyReplicas < 0) {
            throw new IllegalArgumentException("--standby-replicas must not be negative");
        }
        if (httpPort < -1 || httpPort > 65535) {
            throw new IllegalArgumentException("--http-port is a port, 0 for any free one, or -1 for none");
        }
    }

    /**
     * One stream thread per processor: a task's records go through one thread, so a single thread leaves the other
     * processors to the producer, the compiler and the state store's background work, and then idle; more threads than
     * processors only take turns.
     */
    static int defaultThreads() {
        return Runtime.getRuntime().availableProcessors();
    }

    private static void requireTopic(String option, String topic) {
        if (topic == null || !topic.matches("[a-zA-Z0-9._-]{1,249}")) {
            throw new IllegalArgumentException(
                    option + " is a topic name (letters, digits, '.', '_', '-'), not '" + topic + "'");
        }
    }
}
