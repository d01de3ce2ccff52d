package dev.deja.kafka;

import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.Record;

/**
 * The operator in the Processor API: forwards first copies to the child {@code <store>-unique}, duplicates to
 * {@code <store>-duplicates} and records without an id to {@code <store>-missing-id} when their routes are
 * topics; when neither is, first copies go to every child.
 */
final class DedupProcessor<K, V> implements Processor<K, V, K, V> {

    private final Settings config;
    private final IdExtractor<K, V> ids;
    private ProcessorContext<K, V> context;
    private Deduplicator<K, V> deduplicator;

    DedupProcessor(Settings config, IdExtractor<K, V> ids) {
        this.config = config;
        this.ids = ids;
    }

    /** The supplier of these processors, with the store they share. */
    static <K, V> ProcessorSupplier<K, V, K, V> supplier(Settings config, IdExtractor<K, V> ids) {
        return config.processors(() -> new DedupProcessor<>(config, ids));
    }

    @Override
    public void init(ProcessorContext<K, V> context) {
        this.context = context;
        this.deduplicator = new Deduplicator<>(config, ids, context);
    }

    @Override
    public void process(Record<K, V> record) {
        switch (deduplicator.judge(record.key(), record.value(), record.timestamp(), record.headers())) {
            case UNIQUE -> {
                if (config.routesToTopics()) {
                    context.forward(record, config.uniqueChild());
                } else {
                    context.forward(record);
                }
            }
            case DUPLICATE ->
                context.forward(
                        record.withHeaders(deduplicator.duplicateHeaders(record.headers())), config.duplicatesChild());
            case MISSING_ID -> context.forward(record, config.missingIdChild());
            case DROPPED -> {}
        }
    }

    @Override
    public void close() {
        if (deduplicator != null) {
            deduplicator.close();
        }
    }
}
