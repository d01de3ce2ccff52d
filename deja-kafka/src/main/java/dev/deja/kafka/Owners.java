package dev.deja.kafka;

import dev.deja.seen.SeenSet;

/**
 * The owner stored with an id: the input partition and offset of the record that first carried it, packed in 64 bits
 * so that a record read again after a crash is recognised as the same delivery ({@code RETRY}), not as a duplicate.
 * The partition plus one takes the top 16 bits, so no owner is {@link SeenSet#NO_OWNER}; the offset the low 48.
 */
final class Owners {

    private static final int OFFSET_BITS = 48;
    private static final long OFFSET_MASK = (1L << OFFSET_BITS) - 1;
    private static final int MAX_PARTITION = (1 << 16) - 2;

    private Owners() {}

    /** The owner of the record at {@code offset} of {@code partition}. */
    static long of(int partition, long offset) {
        if (partition < 0 || partition > MAX_PARTITION || offset < 0 || offset > OFFSET_MASK) {
            throw new IllegalArgumentException("partition " + partition + " and offset " + offset
                    + " do not fit an owner (partition <= " + MAX_PARTITION + ", offset < 2^48)");
        }
        return ((long) (partition + 1) << OFFSET_BITS) | offset;
    }

    /** The partition of an owner made by {@link #of}. */
    static int partition(long owner) {
        return (int) (owner >>> OFFSET_BITS) - 1;
    }

    /** The offset of an owner made by {@link #of}. */
    static long offset(long owner) {
        return owner & OFFSET_MASK;
    }
}
