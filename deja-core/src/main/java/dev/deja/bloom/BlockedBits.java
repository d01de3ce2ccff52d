package dev.deja.bloom;

import dev.deja.sizing.BloomLayout;
import java.util.concurrent.atomic.LongAdder;

/**
 * The bit array of a blocked Bloom filter with the arithmetic of a key's bits in it: the block a key's hash picks,
 * the lock-free test of its bits and their setting under the block's lock, for the layout and {@code k} of one filter.
 *
 * <p>Storage. Words live in lazily allocated chunks of one G1 heap region each, 1 to 32 MiB ({@link ChunkedBits}):
 * an empty 1 GiB filter (the default filter of the bloom HTTP server whose protocol deja follows, Snawoot/bloom:
 * k = 10, 5e8 keys at 0.1%) costs almost nothing, and memory grows a chunk at a time as keys land in chunks not
 * written before. Keys spread evenly over the chunks, so a filter of {@code c} chunks is fully allocated after about
 * {@code c ln c} keys (for 1 GiB, about 600 in 8 MiB chunks, the size on a 12 GiB heap, or 7,000 in 1 MiB chunks).
 * Region-sized chunks waste no heap, and they start every block on a cache line, so a lookup costs one cache miss
 * rather than two ({@link ChunkedBits} says how).
 *
 * <p>Concurrency, without a global lock. Every write of bits ({@link #put}, {@link #orAll}) takes the lock of its
 * block's stripe ({@link BlockLocks}, one of {@value BlockLocks#STRIPES}), so concurrent writers never lose each
 * other's bits while writers of other stripes proceed in parallel; {@link #contains} reads the chunk and its words
 * with plain loads (enough, as {@link ChunkedBits#read} explains) and takes no lock. A filter's
 * {@code checkThenAdd} must be linearizable per key: when many threads race on the same new key, exactly one is told
 * it is new. Atomic ORs alone cannot give that, since two racers may each set a different missing bit of the same key
 * and both conclude it was new. A key's bits all lie in one block, so its block's lock serialises every {@link #put}
 * of the same key, and inside the lock the answer is "new" exactly when this call set a bit that was clear.
 */
final class BlockedBits {

    private final int hashes;
    private final BloomLayout layout;
    /** {@code layout == SECTORED}, the test the lookup makes: a final boolean the compiler folds per filter. */
    private final boolean sectored;
    /**
     * Sectored with {@code k = 8}, the shape of most filters: one test of this flag takes the lookup to its
     * straight-line code, where testing the layout and then {@code k} would put more instructions on every lookup.
     */
    private final boolean sectoredEight;

    private final long blocks;
    private final ChunkedBits words;
    /** Bits set by restores ({@link ChunkedBits#storeBytes}); writes under the locks count there. */
    private final LongAdder restoredBits = new LongAdder();

    private final BlockLocks locks = new BlockLocks();
    /** Written with the words {@link #touch} loads, only so that the compiler cannot drop those loads. */
    @SuppressWarnings("unused")
    private long touchSink;

    /** An all-zero array of {@code bits} bits (a multiple of 512) for keys of {@code hashes} bits in the layout. */
    BlockedBits(BloomLayout layout, long bits, int hashes) {
        this.layout = layout;
        this.hashes = hashes;
        this.sectored = layout == BloomLayout.SECTORED;
        this.sectoredEight = sectored && hashes == BlockHash.SECTORS;
        this.blocks = bits / BlockHash.BLOCK_BITS;
        this.words = new ChunkedBits(bits / 64);
    }

    /** Whether all the key's bits are set; takes no lock. */
    boolean contains(long high, long low) {
        // ChunkedBits.arrayOrNull and firstWord, written out so that the rare last slot costs one branch, not two:
        // every instruction between two lookups delays the next one's cache miss.
        int block = (int) BlockHash.block(high, blocks);
        int slot = block & ChunkedBits.SLOT_MASK;
        long[] array;
        int base;
        if (slot != ChunkedBits.SLOT_MASK) {
            array = words.chunkForLookup(block >>> ChunkedBits.SLOT_SHIFT);
            base = ChunkedBits.LEAD_WORDS + ChunkedBits.BLOCK_WORDS * slot;
        } else {
            array = words.lastSlots();
            base = ChunkedBits.BLOCK_WORDS * (block >>> ChunkedBits.SLOT_SHIFT);
        }
        return array != null && allSet(array, base, low);
    }

    /** Whether all the key's bits are set in the block starting at word {@code base} of the chunk. */
    private boolean allSet(long[] chunk, int base, long low) {
        if (sectoredEight) {
            return SectoredBlocks.eightSet(chunk, base, low);
        }
        return sectored
                ? SectoredBlocks.allSet(chunk, base, low, hashes)
                : ScatteredBlocks.allSet(chunk, base, low, hashes);
    }

    /**
     * Sets the key's bits under its block's lock; true when at least one bit was clear. No presence test of its own:
     * every caller has just made the branch-free one ({@link #contains}), so a key already held takes no lock.
     */
    boolean put(long high, long low) {
        int block = (int) BlockHash.block(high, blocks);
        long[] chunk = words.arrayForWrite(block); // may allocate, so before the lock
        int base = ChunkedBits.firstWord(block);
        int stripe = BlockLocks.stripe(block);
        int newlySet = 0;
        locks.lock(stripe);
        try {
            newlySet = setAll(chunk, base, low);
        } finally {
            locks.unlock(stripe, newlySet);
        }
        return newlySet != 0;
    }

