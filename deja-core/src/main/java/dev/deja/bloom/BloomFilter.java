package dev.deja.bloom;

import dev.deja.checks.Require;
import dev.deja.hash.Hash128;
import dev.deja.seen.ErrorEstimate;
import dev.deja.seen.Guarantee;
import dev.deja.seen.HashedSeenSet;
import dev.deja.seen.SeenStats;
import dev.deja.seen.Verdict;
import dev.deja.sizing.BloomLayout;
import dev.deja.sizing.BloomSize;
import dev.deja.sizing.BloomSizing;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;

/**
 * A cache-friendly blocked Bloom filter: a set of keys that may answer "seen" for a key never added, with
 * probability at most its target false-positive probability at capacity, and never answers "new" for a key it holds.
 *
 * <p>Design. The structure is the blocked Bloom filter of Putze, Sanders and Singler ("Cache-, Hash- and
 * Space-Efficient Bloom Filters", 2007): the bit array is cut into 512-bit blocks, one 64-byte cache line each, and a
 * key sets all its {@code k} bits inside one block, so a lookup costs one cache miss instead of {@code k}. Inside the
 * block, bit {@code i} lies in the block's word {@code i mod 8} (the "sectorized" variant of Lang et al., VLDB 2019:
 * {@link SectoredBlocks} says why). As in the bloom HTTP server whose protocol deja follows (Snawoot/bloom), the
 * indexes are sliced out of one wide hash rather than computed by {@code k} salted hashes: the key's XXH3-128
 * {@code high} half picks the block by multiply-high reduction (64-bit, so filters may exceed 2^32 bits), and its
 * {@code low} half supplies the 6-bit offsets ({@link BlockHash}, docs/FORMAT.md section 2.1). Blocks fill unevenly, so
 * the filter is sized with the blocked filter's own false-positive formula ({@link BloomSizing}), which asks for a
 * little more memory than the classic one for the same fpp. Filters written in format version 1 keep its layout, bits
 * anywhere in the block ({@link BloomLayout#SCATTERED}), when read back, and answer and grow as they did.
 *
 * <p>Storage and concurrency, without a global lock, are {@link BlockedBits}': bits in lazily allocated chunks, so
 * memory grows with the fill, and writers of a block under its stripe lock. {@code check} takes no lock: it sees
 * every add that happens-before it, and one racing with an add may or may not see it. So a thread that waits for
 * another thread's add by calling {@code check} in a loop must also synchronize with that thread (a volatile read, a
 * lock, {@link Thread#onSpinWait}): without that the compiler may read the words once for the whole loop.
 * {@code checkThenAdd} is linearizable per key: when many threads race on the same new key, exactly one is told
 * {@link Verdict#NEW}. Before locking, a lock-free check answers {@code DUPLICATE} for keys whose bits are all set
 * already (bits are never cleared, so that answer stays true), which keeps the lock off the path of the duplicates
 * that dominate a de-duplication workload.
 *
 * <p>Batches ({@code checkAll}, {@code addAll}, {@code checkThenAddAll}) hash every key first, then touch every
 * key's block in a short loop whose iterations do not depend on each other, so the processor overlaps a large
 * filter's cache misses instead of taking them one after another, and only then test the blocks; they answer exactly
 * as the single calls made in order.
 *
 * <p>Owners. A Bloom filter stores no owners, so the owner arguments are ignored and
 * {@code checkThenAdd(key, owner)} never returns {@link Verdict#RETRY}. {@code forget} is not supported: clearing a
 * key's bits would also clear bits of other keys, which would then be wrongly reported new.
 *
 * <p>Serialisation ({@link #writeTo}, {@link #readFrom}) streams the bit array through a small buffer with a
 * CRC32C; {@link #readBits} and {@link #loadBits} expose the raw array in chunks for RedisBloom-style
 * {@code BF.SCANDUMP} / {@code BF.LOADCHUNK}. Both formats are specified in docs/FORMAT.md section 2.
 */
public final class BloomFilter implements HashedSeenSet {

    /** Why no Bloom filter supports {@code forget}. */
    static final String FORGET_UNSUPPORTED = "bloom cannot forget a key: its bits are shared with other keys, so "
            + "clearing them would make those keys wrongly answer \"new\"; use a recent or exact store to forget";

