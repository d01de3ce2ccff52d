package dev.deja.kafka;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/** After the operator on a stream repartitioned by id: gives each record back its own key, and drops our headers. */
final class RestoreKey<K, V> implements Processor<Bytes, V, K, V> {

    private final Deserializer<K> keys;
    private ProcessorContext<K, V> context;

    RestoreKey(Deserializer<K> keys) {
        this.keys = keys;
    }

    @Override
    public void init(ProcessorContext<K, V> context) {
        this.context = context;
    }

    @Override
    public void process(Record<Bytes, V> record) {
        String topic = context.recordMetadata().map(RecordMetadata::topic).orElse("");
        Header original = record.headers().lastHeader(DedupHeaders.ORIGINAL_KEY);
        K key = original == null ? null : keys.deserialize(topic, original.value());
        record.headers().remove(DedupHeaders.ORIGINAL_KEY).remove(DedupHeaders.SOURCE);
        context.forward(record.withKey(key));
    }
}
