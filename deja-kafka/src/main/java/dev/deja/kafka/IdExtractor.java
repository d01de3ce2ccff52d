package dev.deja.kafka;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Serializer;

/** An {@link IdSource} bound to a stream's serializers: the id bytes of one record, or null when it has none. */
@FunctionalInterface
interface IdExtractor<K, V> {

    /** The id of the record, or null when it has none (absent, null or empty). */
    byte[] id(String topic, K key, V value, Headers headers);

    /** The extractor of {@code source} for records whose key and value the given serializers write. */
    static <K, V> IdExtractor<K, V> of(IdSource source, Serializer<K> keys, Serializer<V> values) {
        return switch (source.kind()) {
            case KEY -> (topic, key, value, headers) -> nonEmpty(key == null ? null : keys.serialize(topic, key));
            case HEADER -> {
                String name = source.argument();
                yield (topic, key, value, headers) -> {
                    Header header = headers.lastHeader(name);
                    return header == null ? null : nonEmpty(header.value());
                };
            }
            case JSON_FIELD -> {
                JsonField field = new JsonField(source.argument());
                yield (topic, key, value, headers) -> field.read(value == null ? null : values.serialize(topic, value));
            }
            case VALUE_HASH ->
                (topic, key, value, headers) -> nonEmpty(value == null ? null : values.serialize(topic, value));
        };
    }

    /** The bytes, or null when they are null or empty. */
    static byte[] nonEmpty(byte[] bytes) {
        return bytes == null || bytes.length == 0 ? null : bytes;
    }
}
