package dev.deja.kafka;

import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorSupplier;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;

/**
 * The operator in the DSL when nothing goes to a topic of its own (duplicates dropped, records without an id passed
 * or dropped): forwards first copies as they came and drops the rest, one processor node where routing would take
 * three. Its supplier brings the store through {@link FixedKeyProcessorSupplier#stores()}.
 */
final class FirstCopiesProcessor<K, V> implements FixedKeyProcessor<K, V, V> {

    private final Settings config;
    private final IdExtractor<K, V> ids;
    private FixedKeyProcessorContext<K, V> context;
    private Deduplicator<K, V> deduplicator;

    private FirstCopiesProcessor(Settings config, IdExtractor<K, V> ids) {
        this.config = config;
        this.ids = ids;
    }

    /**
     * The supplier of these processors, with the store they share.
     *
     * @throws IllegalArgumentException if duplicates or records without an id go to a topic
     */
    static <K, V> FixedKeyProcessorSupplier<K, V, V> supplier(Settings config, IdExtractor<K, V> ids) {
        if (config.routesToTopics()) {
            throw new IllegalArgumentException("records routed to topics need DedupValuesProcessor");
        }
        return config.fixedKeyProcessors(() -> new FirstCopiesProcessor<>(config, ids));
    }

    @Override
    public void init(FixedKeyProcessorContext<K, V> context) {
        this.context = context;
        this.deduplicator = new Deduplicator<>(config, ids, context);
    }

    @Override
    public void process(FixedKeyRecord<K, V> record) {
        if (deduplicator.judge(record.key(), record.value(), record.timestamp(), record.headers()) == Outcome.UNIQUE) {
            context.forward(record);
        }
    }

    @Override
    public void close() {
        if (deduplicator != null) {
            deduplicator.close();
        }
    }
}
