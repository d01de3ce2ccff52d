package dev.deja.kafka;

import java.nio.ByteBuffer;

/**
 * The ids an {@link ExactStateStore} added since its last changelog record, and the format of that record's value:
 * a version byte ({@value #VERSION}), then per id its 16-byte hash, its 8-byte owner and the 8-byte time it was dated
 * at, big-endian. One record carries up to {@value #MAX_ENTRIES} ids, well under a producer's default request size.
 */
final class ChangelogBatch {

    /** The format's version byte. */
    static final byte VERSION = 1;
    /** Bytes per id in a record. */
    static final int ENTRY_BYTES = 32;
    /** Most ids per record. */
    static final int MAX_ENTRIES = 4096;

    /** Receives the ids of a record as it is read. */
    interface Entries {
        void entry(long high, long low, long owner, long time);
    }

    private final ByteBuffer buffer = ByteBuffer.allocate(1 + ENTRY_BYTES * MAX_ENTRIES);
    private long latest = Long.MIN_VALUE;

    ChangelogBatch() {
        buffer.put(VERSION);
    }

    void add(long high, long low, long owner, long time) {
        buffer.putLong(high).putLong(low).putLong(owner).putLong(time);
        latest = Math.max(latest, time);
    }

    boolean isEmpty() {
        return buffer.position() == 1;
    }

    boolean isFull() {
        return buffer.remaining() < ENTRY_BYTES;
    }

    /** The latest time of an id in the batch: the record's timestamp, which its retention counts from. */
    long latestTime() {
        return latest;
    }

    /** The record's value; the batch is empty afterwards. */
    byte[] drain() {
        byte[] value = new byte[buffer.position()];
        buffer.flip().get(value);
        buffer.clear().put(VERSION);
        latest = Long.MIN_VALUE;
        return value;
    }

    /** Reads a record's value; a value not in this format is refused whole, before any id is given. */
    static void read(byte[] value, Entries entries) {
        if (value == null || value.length < 1 || value[0] != VERSION || (value.length - 1) % ENTRY_BYTES != 0) {
            throw new IllegalStateException("a de-dup changelog record of " + (value == null ? 0 : value.length)
                    + " bytes is not a version-" + VERSION + " batch of " + ENTRY_BYTES + "-byte ids");
        }
        ByteBuffer in = ByteBuffer.wrap(value, 1, value.length - 1);
        while (in.hasRemaining()) {
            entries.entry(in.getLong(), in.getLong(), in.getLong(), in.getLong());
        }
    }
}