    /**
     * Sets the key's {@code k} bits in the block starting at word {@code base} and counts the bits this call set, in
     * either layout ({@link BlockHash#position}); under the block's lock. Sectored keys of 8 to 10 bits (most filters)
     * take {@link SectoredBlocks#setFromLow}'s straight-line form; others the reference derivation, bit by bit.
     */
    private int setAll(long[] chunk, int base, long low) {
        if (sectored && hashes >= BlockHash.SECTORS && hashes <= BlockHash.OFFSETS_PER_WORD) {
            return SectoredBlocks.setFromLow(chunk, base, low, hashes);
        }
        int newlySet = 0;
        for (int i = 0; i < hashes; i++) {
            int pos = BlockHash.position(layout, low, i);
            int w = base + (pos >>> 6);
            long bit = 1L << pos;
            long word = ChunkedBits.read(chunk, w);
            ChunkedBits.write(chunk, w, word | bit);
            newlySet += Long.bitCount(bit & ~word);
        }
        return newlySet;
    }

    /**
     * Loads both ends of every key's block, from a loop body so short and free of dependencies between iterations
     * that the processor keeps the misses of many keys in flight at once; the tests that follow find the blocks in
     * the cache. Tested directly, a key's {@code k} loads and their arithmetic fill the processor's window, and one
     * key's misses barely overlap the next key's. Both ends, because blocks are cache-line aligned only where
     * {@link ChunkedBits} can align them (G1); elsewhere a 64-byte block usually straddles two cache lines, and
     * aligned, the second load finds the line the first brought. The block of each key is computed again by the
     * test; a multiply and a load from the small chunk table cost less than arrays to remember them in.
     *
     * @param hashes key {@code i}'s {@code high} at {@code 2i}, its {@code low} at {@code 2i+1}
     */
    void touch(long[] hashes) {
        long touched = 0;
        for (int i = 0; i < hashes.length; i += 2) {
            int block = (int) BlockHash.block(hashes[i], blocks);
            long[] chunk = words.arrayOrNull(block);
            if (chunk != null) {
                int base = ChunkedBits.firstWord(block);
                touched ^= ChunkedBits.read(chunk, base) ^ ChunkedBits.read(chunk, base + 7);
            }
        }
        touchSink = touched;
    }

    /** The lock stripe a key's block maps to; equal for equal keys in arrays of the same size. */
    int stripe(long high) {
        return BlockLocks.stripe(BlockHash.block(high, blocks));
    }

    /** Number of set bits: exact while no writer is active, else a sum of counts read one by one. */
    long bitsSet() {
        return restoredBits.sum() + locks.bitsSet();
    }

    /** Heap taken so far: the words allocated and the block locks. */
    long allocatedBytes() {
        return words.allocatedBytes() + BlockLocks.HEAP_BYTES;
    }

    /** Heap an array of {@code bits} bits takes once every chunk is allocated, its block locks included. */
    static long heapBytesWhenFull(long bits) {
        return ChunkedBits.heapBytesWhenFull(bits / 64) + BlockLocks.HEAP_BYTES;
    }

    /** Copies raw bytes of the array ({@link ChunkedBits#loadBytes}); the range must lie inside it. */
    void readBytes(long offset, byte[] dst, int dstOffset, int length) {
        words.loadBytes(offset, dst, dstOffset, length);
    }

    /**
     * Replaces raw bytes of the array ({@link ChunkedBits#storeBytes}), counting the bits they set; for an array no
     * other thread writes to meanwhile. The range must lie inside it.
     */
    void storeBytes(long offset, byte[] src, int srcOffset, int length) {
        restoredBits.add(words.storeBytes(offset, src, srcOffset, length));
    }

    /**
     * ORs every block of {@code other}, an array of the same size, into this one, each under its stripe's lock, which
     * counts the bits it newly sets.
     */
    void orAll(BlockedBits other) {
        other.words.forEachBlock(this::orBlock);
    }

    /** ORs the block at {@code source[from..from+7]} into block {@code block}, allocating its chunk only if needed. */
    private void orBlock(long[] source, int from, int block) {
        long any = 0;
        for (int j = 0; j < ChunkedBits.BLOCK_WORDS; j++) {
            any |= ChunkedBits.get(source, from + j);
        }
        if (any == 0) {
            return;
        }
        long[] target = words.arrayForWrite(block);
        int to = ChunkedBits.firstWord(block);
        int stripe = BlockLocks.stripe(block);
        long added = 0;
        locks.lock(stripe);
        try {
            for (int j = 0; j < ChunkedBits.BLOCK_WORDS; j++) {
                long old = ChunkedBits.read(target, to + j);
                long merged = old | ChunkedBits.get(source, from + j);
                if (merged != old) {
                    ChunkedBits.write(target, to + j, merged);
                    added += Long.bitCount(merged & ~old);
                }
            }
        } finally {
            locks.unlock(stripe, added);
        }
    }
}
