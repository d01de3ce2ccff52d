package dev.deja.recent;

/**
 * A fixed-length array of longs addressed by 64-bit indexes, stored as chunks of {@code 2^shift} longs.
 *
 * <p>Java arrays stop at 2^31 elements; a {@code recent} filter may have more buckets. Chunk sizes are powers of
 * two at least as large as the widest set (16 ways), so a set never straddles two chunks and a caller can work on
 * one chunk with plain {@code int} offsets ({@link #chunk}, {@link #offset}).
 *
 * <p>An array made {@link #forFilling} starts without chunks, for a reader that fills it in index order from a
 * stream whose header only claims the length: {@link #chunkForFill} allocates each chunk when the filling reaches
 * it and grows it by doubling, so memory follows the values actually read (the arrays hold at most twice as many,
 * or 64 KiB) and a forged length cannot make the reader allocate what the stream does not hold.
 */
final class LongChunks {

    /**
     * Default chunk: 2^23 longs (64 MiB), far below the array limit and few enough chunks for any memory (16 per GiB).
     * Small, so that a reader filling chunks by doubling ({@link #forFilling}) holds at most about 96 MiB more than its
     * final arrays while a chunk grows: with 1 GiB chunks the last doubling of each would hold 1.5 GiB at once.
     */
    static final int DEFAULT_SHIFT = 23;
    /** The first allocation of a chunk being filled: 8192 longs (64 KiB), the reader's buffer. */
    private static final int FIRST_FILL = 1 << 13;

    private final long[][] chunks;
    private final int shift;
    private final long mask;
    private final long length;

    /** An all-zero array of {@code length} longs, every chunk allocated. */
    LongChunks(long length, int shift) {
        this(length, shift, true);
    }

    private LongChunks(long length, int shift, boolean allocate) {
        this.length = length;
        this.shift = shift;
        this.mask = (1L << shift) - 1;
        int count = (int) ((length + mask) >>> shift);
        chunks = new long[count][];
        for (int i = 0; allocate && i < count; i++) {
            chunks[i] = new long[fullLength(i)];
        }
    }

    /**
     * An array of {@code length} longs with no chunk allocated yet, to be filled in index order through
     * {@link #chunkForFill} before any other use.
     */
    static LongChunks forFilling(long length, int shift) {
        return new LongChunks(length, shift, false);
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

    /**
     * The chunk holding {@code index .. index + count - 1} (inside one chunk), allocated or grown so that it holds
     * them: by doubling, up to the chunk's full length, keeping what was filled before. Indexes must be filled in
     * order; once the last index of a chunk is filled, that chunk has its full length.
     */
    long[] chunkForFill(long index, int count) {
        int c = (int) (index >>> shift);
        int needed = offset(index) + count;
        long[] chunk = chunks[c];
        if (chunk == null || chunk.length < needed) {
            int grown = chunk == null ? FIRST_FILL : 2 * chunk.length;
            int full = fullLength(c);
            long[] larger = new long[Math.min(full, Math.max(needed, grown))];
            if (chunk != null) {
                System.arraycopy(chunk, 0, larger, 0, chunk.length);
            }
            chunks[c] = chunk = larger;
        }
        return chunk;
    }

    /** Longs in chunk {@code c} once complete: {@code 2^shift}, or fewer for a short last chunk. */
    private int fullLength(int c) {
        long start = (long) c << shift;
        return (int) Math.min(1L << shift, length - start);
    }
}
