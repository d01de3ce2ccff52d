package dev.deja.kafka;

import java.time.Duration;
import java.util.Map;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.WindowStore;

/** What a {@link Dedup} step was built with, apart from its serdes: what its processors need. */
record Settings(
        IdSource idSource,
        boolean inputKeyedById,
        Duration window,
        WindowClock clock,
        long maxIdsPerPartition,
        Route duplicates,
        Route missingId,
        String storeName) {

    /** The store the step keeps its ids in: a persistent window store with a changelog, retention the window. */
    StoreBuilder<WindowStore<Bytes, byte[]>> storeBuilder() {
        return Stores.windowStoreBuilder(
                        Stores.persistentWindowStore(storeName, window, window, /* retainDuplicates= */ false),
                        Serdes.Bytes(),
                        Serdes.ByteArray())
                .withLoggingEnabled(Map.of())
                .withCachingDisabled();
    }

    /** Whether some records go to a topic, so that the Processor API form forwards to named children. */
    boolean routesToTopics() {
        return duplicates.kind() == Route.Kind.TOPIC || missingId.kind() == Route.Kind.TOPIC;
    }

    String uniqueChild() {
        return storeName + "-unique";
    }

    String duplicatesChild() {
        return storeName + "-duplicates";
    }

    String missingIdChild() {
        return storeName + "-missing-id";
    }
}
