package dev.deja.kafka;

import java.nio.ByteBuffer;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * Before the repartition by id: keys each record by its id (empty when it has none), keeping its own key and its
 * input position (its owner) in headers for the operator and {@link RestoreKey} on the other side.
 */
final class KeyById<K, V> implements Processor<K, V, Bytes, V> {

    private static final Bytes NO_ID = Bytes.wrap(new byte[0]);

    private final IdExtractor<K, V> ids;
    private final Serializer<K> keys;
    private ProcessorContext<Bytes, V> context;

    KeyById(IdExtractor<K, V> ids, Serializer<K> keys) {
        this.ids = ids;
        this.keys = keys;
    }

    @Override
    public void init(ProcessorContext<Bytes, V> context) {
        this.context = context;
    }

    @Override
    public void process(Record<K, V> record) {
        String topic = context.recordMetadata().map(RecordMetadata::topic).orElse("");
        RecordHeaders headers = new RecordHeaders(record.headers().toArray());
        byte[] id = ids.id(topic, record.key(), record.value(), headers);
        if (record.key() != null) {
            headers.add(DedupHeaders.ORIGINAL_KEY, keys.serialize(topic, record.key()));
        }
        context.recordMetadata()
                .filter(m -> m.offset() >= 0)
                .ifPresent(m -> headers.add(
                        DedupHeaders.SOURCE,
                        ByteBuffer.allocate(Long.BYTES)
                                .putLong(Owners.of(m.partition(), m.offset()))
                                .array()));
        context.forward(record.withKey(id == null ? NO_ID : Bytes.wrap(id)).withHeaders(headers));
    }
}
