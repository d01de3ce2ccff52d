package dev.deja.bloom;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.management.ManagementFactory;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * A bit array of up to 2^40 bits held as 64-bit words in lazily allocated chunks, with atomic bit setting.
 *
 * <p>Layout. The array is a sequence of 512-bit blocks (8 words; a filter key touches one block). Block {@code b}
 * is slot {@code b & SLOT_MASK} of chunk {@code b >>> SLOT_SHIFT}: a shift and a mask, so the lookup's address
 * arithmetic stays as short as it can be (a division here would stand between every lookup and its cache miss).
 * A chunk's {@code long[]} holds its slots but the last; every chunk's last slot lives in one small array of its own,
 * {@code lastSlots} (8 words per chunk), which a lookup reaches one time in {@code 2^SLOT_SHIFT}. That keeps each
 * chunk array exactly {@link #CHUNK_BYTES} bytes as a heap object, header included:
 * <ul>
 *   <li>With G1, a chunk is one heap region (clamped to 1 to 32 MiB). G1 gives an object larger than half a region
 *       ("humongous") whole regions of its own; an object of exactly a region fills it and wastes nothing, where an
 *       object a few bytes over a power of two would waste most of a region.</li>
 *   <li>A humongous object starts at a region boundary, and a {@code long[]}'s elements start
 *       {@value #ARRAY_HEADER_BYTES} bytes into the object on 64-bit HotSpot, so after {@value #LEAD_WORDS} unused
 *       lead words every slot starts on a 64-byte boundary: a lookup touches one cache line instead of two.</li>
 *   <li>With another collector (or an unreadable region size) chunks are 1 MiB ordinary objects; the layout is the
 *       same and only the alignment is lost.</li>
 * </ul>
 *
 * <p>A chunk is allocated on its first write and published with a compare-and-exchange, so an empty 1 GiB filter
 * costs a small table of null references and its {@code lastSlots}; memory grows a chunk at a time as the filter
 * fills, and a read of an absent chunk is zero.
 *
 * <p>Bits are only ever set by {@link #write}, under the lock of the block's stripe ({@link BlockLocks}), so
 * concurrent setters never lose each other's bits; lookups read chunks ({@link #chunkForLookup}) and words
 * ({@link #read}) with plain loads, which say why that is enough, and see every bit set by a write that
 * happens-before them. Bulk {@link #storeBytes} replaces words and is meant for restoring a filter that nobody writes
 * to at the same time.
 *
 * <p>Logically, bit {@code i} is bit {@code i & 63} of word {@code i >>> 6}, and word {@code w} is word {@code w & 7}
 * of block {@code w >>> 3}; as bytes, word {@code w} is bytes {@code 8w..8w+7} in little-endian order, so bit
 * {@code i} is bit {@code i & 7} of byte {@code i >>> 3}. Where a block is stored is invisible outside this class.
 */
final class ChunkedBits {

    /** Bytes of a {@code long[]} object before its first element on 64-bit HotSpot: header and length. */
    static final int ARRAY_HEADER_BYTES = 16;
    /** Unused words at the start of every chunk, so that its first slot starts 64 bytes into the object. */
    static final int LEAD_WORDS = (64 - ARRAY_HEADER_BYTES) / 8;
    /** Words per 512-bit block. */
    static final int BLOCK_WORDS = 8;
    /** The G1 heap region size in bytes, or 0 when the collector is not G1 or the size cannot be read. */
    static final long REGION_BYTES = g1RegionBytes();
    /** Bytes of a full chunk's array object: one G1 region within [1 MiB, 32 MiB], else 1 MiB. */
    static final int CHUNK_BYTES = chunkBytes(REGION_BYTES);
    /** log2 of the block slots per chunk: a chunk's object is the header, the lead and all its slots but one. */
    static final int SLOT_SHIFT = Integer.numberOfTrailingZeros(CHUNK_BYTES / 64);
    /** The last slot of a chunk, the one kept in {@code lastSlots}. */
    static final int SLOT_MASK = (1 << SLOT_SHIFT) - 1;

    private static final VarHandle WORD = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle CHUNK = MethodHandles.arrayElementVarHandle(long[][].class);
    private static final VarHandle LE_LONG =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private final long blocks;
    private final long[][] chunks;
    /** The last slot of every chunk: chunk {@code c}'s at words {@code 8c .. 8c+7}. */
    private final long[] lastSlots;

    /** An all-zero array of {@code words} words, a multiple of {@link #BLOCK_WORDS}, at most 2^34. */
    ChunkedBits(long words) {
        this.blocks = words / BLOCK_WORDS;
        int count = chunkCount(blocks);
        this.chunks = new long[count][];
        this.lastSlots = new long[BLOCK_WORDS * count];
    }

    /**
     * The array holding a block ({@code block < 2^31}: filters have at most 2^40 bits), or {@code null} when its
     * chunk was never written to.
     */
    long[] arrayOrNull(int block) {
        return (block & SLOT_MASK) != SLOT_MASK ? chunkOrNull(block >>> SLOT_SHIFT) : lastSlots;
    }

    /** Chunk {@code index}, or {@code null} when nothing was ever written to it. */
    long[] chunkOrNull(int index) {
        return (long[]) CHUNK.getAcquire(chunks, index);
    }

    /**
     * Chunk {@code index} read with a plain load, for the lookup: {@code null} (nothing written to it yet, so every
     * bit a lookup tests there is zero) or the chunk. Enough for the reasons {@link #read} gives for words: a lookup
     * that happens-after the add that allocated the chunk sees it (happens-before consistency holds for plain
     * reads), and one racing with that add may see {@code null} or the chunk, both answers that some ordering of the
     * two permits; a chunk is zero when it is published (default values are visible to every thread), and its bits
     * are set after. Unlike {@link #chunkOrNull}'s acquiring read, it lets the compiler keep the filter's fields in
     * registers across the iterations of a caller's loop, and schedule the loads of consecutive lookups together.
     */
    long[] chunkForLookup(int index) {
        return chunks[index];
    }

    /** The array of every chunk's last slot (chunk {@code c}'s at words {@code 8c .. 8c+7}). */
    long[] lastSlots() {
        return lastSlots;
    }

    /** The array holding a block, its chunk allocated (zeroed) if absent. */
    long[] arrayForWrite(int block) {
        if ((block & SLOT_MASK) == SLOT_MASK) {
            return lastSlots;
        }
        int index = block >>> SLOT_SHIFT;
        long[] chunk = (long[]) CHUNK.getAcquire(chunks, index);
        if (chunk != null) {
            return chunk;
        }
        long[] fresh = new long[chunkLength(index)];
        long[] witness = (long[]) CHUNK.compareAndExchangeRelease(chunks, index, null, fresh);
        return witness == null ? fresh : witness;
    }

    /** The position of a block's first word in the array {@link #arrayOrNull} gives for it. */
    static int firstWord(int block) {
        int slot = block & SLOT_MASK;
        return slot != SLOT_MASK ? LEAD_WORDS + BLOCK_WORDS * slot : BLOCK_WORDS * (block >>> SLOT_SHIFT);
    }

    /** Reads word {@code i} of a chunk with acquire semantics. */
    static long get(long[] chunk, int i) {
        return (long) WORD.getAcquire(chunk, i);
    }

    /**
     * Reads word {@code i} of a chunk with a plain load, for the lookup hot path. Enough because bits only go from
     * 0 to 1: a read that happens-after a {@link #write} sees its bits (the memory model's happens-before consistency
     * holds for plain reads too), and a read racing with one sees either the old or the new word. Even a torn read
     * (which the model allows for plain longs, though 64-bit JVMs never tear) would hold, in each half, a subset of
     * the bits present at its end, so a racing lookup can only miss bits of the add it races with, which any
     * ordering of the two permits. Plain loads also leave the compiler free to schedule the loads of consecutive
     * lookups together.
     */
    static long read(long[] chunk, int i) {
        return chunk[i];
    }

    /**
     * Writes word {@code i} of a chunk; only under the block's lock ({@link BlockLocks}), which serialises the writers
     * of a block. Opaque, so the word is written whole (the memory model lets a plain long write be split);
     * {@link #read} says what a racing lookup sees.
     */
    static void write(long[] chunk, int i, long word) {
        WORD.setOpaque(chunk, i, word);
    }

    /** Reads a word anywhere in the array; absent chunks read as zero. */
    long word(long word) {
        int block = (int) (word >>> 3);
        long[] array = arrayOrNull(block);
        return array == null ? 0L : get(array, firstWord(block) + (int) (word & 7));
    }

    /** Number of allocated chunks (the last-slot array not counted). */
    int allocatedChunks() {
        int n = 0;
        for (int i = 0; i < chunks.length; i++) {
            if (CHUNK.getAcquire(chunks, i) != null) {
                n++;
            }
        }
        return n;
    }

    /** Heap taken so far: the allocated chunks and the last-slot array ({@link #heapBytes}). */
    long allocatedBytes() {
        long bytes = heapBytes(lastSlots.length);
        for (int i = 0; i < chunks.length; i++) {
            if (CHUNK.getAcquire(chunks, i) != null) {
                bytes += heapBytes(chunkLength(i));
            }
        }
        return bytes;
    }

    /** Heap taken by an array of {@code words} words once every chunk is allocated. */
    static long heapBytesWhenFull(long words) {
        long blocks = words / BLOCK_WORDS;
        int count = chunkCount(blocks);
        // every chunk but the last is full; the last may be short
        return (count - 1) * heapBytes(chunkLength(blocks, 0))
                + heapBytes(chunkLength(blocks, count - 1))
                + heapBytes(BLOCK_WORDS * count);
    }

    /**
     * Heap taken by an array of {@code length} words: its object size, rounded up to whole regions when G1 would
     * make it humongous (larger than half a region), since a humongous object's last region is not shared.
     */
    static long heapBytes(int length) {
        long object = ARRAY_HEADER_BYTES + 8L * length;
        if (REGION_BYTES > 0 && object > REGION_BYTES / 2) {
            return (object + REGION_BYTES - 1) / REGION_BYTES * REGION_BYTES;
        }
        return object;
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
        for (int j = 0; j < lastSlots.length; j++) {
            n += Long.bitCount(get(lastSlots, j));
        }
        return n;
    }

    /** Receives a block of the array: where its words are, and its index. */
    @FunctionalInterface
    interface BlockVisitor {
        /** Block {@code block}'s eight words are {@code array[from .. from+7]}. */
        void visit(long[] array, int from, int block);
    }

    /**
     * Hands every block that may hold a set bit to the visitor: each block of an allocated chunk, then every chunk's
     * last slot. Blocks of chunks never written to are skipped; they are zero.
     */
    void forEachBlock(BlockVisitor visitor) {
        for (int i = 0; i < chunks.length; i++) {
            long[] chunk = (long[]) CHUNK.getAcquire(chunks, i);
            if (chunk == null) {
                continue;
            }
            for (int slot = 0, from = LEAD_WORDS; from < chunk.length; slot++, from += BLOCK_WORDS) {
                visitor.visit(chunk, from, (i << SLOT_SHIFT) | slot);
            }
        }
        for (int from = 0; from < lastSlots.length; from += BLOCK_WORDS) {
            visitor.visit(lastSlots, from, ((from / BLOCK_WORDS) << SLOT_SHIFT) | SLOT_MASK);
        }
    }

    /**
     * Copies {@code length} bytes starting at byte {@code offset} of the array into {@code dst}. Whole words go a run
     * at a time ({@link #loadWords}), with one array lookup per run of words stored together rather than one per
     * word; only a word the range cuts is copied byte by byte.
     */
    void loadBytes(long offset, byte[] dst, int dstOffset, int length) {
        for (int n = 0; n < length; ) {
            long b = offset + n;
            int first = (int) (b & 7);
            if (first == 0 && length - n >= 8) {
                n += 8 * loadWords(b >>> 3, dst, dstOffset + n, (length - n) >>> 3);
                continue;
            }
            long w = word(b >>> 3);
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
     * Copies words from {@code wordIndex} on, as little-endian bytes at {@code dst[at..]}: at most {@code max} words,
     * as many as lie together in one array (to the end of a chunk, or of a last slot); returns how many it copied.
     * A range in a chunk never written to is zero-filled without touching any word, so a snapshot of a mostly empty
     * filter costs little more than its zeros; a lookup per word would cost more than the copy it serves.
     *
     * <p>Each word is read with an opaque load: read whole (unlike a plain long, which the memory model lets tear),
     * and holding every bit set by a {@link #write} that happens-before the read (happens-before consistency holds for
     * every read, {@link #read}); the chunk itself was read with an acquiring load, so its allocation is seen. Words
     * read later in the run may hold bits set after earlier ones were read, the fuzziness a snapshot taken while adds
     * run already has (the journal's replay completes it). An acquiring load per word would give nothing more a copy
     * needs, and would keep each load from passing the ones before it.
     */
    private int loadWords(long wordIndex, byte[] dst, int at, int max) {
        int block = (int) (wordIndex >>> 3);
        int inBlock = (int) (wordIndex & 7);
        int slot = block & SLOT_MASK;
        // words stored contiguously from here: the rest of the chunk's slots, or the rest of this last slot
        long together = slot != SLOT_MASK ? (long) BLOCK_WORDS * (SLOT_MASK - slot) - inBlock : BLOCK_WORDS - inBlock;
        int count = (int) Math.min(max, together);
        long[] array = arrayOrNull(block);
        if (array == null) {
            Arrays.fill(dst, at, at + 8 * count, (byte) 0);
            return count;
        }
        copyWords(array, firstWord(block) + inBlock, dst, at, count);
        return count;
    }

    /**
     * Copies {@code count} words from {@code array[from..]} to {@code dst[at..]} as little-endian bytes. A method of
     * its own so that the loop is compiled for itself: inlined into {@link #loadWords}, it would be compiled for the
     * profile that mostly empty filters give there (the zero-fill branch), and copy full chunks slowly from then on.
     */
    private static void copyWords(long[] array, int from, byte[] dst, int at, int count) {
        for (int j = 0; j < count; j++) {
            LE_LONG.set(dst, at + 8 * j, (long) WORD.getOpaque(array, from + j));
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
            if (first == 0 && length - n >= 8) {
                // whole words, to the end of their block or of the range
                int inBlock = (int) (wordIndex & 7);
                int count = Math.min(BLOCK_WORDS - inBlock, (length - n) >>> 3);
                delta += storeWords((int) (wordIndex >>> 3), inBlock, src, srcOffset + n, count);
                n += 8 * count;
                continue;
            }
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
            int block = (int) (wordIndex >>> 3);
            long[] chunk = value == 0 ? arrayOrNull(block) : arrayForWrite(block);
            if (chunk != null) {
                int i = firstWord(block) + (int) (wordIndex & 7);
                long old = get(chunk, i);
                long updated = (old & ~mask) | value;
                WORD.setRelease(chunk, i, updated);
                delta += Long.bitCount(updated) - Long.bitCount(old);
            }
            n += take;
        }
        return delta;
    }

    /**
     * Replaces words {@code at .. at+count-1} of a block with the little-endian words at {@code src[from..]}; returns
     * the change in set bits. The block's array is looked up once for its words, not once per word: per word, the
     * lookup would cost more than the store it serves. Zero words falling in an absent chunk allocate nothing.
     */
    private long storeWords(int block, int at, byte[] src, int from, int count) {
        long[] array = arrayOrNull(block);
        if (array == null) {
            long any = 0;
            for (int j = 0; j < count; j++) {
                any |= (long) LE_LONG.get(src, from + 8 * j);
            }
            if (any == 0) {
                return 0;
            }
            array = arrayForWrite(block);
        }
        int base = firstWord(block) + at;
        long delta = 0;
        for (int j = 0; j < count; j++) {
            long value = (long) LE_LONG.get(src, from + 8 * j);
            long old = get(array, base + j);
            WORD.setRelease(array, base + j, value);
            delta += Long.bitCount(value) - Long.bitCount(old);
        }
        return delta;
    }

    /** Words of chunk {@code index}'s array. */
    private int chunkLength(int index) {
        return chunkLength(blocks, index);
    }

    /**
     * Words of chunk {@code index}'s array in an array of {@code blocks} blocks: the lead and its slots but the
     * last, or all its slots when it is a short last chunk.
     */
    private static int chunkLength(long blocks, int index) {
        long slots = Math.min(SLOT_MASK, blocks - ((long) index << SLOT_SHIFT));
        return LEAD_WORDS + BLOCK_WORDS * (int) slots;
    }

    /** Chunks of an array of {@code blocks} blocks. */
    private static int chunkCount(long blocks) {
        return (int) ((blocks + SLOT_MASK) >>> SLOT_SHIFT);
    }

    /** One region when it is known, clamped to [1 MiB, 32 MiB]; else 1 MiB, an ordinary object for any collector. */
    static int chunkBytes(long regionBytes) {
        if (regionBytes <= 0) {
            return 1 << 20;
        }
        return (int) Math.min(Math.max(Long.highestOneBit(regionBytes), 1L << 20), 32L << 20);
    }

    /**
     * G1's heap region size, read from the HotSpot diagnostic bean, or 0 when G1 is not the collector or the bean
     * is missing (a runtime without the {@code jdk.management} module, another JVM). A region above 32 MiB (only by
     * explicit setting) gets 32 MiB chunks, which are then at most half a region: ordinary objects, no waste.
     */
    private static long g1RegionBytes() {
        try {
            HotSpotDiagnosticMXBean hotSpot = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
            if (hotSpot == null
                    || !Boolean.parseBoolean(hotSpot.getVMOption("UseG1GC").getValue())) {
                return 0;
            }
            return Long.parseLong(hotSpot.getVMOption("G1HeapRegionSize").getValue());
        } catch (RuntimeException | LinkageError e) {
            return 0;
        }
    }
}