    private final long bits;
    private final int hashes;
    private final BloomLayout layout;
    private final long blocks;
    private final long capacity;
    private final double targetFpp;
    private final BlockedBits array;

    private BloomFilter(BloomLayout layout, long bits, int hashes, long capacity, double targetFpp) {
        this.layout = layout;
        this.bits = bits;
        this.hashes = hashes;
        this.blocks = bits / BlockHash.BLOCK_BITS;
        this.capacity = capacity;
        this.targetFpp = targetFpp;
        this.array = new BlockedBits(layout, bits, hashes);
    }

    /** A builder; give either {@code capacity} and {@code fpp}, or {@code bits} with {@code hashes} and/or capacity. */
    public static Builder builder() {
        return new Builder();
    }

    // ---- the seen-set operations ----

    @Override
    public boolean checkHash(long high, long low) {
        return array.contains(high, low);
    }

    /** Records the key's hash; the owner is ignored (a Bloom filter stores no owners). */
    @Override
    public void addHash(long high, long low, long owner) {
        // The branch-free test first: a key already held (the common case of a de-duplication stream) then costs
        // no branch per bit on the loaded block, and bits are never cleared, so "all set" stays true.
        if (!array.contains(high, low)) {
            array.put(high, low);
        }
    }

    /**
     * Atomically records the key's hash and answers {@link Verdict#NEW} if it was not held, else
     * {@link Verdict#DUPLICATE} (also, with probability at most the fpp, for a key never added). Never
     * {@link Verdict#RETRY}: the owner is ignored.
     */
    @Override
    public Verdict checkThenAddHash(long high, long low, long owner) {
        return array.contains(high, low) || !array.put(high, low) ? Verdict.DUPLICATE : Verdict.NEW;
    }

    /**
     * Not supported.
     *
     * @throws UnsupportedOperationException always: a Bloom filter cannot erase a key without risking false "new"
     *                                       answers for other keys that share its bits
     */
    @Override
    public boolean forgetHash(long high, long low, long owner) {
        throw new UnsupportedOperationException(FORGET_UNSUPPORTED);
    }

    @Override
    public Guarantee guarantee() {
        return Guarantee.NEVER_FALSE_NEW;
    }

    /** Statistics whose estimate is {@link #errorEstimate()}; insertions is {@link #approximateCount()}. */
    @Override
    public SeenStats stats() {
        return new SeenStats("bloom", guarantee(), approximateCount(), allocatedBytes(), errorEstimate());
    }

    /** Fill ratio, the false-positive probability at that fill, and the target fpp. */
    public ErrorEstimate.Bloom errorEstimate() {
        double fill = fillRatio();
        return new ErrorEstimate.Bloom(fill, fppAtFill(fill), targetFpp);
    }

    // ---- batches: hash every key, test every block, then write ----

    @Override
    public boolean[] checkAll(List<byte[]> keys) {
        return checkHashes(Hash128.ofAll(keys));
    }

    @Override
    public void addAll(List<byte[]> keys) {
        long[] hashes = Hash128.ofAll(keys);
        array.touch(hashes);
        for (int i = 0; i < hashes.length; i += 2) {
            addHash(hashes[i], hashes[i + 1], NO_OWNER);
        }
    }

    /**
     * {@link #checkThenAddHash} for each key, in order, with the same answers: every key's block is first brought
     * toward the cache with the misses overlapped ({@link BlockedBits#touch}); then a key whose bits are all set is a
     * duplicate (bits are never cleared) and any other goes through the striped lock.
     */
    @Override
    public void checkThenAddHashes(long[] hashes, long[] owners, Verdict[] out) {
        Require.hashBatch(hashes, owners, out); // the owners are ignored, but a caller's mistake is still reported
        array.touch(hashes);
        for (int i = 0; i < out.length; i++) {
            long high = hashes[2 * i];
            long low = hashes[2 * i + 1];
            out[i] = array.contains(high, low) || !array.put(high, low) ? Verdict.DUPLICATE : Verdict.NEW;
        }
    }

    /**
     * {@link #checkHash} for each key given by its hash pair ({@code high} at {@code 2i}, {@code low} at
     * {@code 2i+1}, as {@link Hash128#ofAll} makes them), with a large filter's cache misses overlapped
     * ({@link BlockedBits#touch}).
     */
    public boolean[] checkHashes(long[] hashes) {
        boolean[] out = new boolean[Require.nonNull("hashes", hashes).length / 2];
        orCheckHashes(hashes, out);
        return out;
    }

