package dev.deja.recent;

/**
 * A fixed-length array of longs addressed by 64-bit indexes, stored as chunks of {@code 2^shift} longs.
 *
 * <p>Java arrays stop at 2^31 elements; a {@code recent} filter may have more buckets. Chunk sizes are powers of
 * two at least as large as the widest set (16 ways), so a set never straddles two chunks and a caller can work on
 * one chunk with plain {@code int} offsets ({@link #chunk}, {@link #offset}).
 */
final class LongChunks {

    /** Default chunk: 2^27 longs (1 GiB), far below the array limit, few enough chunks for any memory. */
    static final int DEFAULT_SHIFT = 27;

    private final long[][] chunks;
    private final int shift;
    private final long mask;
    private final long length;

    LongChunks(long length, int shift) {
        this.length = length;
        this.shift = shift;
        this.mask = (1L << shift) - 1;
        int count = (int) ((length + mask) >>> shift);
        chunks = new long[count][];
        for (int i = 0; i < count; i++) {
            long start = (long) i << shift;
            chunks[i] = new long[(int) Math.min(1L << shift, length - start)];
        }
    }

    /** Number of longs. */
    long length() {
        return length;
    }

    /** The chunk holding {@code index}. */
    long[] chunk(long index) {
        return chunks[(int) (index >>> shift)];
    }

    /** The position of {@code index} inside its chunk. */
    int offset(long index) {
        return (int) (index & mask);
    }
}
