package dev.deja.bloom;

import com.dynatrace.hash4j.hashing.HashValue128;
import com.dynatrace.hash4j.hashing.Hasher128;
import com.dynatrace.hash4j.hashing.Hashing;
import dev.deja.checks.Require;
import dev.deja.seen.ErrorEstimate;
import dev.deja.seen.Guarantee;
import dev.deja.seen.SeenSet;
import dev.deja.seen.SeenStats;
import dev.deja.seen.Verdict;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A Bloom filter migrated from Guava's {@code BloomFilter.writeTo}, answering exactly as Guava's {@code mightContain}
 * and {@code put} would; read one with {@link GuavaBloomFilters#read}.
 *
 * <p>It keeps Guava's own layout and hashing so that no answer changes on migration (such a filter, in base64, is
 * how a per-user "seen" set is often kept in a cookie): the bits are Guava's {@code LockFreeBitArray} words
 * ({@code data.length * 64} bits, bit {@code i} in word {@code i >>> 6} at {@code 1L << i}), and the {@code k}
 * indexes follow its {@code MURMUR128_MITZ_64} strategy: Murmur3 x64 128 (seed 0) of the key's bytes gives
 * {@code h1, h2}, and index {@code i} is {@code ((h1 + i * h2) & Long.MAX_VALUE) % bits}. Murmur3 comes from hash4j
 * ({@code Hashing.murmur3_128()}), whose output equals Guava's, so it is not reimplemented here.
 *
 * <p>Because its hash is Murmur3, not deja's XXH3-128, it is a {@link SeenSet} on keys rather than a
 * {@code HashedSeenSet}. Its adds are atomic ORs: a key's bits are spread over the whole array, not kept in one
 * block, so {@link BlockLocks} does not fit it. Like {@link BloomFilter}, {@code checkThenAdd} is linearizable per key
 * through a lock striped by {@code h1} (the same key always takes the same stripe, since its bits are spread over the
 * whole array), owners are ignored, it never answers {@link Verdict#RETRY}, and {@code forget} is not supported.
 *
 * <p>Unlike deja's own stores it takes the empty key, because Guava does: a filter into which Guava put {@code ""}
 * must still hold it after migration. Null keys are refused.
 */
public final class GuavaBloomFilter implements SeenSet {

    /** Guava's ordinal for its {@code MURMUR128_MITZ_64} strategy, the one every Guava since 14 writes. */
    static final int MURMUR128_MITZ_64 = 1;

    /**
     * The Guava funnel the filter's keys were put with. Both funnels feed Murmur3 the same bytes (a string funnel
     * feeds its UTF-8 encoding), so both are answered by the same code: pass byte keys for {@link #BYTE_ARRAY} and
     * strings (or their UTF-8 bytes) for {@link #UTF8_STRING}.
     */
    public enum Funnel {
        /** {@code Funnels.byteArrayFunnel()}. */
        BYTE_ARRAY,
        /** {@code Funnels.stringFunnel(StandardCharsets.UTF_8)}. */
        UTF8_STRING
    }

    private static final Hasher128 MURMUR3_128 = Hashing.murmur3_128();
    private static final VarHandle WORD = MethodHandles.arrayElementVarHandle(long[].class);

    private final long[] data;
    private final int hashes;
    private final long bits;
    private final Funnel funnel;
    private final Object[] stripes = new Object[BlockLocks.STRIPES];

    GuavaBloomFilter(long[] data, int hashes, Funnel funnel) {
        this.data = data;
        this.hashes = hashes;
        this.bits = (long) data.length * Long.SIZE;
        this.funnel = funnel;
        for (int i = 0; i < stripes.length; i++) {
            stripes[i] = new Object();
        }
    }

    @Override
    public boolean check(byte[] key) {
        HashValue128 h = MURMUR3_128.hashBytesTo128Bits(Require.nonNull("key", key));
        long h1 = h.getLeastSignificantBits();
        long h2 = h.getMostSignificantBits();
        long combined = h1;
        for (int i = 0; i < hashes; i++) {
            long index = (combined & Long.MAX_VALUE) % bits;
            if (((long) WORD.getAcquire(data, (int) (index >>> 6)) & (1L << index)) == 0) {
                return false;
            }
            combined += h2;
        }
        return true;
    }

    /** Records the key as Guava's {@code put} does; the owner is ignored. */
    @Override
    public void add(byte[] key, long owner) {
        put(key);
    }

    /** {@link Verdict#NEW} exactly when Guava's {@code put} would return true; never {@link Verdict#RETRY}. */
    @Override
    public Verdict checkThenAdd(byte[] key, long owner) {
        if (check(key)) {
            return Verdict.DUPLICATE;
        }
        long h1 = MURMUR3_128.hashBytesTo128Bits(key).getLeastSignificantBits();
        synchronized (stripes[(int) h1 & (stripes.length - 1)]) {
            return put(key) ? Verdict.NEW : Verdict.DUPLICATE;
        }
    }

    /**
     * Not supported.
     *
     * @throws UnsupportedOperationException always: a Bloom filter cannot erase a key without risking false "new"
     *                                       answers for other keys that share its bits
     */
    @Override
    public boolean forget(byte[] key, long owner) {
        throw new UnsupportedOperationException(BloomFilter.FORGET_UNSUPPORTED);
    }

    @Override
    public Guarantee guarantee() {
        return Guarantee.NEVER_FALSE_NEW;
    }

    /**
     * Statistics as Guava computes them: current fpp {@code fill^k} (its {@code expectedFpp}), count estimated from
     * the fill (its {@code approximateElementCount}); the target is {@code 2^-k}, the fpp at capacity of a filter
     * Guava sized with this {@code k}.
     */
    @Override
    public SeenStats stats() {
        long set = 0;
        for (int i = 0; i < data.length; i++) {
            set += Long.bitCount((long) WORD.getAcquire(data, i));
        }
        double fill = (double) set / bits;
        // With every bit set -ln(1 - fill) is infinite (Guava's own estimate throws); as BloomFilter does, such a
        // filter reports the keys it takes to set all but one bit, a lower bound, rather than 2^63 - 1.
        double countedFill = Math.min(fill, 1.0 - 1.0 / bits);
        long count = Math.round(-Math.log1p(-countedFill) * bits / hashes);
        ErrorEstimate.Bloom estimate = new ErrorEstimate.Bloom(fill, Math.pow(fill, hashes), Math.pow(0.5, hashes));
        return new SeenStats("bloom-guava", guarantee(), count, 8L * data.length, estimate);
    }

    /** Total bits ({@code 64 *} the number of words). */
    public long bits() {
        return bits;
    }

    /** Number of hash functions (k). */
    public int hashes() {
        return hashes;
    }

    /** The funnel the keys were declared with when reading. */
    public Funnel funnel() {
        return funnel;
    }

    /** Writes the filter back in Guava's format, readable by Guava's {@code BloomFilter.readFrom}. */
    public void writeTo(OutputStream out) throws IOException {
        DataOutputStream dout = new DataOutputStream(Require.nonNull("out", out));
        dout.writeByte(MURMUR128_MITZ_64);
        dout.writeByte(hashes);
        dout.writeInt(data.length);
        for (int i = 0; i < data.length; i++) {
            dout.writeLong((long) WORD.getAcquire(data, i));
        }
        dout.flush();
    }

    /** Guava's {@code put}: sets the key's bits and says whether any was clear. */
    private boolean put(byte[] key) {
        HashValue128 h = MURMUR3_128.hashBytesTo128Bits(Require.nonNull("key", key));
        long h2 = h.getMostSignificantBits();
        long combined = h.getLeastSignificantBits();
        boolean changed = false;
        for (int i = 0; i < hashes; i++) {
            long index = (combined & Long.MAX_VALUE) % bits;
            long bit = 1L << index;
            changed |= ((long) WORD.getAndBitwiseOr(data, (int) (index >>> 6), bit) & bit) == 0;
            combined += h2;
        }
        return changed;
    }
}