    /**
     * Sets {@code maybe[i]} for each key that {@link #checkHash} finds present, leaving the other entries as they
     * were, and skips the keys already marked: the form for probing several filters in turn without an answer
     * array per filter.
     */
    public void orCheckHashes(long[] hashes, boolean[] maybe) {
        Require.nonNull("hashes", hashes);
        Require.nonNull("maybe", maybe);
        if (hashes.length % 2 != 0) {
            throw new IllegalArgumentException(
                    "hashes must hold a (high, low) pair per key (got " + hashes.length + " longs)");
        }
        if (maybe.length != hashes.length / 2) {
            throw new IllegalArgumentException(
                    "maybe has " + maybe.length + " entries for " + hashes.length / 2 + " keys; it needs one per key");
        }
        array.touch(hashes);
        for (int i = 0; i < maybe.length; i++) {
            if (!maybe[i]) {
                maybe[i] = array.contains(hashes[2 * i], hashes[2 * i + 1]);
            }
        }
    }

    // ---- shape and statistics ----

    /** Total bits, a multiple of 512. */
    public long bits() {
        return bits;
    }

    /** Bits set per key (k). */
    public int hashes() {
        return hashes;
    }

    /** The number of keys the filter was sized for. */
    public long capacity() {
        return capacity;
    }

    /** The false-positive probability at {@link #capacity()} keys, by the blocked filter's formula. */
    public double targetFpp() {
        return targetFpp;
    }

    /** Where a key's bits lie in its block: sectored for every new filter, scattered for one read from format 1. */
    public BloomLayout layout() {
        return layout;
    }

    /** Fraction of bits set. */
    public double fillRatio() {
        return (double) array.bitsSet() / bits;
    }

    /**
     * Number of distinct keys estimated from the fill: the load at which the layout's expected fill
     * ({@link BloomLayout#expectedFill}) equals the measured one. Close to the true count up to capacity, whatever
     * mix of adds, merges and loads produced the bits; a lower bound for a filter with every bit set.
     */
    public long approximateCount() {
        // With every bit set the estimate is unbounded; a filter that full holds at least the keys it takes to set
        // all but one bit, which is what it reports rather than 2^63 - 1.
        double fill = Math.min(fillRatio(), 1.0 - 1.0 / bits);
        return Math.round(layout.keysPerBlockAtFill(fill, hashes) * blocks);
    }

    /**
     * Heap taken so far, in bytes: the bit array, which grows a chunk at a time as the filter fills, and the 64 KiB of
     * block locks every filter carries from its creation.
     */
    public long allocatedBytes() {
        return array.allocatedBytes();
    }

    /**
     * Whether lookups test blocks with 256-bit vectors in this JVM (it was started with {@code --add-modules
     * jdk.incubator.vector} and runs them in hardware), which makes single lookups of filters larger than the cache
     * faster; otherwise a scalar test answers the same. {@code -Ddeja.bloom.vector=false} turns vectors off.
     */
    public static boolean vectorLookups() {
        return SectoredBlocks.VECTOR;
    }

    /**
     * Heap a filter of {@code bits} bits takes once full: its {@code bits / 8} bytes, 64 bytes per chunk for
     * alignment and the chunks' last slots, and, when its last chunk is large enough for G1 to give it regions of
     * its own, the rest of that region; and its block locks, 64 KiB whatever its size.
     *
     * @throws IllegalArgumentException if {@code bits} is not a positive multiple of 512 up to 2^40
     */
    public static long heapBytes(long bits) {
        BloomSizing.checkShape(bits, 1);
        return BlockedBits.heapBytesWhenFull(bits);
    }

    private double fppAtFill(double fill) {
        if (fill >= 1.0) {
            return 1.0;
        }
        long keys = approximateCount();
        return keys == 0 ? 0.0 : BloomSizing.fpp(layout, bits, hashes, keys);
    }

    /**
     * Sets the key's bits under its block's lock; true when at least one bit was clear. Callers test the key first
     * ({@link #checkHash}), so that a key already held takes no lock.
     */
    boolean put(long high, long low) {
        return array.put(high, low);
    }

