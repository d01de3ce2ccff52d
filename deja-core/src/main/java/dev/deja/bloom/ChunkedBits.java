package dev.deja.bloom;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * A bit array of up to 2^40 bits held as 64-bit words in lazily allocated chunks, with atomic bit setting.
 *
 * <p>The words live in {@code long[][] chunks} of {@link #CHUNK_WORDS} words (256 KiB) each. A chunk is allocated
 * on its first write and published with a compare-and-exchange, so an empty 1 GiB filter costs a 16 KiB array of
 * null references, memory grows as the filter fills, and a read of an absent chunk is zero. Word indexes are
 * 64-bit, so the array may exceed 2^32 bits. A chunk holds a whole number of 512-bit blocks, so a filter block never
 * straddles two chunks and one chunk lookup serves a whole key.
 *
 * <p>Bits are only ever set by {@link #or}, an atomic {@code getAndBitwiseOr}, so concurrent setters never lose each
 * other's bits; lookups read words with plain loads ({@link #read} explains why that is enough) and a bit set before
 * a read began is seen by it. Bulk
 * {@link #storeBytes} replaces words and is meant for restoring a filter that nobody writes to at the same time.
 *
 * <p>Bit {@code i} is bit {@code i & 63} of word {@code i >>> 6}; as bytes, word {@code w} is bytes {@code 8w..8w+7}
 * in little-endian order, so bit {@code i} is bit {@code i & 7} of byte {@code i >>> 3}.
 */
final class ChunkedBits {

    /**
     * log2 of the words in one chunk. A chunk's array object (its 16-byte header and 256 KiB of words) stays below
     * half of G1's smallest heap region (1 MiB, the size for heaps up to about 2 GiB), so G1 never treats it as a
     * humongous object: those get whole regions of their own, and a 512 KiB chunk, 16 bytes over half a region,
     * took a full 1 MiB region, so the filter cost twice its size on such heaps.
     */
    static final int CHUNK_SHIFT = 15;
    /** Words per chunk: 2^15 words = 256 KiB = 4096 blocks of 512 bits. */
    static final int CHUNK_WORDS = 1 << CHUNK_SHIFT;
    static final int CHUNK_MASK = CHUNK_WORDS - 1;

    private static final VarHandle WORD = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle CHUNK = MethodHandles.arrayElementVarHandle(long[][].class);
    private static final VarHandle LE_LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private final long words;
    private final long[][] chunks;

    ChunkedBits(long words) {
        this.words = words;
        this.chunks = new long[(int) ((words + CHUNK_MASK) >>> CHUNK_SHIFT)][];
    }

    /** Number of 64-bit words. */
    long words() {
        return words;
    }

    /** The chunk holding the word, or {@code null} when nothing was ever written to it. */
    long[] chunkOrNull(long word) {
        return (long[]) CHUNK.getAcquire(chunks, (int) (word >>> CHUNK_SHIFT));
    }

    /** The chunk holding the word, allocated (zeroed) if absent. */
    long[] chunkForWrite(long word) {
        int index = (int) (word >>> CHUNK_SHIFT);
        long[] chunk = (long[]) CHUNK.getAcquire(chunks, index);
        if (chunk != null) {
            return chunk;
        }
        long[] fresh = new long[chunkLength(index)];
        long[] witness = (long[]) CHUNK.compareAndExchangeRelease(chunks, index, null, fresh);
        return witness == null ? fresh : witness;
    }

    /** Reads word {@code i} of a chunk with acquire semantics. */
    static long get(long[] chunk, int i) {
        return (long) WORD.getAcquire(chunk, i);
    }

    /**
     * Reads word {@code i} of a chunk with a plain load, for the lookup hot path. Enough because bits only go from
     * 0 to 1: a read that happens-after an {@link #or} sees its bits (the memory model's happens-before consistency
     * holds for plain reads too), and a read racing with one sees either the old or the new word. Even a torn read
     * (which the model allows for plain longs, though 64-bit JVMs never tear) would hold, in each half, a subset of
     * the bits present at its end, so a racing lookup can only miss bits of the add it races with, which any
     * ordering of the two permits. Plain loads also leave the compiler free to schedule the loads of consecutive
     * lookups together.
     */
    static long read(long[] chunk, int i) {
        return chunk[i];
    }

    /** Atomically ORs the mask into word {@code i} of a chunk; returns the bits this call newly set. */
    static long or(long[] chunk, int i, long mask) {
        long old = (long) WORD.getAndBitwiseOr(chunk, i, mask);
        return mask & ~old;
    }

    /** Reads a word anywhere in the array; absent chunks read as zero. */
    long word(long word) {
        long[] chunk = chunkOrNull(word);
        return chunk == null ? 0L : get(chunk, (int) (word & CHUNK_MASK));
    }

    /** Number of allocated chunks. */
    int allocatedChunks() {
        int n = 0;
        for (int i = 0; i < chunks.length; i++) {
            if (CHUNK.getAcquire(chunks, i) != null) {
                n++;
            }
        }
        return n;
    }

    /** Bytes of word storage allocated so far. */
    long allocatedBytes() {
        long bytes = 0;
        for (int i = 0; i < chunks.length; i++) {
            if (CHUNK.getAcquire(chunks, i) != null) {
                bytes += 8L * chunkLength(i);
            }
        }
        return bytes;
    }

    /** Number of set bits, by scanning the allocated chunks. */
    long bitCount() {
        long n = 0;
        for (int i = 0; i < chunks.length; i++) {
            long[] chunk = (long[]) CHUNK.getAcquire(chunks, i);
            if (chunk != null) {
                for (int j = 0; j < chunk.length; j++) {
                    n += Long.bitCount(get(chunk, j));
                }
            }
        }
        return n;
    }

    /** ORs every word of {@code other} (same size) into this array; returns the number of bits newly set. */
    long orAll(ChunkedBits other) {
        long added = 0;
        for (int i = 0; i < other.chunks.length; i++) {
            long[] source = (long[]) CHUNK.getAcquire(other.chunks, i);
            if (source == null) {
                continue;
            }
            long[] target = null;
            for (int j = 0; j < source.length; j++) {
                long w = get(source, j);
                if (w != 0) {
                    if (target == null) {
                        target = chunkForWrite((long) i << CHUNK_SHIFT);
                    }
                    added += Long.bitCount(or(target, j, w));
                }
            }
        }
        return added;
    }

    /** Copies {@code length} bytes starting at byte {@code offset} of the array into {@code dst}. */
    void loadBytes(long offset, byte[] dst, int dstOffset, int length) {
        for (int n = 0; n < length; ) {
            long b = offset + n;
            long w = word(b >>> 3);
            int first = (int) (b & 7);
            int take = Math.min(8 - first, length - n);
            if (take == 8) {
                LE_LONG.set(dst, dstOffset + n, w);
            } else {
                for (int j = 0; j < take; j++) {
                    dst[dstOffset + n + j] = (byte) (w >>> (8 * (first + j)));
                }
            }
            n += take;
        }
    }

    /**
     * Replaces {@code length} bytes starting at byte {@code offset} with {@code src}; returns the change in the
     * number of set bits. Zero bytes falling in an absent chunk allocate nothing.
     */
    long storeBytes(long offset, byte[] src, int srcOffset, int length) {
        long delta = 0;
        for (int n = 0; n < length; ) {
            long b = offset + n;
            long wordIndex = b >>> 3;
            int first = (int) (b & 7);
            int take = Math.min(8 - first, length - n);
            long value;
            long mask;
            if (take == 8) {
                value = (long) LE_LONG.get(src, srcOffset + n);
                mask = -1L;
            } else {
                value = 0;
                mask = 0;
                for (int j = 0; j < take; j++) {
                    value |= (src[srcOffset + n + j] & 0xFFL) << (8 * (first + j));
                    mask |= 0xFFL << (8 * (first + j));
                }
            }
            long[] chunk = value == 0 ? chunkOrNull(wordIndex) : chunkForWrite(wordIndex);
            if (chunk != null) {
                int i = (int) (wordIndex & CHUNK_MASK);
                long old = get(chunk, i);
                long updated = (old & ~mask) | value;
                WORD.setRelease(chunk, i, updated);
                delta += Long.bitCount(updated) - Long.bitCount(old);
            }
            n += take;
        }
        return delta;
    }

    private int chunkLength(int index) {
        return (int) Math.min(CHUNK_WORDS, words - ((long) index << CHUNK_SHIFT));
    }
}
