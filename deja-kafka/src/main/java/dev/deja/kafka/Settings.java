package dev.deja.kafka;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorSupplier;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/** What a {@link Dedup} step was built with, apart from its serdes: what its processors need. */
record Settings(
        IdSource idSource,
        boolean inputKeyedById,
        Duration window,
        WindowClock clock,
        long maxIdsPerPartition,
        int idsInMemoryPerPartition,
        Route duplicates,
        Route missingId,
        String storeName,
        StoreKind store) {

    /** The store the step keeps its ids in, with its changelog ({@link StoreKind}). */
    StoreBuilder<? extends StateStore> storeBuilder() {
        if (store == StoreKind.EXACT) {
            return new ExactStateStoreBuilder(storeName, window, idsInMemoryPerPartition);
        }
        return Stores.windowStoreBuilder(
                        Stores.persistentWindowStore(storeName, window, window, /* retainDuplicates= */ false),
                        Serdes.Bytes(),
                        Serdes.ByteArray())
                .withLoggingEnabled(Map.of())
                .withCachingDisabled();
    }

    /** Suppliers of the step's Processor API processors, each bringing the step's store ({@link #storeBuilder()}). */
    <K, V> ProcessorSupplier<K, V, K, V> processors(Supplier<Processor<K, V, K, V>> processors) {
        return new ProcessorSupplier<>() {
            @Override
            public Processor<K, V, K, V> get() {
                return processors.get();
            }

            @Override
            public Set<StoreBuilder<?>> stores() {
                return Set.of(storeBuilder());
            }
        };
    }

    /** Suppliers of the step's DSL processors, each bringing the step's store ({@link #storeBuilder()}). */
    <K, V, R> FixedKeyProcessorSupplier<K, V, R> fixedKeyProcessors(Supplier<FixedKeyProcessor<K, V, R>> processors) {
        return new FixedKeyProcessorSupplier<>() {
            @Override
            public FixedKeyProcessor<K, V, R> get() {
                return processors.get();
            }

            @Override
            public Set<StoreBuilder<?>> stores() {
                return Set.of(storeBuilder());
            }
        };
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