    /** The lock stripe a key's block maps to; equal for equal keys in filters of the same shape. */
    int stripe(long high) {
        return array.stripe(high);
    }

    // ---- union and raw access ----

    /**
     * Adds every key of {@code other} to this filter (bitwise OR), so this filter then answers "seen" for every key
     * either held. Safe while other threads use this filter.
     *
     * @throws IllegalArgumentException if the filters differ in bits, hashes or layout
     */
    public void mergeFrom(BloomFilter other) {
        Require.nonNull("other", other);
        if (other.bits != bits || other.hashes != hashes || other.layout != layout) {
            throw new IllegalArgumentException("cannot merge filters of different shapes: this has bits=" + bits
                    + ", hashes=" + hashes + ", layout " + layout + "; other has bits=" + other.bits + ", hashes="
                    + other.hashes + ", layout " + other.layout);
        }
        if (other != this) {
            array.orAll(other.array);
        }
    }

    /** Size of the raw bit array in bytes ({@code bits / 8}); the range of {@link #readBits}/{@link #loadBits}. */
    public long sizeInBytes() {
        return bits / 8;
    }

    /**
     * Copies raw bytes of the bit array (bit {@code i} is bit {@code i & 7} of byte {@code i >>> 3}) starting at
     * {@code offset} into {@code dst}, for dumps such as RedisBloom's {@code BF.SCANDUMP}.
     *
     * @return the number of bytes copied: {@code min(length, sizeInBytes() - offset)}
     * @throws IllegalArgumentException if offset is outside [0, sizeInBytes()] or the destination range is invalid
     */
    public int readBits(long offset, byte[] dst, int dstOffset, int length) {
        checkRange(offset, dst, dstOffset, length);
        int n = (int) Math.min(length, sizeInBytes() - offset);
        array.readBytes(offset, dst, dstOffset, n);
        return n;
    }

    /**
     * Replaces raw bytes of the bit array at {@code offset} with {@code src}, for restores such as RedisBloom's
     * {@code BF.LOADCHUNK}. Meant for a filter no other thread writes to meanwhile.
     *
     * @throws IllegalArgumentException if the range does not lie inside [0, sizeInBytes()]
     */
    public void loadBits(long offset, byte[] src, int srcOffset, int length) {
        checkRange(offset, src, srcOffset, length);
        if (length > sizeInBytes() - offset) {
            throw new IllegalArgumentException("chunk of " + length + " bytes at offset " + offset
                    + " overruns the bit array of " + sizeInBytes() + " bytes");
        }
        array.storeBytes(offset, src, srcOffset, length);
    }

    private void checkRange(long offset, byte[] buffer, int bufferOffset, int length) {
        Require.inRange("offset", offset, 0, sizeInBytes());
        Require.nonNull("buffer", buffer);
        Require.inRange("buffer offset", bufferOffset, 0, buffer.length);
        Require.inRange("length", length, 0, buffer.length - bufferOffset);
    }

    // ---- serialisation ----

    /**
     * Writes the filter in deja's bloom format (docs/FORMAT.md section 2.3): a checksummed header with kind, shape,
     * capacity, target fpp and hash id, then the bit array streamed through a 64 KiB buffer, then its CRC32C. No
     * second copy of the bit array is made. Concurrent adds during the write may or may not be included.
     */
    public void writeTo(OutputStream out) throws IOException {
        BloomFilterCodec.write(
                Require.nonNull("out", out),
                new BloomFilterCodec.Header(layout, bits, hashes, capacity, targetFpp),
                array);
    }

    /**
     * Reads a filter written by {@link #writeTo}, streaming the bit array into lazily allocated storage (all-zero
     * regions allocate nothing). Reads exactly the bytes written, so several structures may follow each other.
     *
     * @throws IOException if the stream is not a deja bloom filter, has an unknown version or hash, a corrupt header
     *                     or bit array (CRC32C mismatch), impossible parameters, or is truncated
     */
    public static BloomFilter readFrom(InputStream in) throws IOException {
        return readFrom(in, (layout, bits, hashes) -> {});
    }

    /** What a reader of a larger structure demands of a filter's shape, checked before its bits are allocated. */
    @FunctionalInterface
    interface ShapeCheck {
        /** Returns when the shape is acceptable. */
        void check(BloomLayout layout, long bits, int hashes) throws IOException;
    }

