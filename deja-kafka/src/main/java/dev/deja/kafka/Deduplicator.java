package dev.deja.kafka;

import dev.deja.seen.SeenSet;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.ProcessingContext;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * The operator's work on one task, shared by its DSL and Processor API forms: finds a record's id, asks the task's
 * {@link SeenIds}, counts, marks duplicates with the headers naming the first copy, and says where the record goes.
 */
final class Deduplicator<K, V> {

    private final Settings config;
    private final IdExtractor<K, V> ids;
    private final ProcessingContext context;
    private final SeenIds seen;
    private final DedupMetrics metrics;
    /** What the last record judged a duplicate found: its first copy's owner and time. */
    private SeenIds.Seen lastDuplicate;

    Deduplicator(Settings config, IdExtractor<K, V> ids, ProcessingContext context) {
        this.config = config;
        this.ids = ids;
        this.context = context;
        this.seen = SeenIds.in(context.getStateStore(config.storeName()), config);
        this.metrics = new DedupMetrics(context.metrics(), context.taskId(), config.storeName());
    }

    /**
     * Judges one record, leaving its headers as they are: a duplicate that goes on takes {@link #duplicateHeaders}
     * instead, so that a record going on unchanged costs no copy.
     */
    Outcome judge(K key, V value, long timestamp, Headers headers) {
        RecordMetadata metadata = context.recordMetadata().orElse(null);
        String topic = metadata == null ? "" : metadata.topic();
        byte[] id = ids.id(topic, key, value, headers);
        if (id == null) {
            metrics.missingId();
            return switch (config.missingId().kind()) {
                case PASS -> Outcome.UNIQUE;
                case DROP -> Outcome.DROPPED;
                case TOPIC -> Outcome.MISSING_ID;
            };
        }
        long now = config.clock() == WindowClock.WALL_CLOCK ? context.currentSystemTimeMs() : timestamp;
        SeenIds.Seen found = seen.checkThenAdd(id, owner(metadata, headers), now);
        // the present, on the window's own clock: stream time for record times (this record may be late)
        long present = config.clock() == WindowClock.WALL_CLOCK ? now : Math.max(now, context.currentStreamTimeMs());
        metrics.held(seen.effectiveWindowMs(present), seen.idsHeld());
        switch (found.verdict()) {
            case NEW -> metrics.unique();
            case RETRY -> metrics.retry();
            case DUPLICATE -> {
                metrics.duplicate();
                if (config.duplicates().kind() == Route.Kind.DROP) {
                    return Outcome.DROPPED;
                }
                lastDuplicate = found;
                return Outcome.DUPLICATE;
            }
        }
        return Outcome.UNIQUE;
    }

    void close() {
        metrics.close();
    }

    /**
     * The record's owner: its input partition and offset, carried in a header across the repartition topic when the
     * operator repartitions by id (a re-read record is then re-sent to the repartition topic at a new offset), or
     * none for a record that has no input position (one forwarded by a punctuation).
     */
    private static long owner(RecordMetadata metadata, Headers headers) {
        Header source = headers.lastHeader(DedupHeaders.SOURCE);
        if (source != null && source.value().length == Long.BYTES) {
            return java.nio.ByteBuffer.wrap(source.value()).getLong();
        }
        return metadata == null || metadata.offset() < 0
                ? SeenSet.NO_OWNER
                : Owners.of(metadata.partition(), metadata.offset());
    }

    /**
     * The headers of the record {@link #judge} has just found a duplicate: a copy of its own, since the input record
     * may go on to other processors, which must not see ours, with the headers naming the first copy added.
     */
    Headers duplicateHeaders(Headers headers) {
        SeenIds.Seen found = lastDuplicate;
        if (found == null) {
            throw new IllegalStateException("no record has been judged a duplicate");
        }
        Headers copy = new RecordHeaders(headers.toArray());
        if (found.firstOwner() != SeenSet.NO_OWNER) {
            copy.add(DedupHeaders.FIRST_PARTITION, ascii(Owners.partition(found.firstOwner())));
            copy.add(DedupHeaders.FIRST_OFFSET, ascii(Owners.offset(found.firstOwner())));
        }
        copy.add(DedupHeaders.FIRST_TIMESTAMP, ascii(found.firstTime()));
        return copy;
    }

    private static byte[] ascii(long n) {
        return Long.toString(n).getBytes(StandardCharsets.US_ASCII);
    }
}
