package dev.deja.kafka;

import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorSupplier;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;

/**
 * The operator in the DSL: forwards every record it does not drop with its {@link Outcome}, for {@link Dedup#apply}
 * to route. Its supplier brings the store through {@link FixedKeyProcessorSupplier#stores()}.
 */
final class DedupValuesProcessor<K, V> implements FixedKeyProcessor<K, V, Judged<V>> {

    private final Settings config;
    private final IdExtractor<K, V> ids;
    private FixedKeyProcessorContext<K, Judged<V>> context;
    private Deduplicator<K, V> deduplicator;

    DedupValuesProcessor(Settings config, IdExtractor<K, V> ids) {
        this.config = config;
        this.ids = ids;
    }

    /** The supplier of these processors, with the store they share. */
    static <K, V> FixedKeyProcessorSupplier<K, V, Judged<V>> supplier(Settings config, IdExtractor<K, V> ids) {
        return config.fixedKeyProcessors(() -> new DedupValuesProcessor<>(config, ids));
    }

    @Override
    public void init(FixedKeyProcessorContext<K, Judged<V>> context) {
        this.context = context;
        this.deduplicator = new Deduplicator<>(config, ids, context);
    }

    @Override
    public void process(FixedKeyRecord<K, V> record) {
        Outcome outcome = deduplicator.judge(record.key(), record.value(), record.timestamp(), record.headers());
        FixedKeyRecord<K, V> out = outcome == Outcome.DUPLICATE
                ? record.withHeaders(deduplicator.duplicateHeaders(record.headers()))
                : record;
        if (outcome != Outcome.DROPPED) {
            context.forward(out.withValue(new Judged<>(outcome, record.value())));
        }
    }

    @Override
    public void close() {
        if (deduplicator != null) {
            deduplicator.close();
        }
    }
}