    /** {@link #readFrom(InputStream)}, with the header's shape also passed to {@code shapeCheck} first. */
    static BloomFilter readFrom(InputStream in, ShapeCheck shapeCheck) throws IOException {
        BloomFilterCodec.Header header = BloomFilterCodec.readHeader(Require.nonNull("in", in));
        shapeCheck.check(header.layout(), header.bits(), header.hashes());
        BloomFilter filter =
                new BloomFilter(header.layout(), header.bits(), header.hashes(), header.capacity(), header.targetFpp());
        BloomFilterCodec.readBits(in, filter.array, filter.sizeInBytes());
        return filter;
    }

    @Override
    public String toString() {
        return "BloomFilter{bits=" + bits + ", hashes=" + hashes + ", layout=" + layout + ", capacity=" + capacity
                + ", targetFpp=" + targetFpp + "}";
    }

    /**
     * Validated settings for a {@link BloomFilter}. Either {@code capacity} and {@code fpp} (the smallest filter
     * meeting the fpp at capacity, by the blocked formula), or {@code bits} with {@code hashes} (explicit shape;
     * capacity optional), or {@code bits} with {@code capacity} (the best k for that memory). With an explicit shape
     * and no capacity, the capacity is the load at which half the bits are expected to be set.
     */
    public static final class Builder {

        private long capacity = -1;
        private double fpp = Double.NaN;
        private long bits = -1;
        private int hashes = -1;

        private Builder() {}

        /** The number of keys the filter must hold at its target fpp; must be > 0. */
        public Builder capacity(long capacity) {
            this.capacity = Require.positive("capacity", capacity);
            return this;
        }

        /** The false-positive probability at capacity, in (0, 1). */
        public Builder fpp(double fpp) {
            this.fpp = Require.probability("fpp", fpp);
            return this;
        }

        /** Total bits: a multiple of 512 in [512, 2^40]. */
        public Builder bits(long bits) {
            BloomSizing.checkShape(bits, 1);
            this.bits = bits;
            return this;
        }

        /** Bits set per key (k), in [1, 32]. */
        public Builder hashes(int hashes) {
            Require.inRange("hashes (k)", hashes, 1, BloomSizing.MAX_HASHES);
            this.hashes = hashes;
            return this;
        }

        /**
         * The filter.
         *
         * @throws IllegalArgumentException if the settings are incomplete or conflicting, or the filter would exceed
         *                                  2^40 bits
         */
        public BloomFilter build() {
            if (bits < 0) {
                if (capacity < 0 || Double.isNaN(fpp) || hashes >= 0) {
                    throw new IllegalArgumentException("give either capacity and fpp, or bits with hashes and/or "
                            + "capacity (got capacity=" + capacity + ", fpp=" + fpp + ", hashes=" + hashes + ")");
                }
                BloomSize size = BloomSizing.forCapacity(capacity, fpp);
                return new BloomFilter(BloomLayout.SECTORED, size.bits(), size.hashes(), capacity, size.expectedFpp());
            }
            if (!Double.isNaN(fpp)) {
                throw new IllegalArgumentException("fpp follows from bits, hashes and capacity; give either capacity "
                        + "and fpp, or bits with hashes and/or capacity");
            }
            if (hashes < 0) {
                if (capacity < 0) {
                    throw new IllegalArgumentException("bits needs hashes or capacity (to choose the best hashes)");
                }
                BloomSize size = BloomSizing.forMemory(bits / 8, capacity);
                return new BloomFilter(BloomLayout.SECTORED, bits, size.hashes(), capacity, size.expectedFpp());
            }
            long keys = capacity > 0 ? capacity : halfFullCapacity(bits, hashes);
            return new BloomFilter(BloomLayout.SECTORED, bits, hashes, keys, BloomSizing.fpp(bits, hashes, keys));
        }

        private static long halfFullCapacity(long bits, int hashes) {
            double perBlock = BloomLayout.SECTORED.keysPerBlockAtFill(0.5, hashes);
            long blocks = bits / BlockHash.BLOCK_BITS; // exact: bits is a multiple of the block
            return Math.max(1, Math.round(perBlock * blocks));
        }
    }
}
