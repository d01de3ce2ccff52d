package dev.deja.bloom;

import dev.deja.checks.Require;
import dev.deja.seen.Guarantee;
import dev.deja.seen.HashedSeenSet;
import dev.deja.seen.SeenStats;
import dev.deja.seen.Verdict;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A Bloom filter that grows as keys arrive, as RedisBloom's are: a chain of {@link BloomFilter}s ("sub-filters"),
 * each {@code expansion} times the capacity of the one before, so that a filter sized for too few keys keeps its
 * false-positive bound instead of filling up.
 *
 * <p>Design. This is the scalable Bloom filter of Almeida, Baquero, Preguiça and Hutchison ("Scalable Bloom
 * Filters", 2007) with RedisBloom's parameters ({@code sb.c}): sub-filter {@code i} (from 0) holds
 * {@code capacity * expansion^i} keys at false-positive probability {@code fpp * 2^-(i+1)}, so the union bound over
 * any number of sub-filters stays below {@code fpp} (the sum of {@code fpp / 2, fpp / 4, ...}). New keys go into the
 * newest sub-filter; once it has recorded its capacity, the next key starts a new one. A lookup asks every
 * sub-filter, newest first. Each sub-filter is deja's blocked filter, so a lookup costs one cache miss per
 * sub-filter; a filter sized close to the keys it will hold stays at one or two.
 *
 * <p>Without scaling ({@code expansion} 0, RedisBloom's {@code NONSCALING}) there is one sub-filter at {@code fpp}
 * itself, and a new key beyond its capacity is refused with {@link BloomFullException} rather than recorded at a
 * growing error. A sub-filter is also refused when it would exceed the largest filter (2^40 bits), after
 * {@link #MAX_FILTERS} sub-filters, or when the {@link MemoryGate} refuses its memory: the gate is how a server keeps
 * a filter that grows inside its memory limit.
 *
 * <p>Concurrency. Lookups take no lock. {@code checkThenAdd} is linearizable per key: keys are serialised by a lock
 * stripe chosen by their hash, so two racing copies of one key are answered {@link Verdict#NEW} once, even when one of
 * them starts a new sub-filter; the chain is an immutable snapshot replaced atomically when it grows. Owners are
 * ignored, {@link Verdict#RETRY} is answered only by the batch call for a key that could not be recorded (see
 * {@link #checkThenAddHashes}), and {@code forget} is not supported, as for {@link BloomFilter}.
 *
 * <p>Serialisation ({@link #writeTo}, {@link #readFrom}): a checksummed header, then each sub-filter, oldest first,
 * in the bloom format (docs/FORMAT.md section 2.7).
 */
public final class ScalingBloomFilter implements HashedSeenSet {

    /** The most sub-filters a filter may have. */
    public static final int MAX_FILTERS = 64;
    /** The largest expansion: RedisBloom takes any, but a larger one reaches the largest filter in one step. */
    public static final int MAX_EXPANSION = 1 << 16;

    private static final double TIGHTENING = 0.5;
    private static final int STRIPES = 1024;

    private final long capacity;
    private final double fpp;
    private final int expansion;
    private final MemoryGate gate;
    private final Object[] stripes = new Object[STRIPES];
    private final Object growing = new Object();
    private volatile Chain chain;
    /** Bytes admitted by the gate for sub-filters after the first, given back by {@link #close()}. */
    private long admitted;

    private volatile String refusal;

    /**
     * Admits the memory of a new sub-filter, the first one excepted (its memory is the filter's own). A gate that
     * refuses throws; the sub-filter is then not made and the key that needed it is refused with
     * {@link BloomFullException} carrying the gate's message.
     */
    public interface MemoryGate {
        /** Admits {@code bytes} more, or throws a RuntimeException saying why not. */
        void admit(long bytes);

        /** Gives back bytes admitted before. */
        void release(long bytes);

        /** A gate that admits everything. */
        MemoryGate UNLIMITED = new MemoryGate() {
            @Override
            public void admit(long bytes) {}

            @Override
            public void release(long bytes) {}
        };
    }

    /** The sub-filters, oldest first, and the keys recorded by the newest. */
    @SuppressWarnings("ArrayRecordComponent") // compared only by identity
    private record Chain(BloomFilter[] filters, AtomicLong newestKeys) {
        BloomFilter newest() {
            return filters[filters.length - 1];
        }
    }

    private ScalingBloomFilter(long capacity, double fpp, int expansion, MemoryGate gate, Chain chain) {
        this.capacity = capacity;
        this.fpp = fpp;
        this.expansion = expansion;
        this.gate = gate;
        this.chain = chain;
        for (int i = 0; i < stripes.length; i++) {
            stripes[i] = new Object();
        }
    }

    /** A builder: capacity and fpp are required; expansion defaults to 2, RedisBloom's. */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public boolean checkHash(long high, long low) {
        return holds(chain, high, low);
    }

    /** Records the key's hash; the owner is ignored. */
    @Override
    public void addHash(long high, long low, long owner) {
        checkThenAddHash(high, low, owner);
    }

    /**
     * Atomically records the key's hash and answers {@link Verdict#NEW} if no sub-filter held it, else
     * {@link Verdict#DUPLICATE}; never {@link Verdict#RETRY}.
     *
     * @throws BloomFullException when the key is new and the filter may not or cannot grow to hold it; the filter is
     *                            unchanged
     */
    @Override
    public Verdict checkThenAddHash(long high, long low, long owner) {
        if (holds(chain, high, low)) {
            return Verdict.DUPLICATE; // bits are never cleared: stays true
        }
        synchronized (stripes[(int) (high >>> 54)]) {
            Chain c = chain;
            if (holds(c, high, low)) {
                return Verdict.DUPLICATE;
            }
            if (c.newestKeys().get() >= capacityOf(c.filters().length - 1)) {
                c = grow(c);
            }
            if (!c.newest().put(high, low)) {
                return Verdict.DUPLICATE; // its bits were set meanwhile by other keys: a false positive
            }
            c.newestKeys().incrementAndGet();
            return Verdict.NEW;
        }
    }

    /**
     * {@link #checkThenAddHash} for each key, except that a key the filter cannot record is answered
     * {@link Verdict#RETRY} rather than thrown, so the keys before and after it are recorded and answered
     * ({@link #refusal()} says why).
     */
    @Override
    public void checkThenAddHashes(long[] hashes, long[] owners, Verdict[] out) {
        Require.hashBatch(hashes, owners, out);
        for (int i = 0; i < out.length; i++) {
            try {
                out[i] = checkThenAddHash(hashes[2 * i], hashes[2 * i + 1], NO_OWNER);
            } catch (BloomFullException full) {
                out[i] = Verdict.RETRY;
            }
        }
    }

    /**
     * Not supported.
     *
     * @throws UnsupportedOperationException always: a Bloom filter cannot erase a key without risking false "new"
     *                                       answers for other keys that share its bits
     */
    @Override
    public boolean forgetHash(long high, long low, long owner) {
        throw new UnsupportedOperationException(BloomFilter.FORGET_UNSUPPORTED);
    }

    @Override
    public Guarantee guarantee() {
        return Guarantee.NEVER_FALSE_NEW;
    }

    /**
     * Statistics over all sub-filters: the mean fill, the probability that a key never recorded is reported seen by
     * any sub-filter ({@code 1 - prod(1 - fpp_i)}), and the target fpp.
     */
    @Override
    public SeenStats stats() {
        return FilterChains.stats("bloom-scaling", chain.filters(), fpp);
    }

    /** Gives the memory the gate admitted for sub-filters back to it; the filter must not be used afterwards. */
    @Override
    public void close() {
        synchronized (growing) {
            gate.release(admitted);
            admitted = 0;
        }
    }

    /** The first sub-filter's capacity. */
    public long capacity() {
        return capacity;
    }

    /** The false-positive probability bound over all sub-filters. */
    public double targetFpp() {
        return fpp;
    }

    /** The growth factor of each sub-filter's capacity over the one before; 0 when the filter does not scale. */
    public int expansion() {
        return expansion;
    }

    /** Whether the filter grows (expansion at least 1). */
    public boolean scales() {
        return expansion > 0;
    }

    /** The number of sub-filters. */
    public int filters() {
        return chain.filters().length;
    }

    /** The sum of the sub-filters' capacities: what the filter holds at its fpp before it grows again. */
    public long totalCapacity() {
        long total = 0;
        for (int i = 0; i < chain.filters().length; i++) {
            total += capacityOf(i);
        }
        return total;
    }

    /** Bytes of heap the sub-filters take when full ({@link BloomFilter#heapBytes} of each). */
    public long heapBytes() {
        long total = 0;
        for (BloomFilter f : chain.filters()) {
            total += BloomFilter.heapBytes(f.bits());
        }
        return total;
    }

    /** Why the last key refused was refused, or null when none was. */
    public String refusal() {
        return refusal;
    }

    /** The heap a filter of these settings takes when full with its first sub-filter only. */
    public static long firstFilterHeapBytes(long capacity, double fpp, int expansion) {
        return BloomFilter.heapBytes(
                newFilter(capacity, fppOf(fpp, expansion, 0)).bits());
    }

    /** The sub-filters, oldest first, as a copy; for serialisation. */
    BloomFilter[] filterArray() {
        return chain.filters().clone();
    }

    long newestKeys() {
        return chain.newestKeys().get();
    }

    private static boolean holds(Chain c, long high, long low) {
        return FilterChains.anyHolds(c.filters(), high, low);
    }

    /** Sub-filter {@code index}'s capacity, {@code capacity * expansion^index}; only for sub-filters that exist. */
    private long capacityOf(int index) {
        long c = capacity;
        for (int i = 0; i < index; i++) {
            c *= expansion; // cannot overflow: grow() refuses a sub-filter whose capacity would
        }
        return c;
    }

    /** Sub-filter {@code index}'s false-positive probability. */
    static double fppOf(double fpp, int expansion, int index) {
        return expansion == 0 ? fpp : fpp * Math.pow(TIGHTENING, index + 1);
    }

    private static BloomFilter newFilter(long capacity, double fpp) {
        return BloomFilter.builder().capacity(capacity).fpp(fpp).build();
    }

    /** The chain with one more sub-filter, unless another thread grew it already; throws when it may not grow. */
    private Chain grow(Chain from) {
        synchronized (growing) {
            Chain c = chain;
            @SuppressWarnings("ReferenceEquality") // the same snapshot, not an equal one: another thread grew it
            boolean grownMeanwhile = c != from;
            return grownMeanwhile ? c : append(c);
        }
    }

    /** Makes and publishes one more sub-filter after those of {@code c}, the current chain; under {@code growing}. */
    private Chain append(Chain c) {
        int next = c.filters().length;
        BloomFilter filter = nextFilter(next);
        long bytes = BloomFilter.heapBytes(filter.bits());
        try {
            gate.admit(bytes);
        } catch (RuntimeException e) {
            throw refuse(
                    "the filter holds " + totalCapacity() + " keys in " + next + " sub-filters and cannot grow: "
                            + e.getMessage(),
                    e);
        }
        admitted += bytes;
        BloomFilter[] filters = Arrays.copyOf(c.filters(), next + 1);
        filters[next] = filter;
        Chain grown = new Chain(filters, new AtomicLong());
        chain = grown;
        return grown;
    }

    /**
     * Adds every key of {@code other} into this filter: sub-filter by sub-filter, their bits ORed, this filter first
     * growing to as many sub-filters as {@code other} has. Both must have the same settings. Sub-filters may then
     * hold more keys than their capacity (as a merged {@link BloomFilter} may), so the fpp bound holds only while
     * the two held different keys in few sub-filters.
     *
     * @throws IllegalArgumentException when the settings differ
     * @throws BloomFullException       when this filter cannot grow to as many sub-filters; nothing is merged then
     */
    public void mergeFrom(ScalingBloomFilter other) {
        Require.nonNull("other", other);
        if (other.capacity != capacity || Double.compare(other.fpp, fpp) != 0 || other.expansion != expansion) {
            throw new IllegalArgumentException(
                    "scaling bloom filters of different settings cannot be merged: " + this + " and " + other);
        }
        BloomFilter[] theirs = other.filterArray();
        synchronized (growing) {
            Chain c = chain;
            while (c.filters().length < theirs.length) {
                c = append(c);
            }
            for (int i = 0; i < theirs.length; i++) {
                c.filters()[i].mergeFrom(theirs[i]);
            }
            if (c.filters().length == theirs.length) {
                long both = c.newestKeys().get() + other.newestKeys();
                c.newestKeys().set(Math.min(both, capacityOf(theirs.length - 1)));
            }
        }
    }

    private BloomFilter nextFilter(int index) {
        if (expansion == 0) {
            throw refuse("non scaling filter is full (" + capacity + " keys)", null);
        }
        if (index >= MAX_FILTERS) {
            throw refuse("the filter has " + MAX_FILTERS + " sub-filters, the most it may have", null);
        }
        long last = capacityOf(index - 1);
        if (last > Long.MAX_VALUE / expansion) {
            throw refuse("the next sub-filter's capacity would overflow", null);
        }
        try {
            return newFilter(last * expansion, fppOf(fpp, expansion, index));
        } catch (IllegalArgumentException e) {
            throw refuse("its next sub-filter would be too large: " + e.getMessage(), e);
        }
    }

    private BloomFullException refuse(String why, Throwable cause) {
        refusal = why;
        return new BloomFullException(why, cause);
    }

    // ---- serialisation ----

    /**
     * Writes the filter in deja's scaling bloom format (docs/FORMAT.md section 2.7); see {@link ScalingBloomCodec}.
     */
    public void writeTo(OutputStream out) throws IOException {
        ScalingBloomCodec.write(Require.nonNull("out", out), this);
    }

    /** {@link #readFrom(InputStream, MemoryGate)} with a gate that admits everything. */
    public static ScalingBloomFilter readFrom(InputStream in) throws IOException {
        return readFrom(in, MemoryGate.UNLIMITED);
    }

    /**
     * Reads a filter written by {@link #writeTo}; the memory of every sub-filter after the first is admitted by the
     * gate before it is read, and given back to it by {@link #close()}.
     *
     * @throws IOException if the stream is not a scaling bloom filter, is corrupt or truncated, or a sub-filter's
     *                     shape is not the one its position implies
     */
    public static ScalingBloomFilter readFrom(InputStream in, MemoryGate gate) throws IOException {
        return ScalingBloomCodec.read(Require.nonNull("in", in), Require.nonNull("gate", gate));
    }

    /** A filter read back: the settings, its sub-filters and the keys its newest one recorded. */
    static ScalingBloomFilter restored(
            long capacity, double fpp, int expansion, MemoryGate gate, BloomFilter[] filters, long newestKeys) {
        ScalingBloomFilter filter =
                new ScalingBloomFilter(capacity, fpp, expansion, gate, new Chain(filters, new AtomicLong(newestKeys)));
        for (int i = 1; i < filters.length; i++) {
            filter.admitted += BloomFilter.heapBytes(filters[i].bits());
        }
        return filter;
    }

    /** The shape sub-filter {@code index} of a filter with these settings has. */
    static BloomFilter expectedFilter(long capacity, double fpp, int expansion, int index) {
        long c = capacity;
        for (int i = 0; i < index; i++) {
            c = Math.multiplyExact(c, expansion);
        }
        return newFilter(c, fppOf(fpp, expansion, index));
    }

    @Override
    public String toString() {
        return "ScalingBloomFilter{capacity=" + capacity + ", fpp=" + fpp + ", expansion=" + expansion + ", filters="
                + filters() + "}";
    }

    /** Validated settings for a {@link ScalingBloomFilter}. */
    public static final class Builder {

        private long capacity = -1;
        private double fpp = Double.NaN;
        private int expansion = 2;
        private MemoryGate gate = MemoryGate.UNLIMITED;

        private Builder() {}

        /** The first sub-filter's capacity; must be > 0. */
        public Builder capacity(long capacity) {
            this.capacity = Require.positive("capacity", capacity);
            return this;
        }

        /** The false-positive probability bound over all sub-filters, in (0, 1). */
        public Builder fpp(double fpp) {
            this.fpp = Require.probability("fpp", fpp);
            return this;
        }

        /** Each sub-filter's capacity over the one before's, in [1, {@link #MAX_EXPANSION}]; 0: never grow. */
        public Builder expansion(int expansion) {
            Require.inRange("expansion", expansion, 0, MAX_EXPANSION);
            this.expansion = expansion;
            return this;
        }

        /** What admits the memory of each sub-filter after the first; admits everything by default. */
        public Builder memoryGate(MemoryGate gate) {
            this.gate = Require.nonNull("gate", gate);
            return this;
        }

        /**
         * The filter, with its first sub-filter (allocated as it fills).
         *
         * @throws IllegalArgumentException if capacity or fpp is missing, or the first sub-filter would exceed the
         *                                  largest filter
         */
        public ScalingBloomFilter build() {
            if (capacity < 0 || Double.isNaN(fpp)) {
                throw new IllegalArgumentException("a scaling bloom filter needs capacity and fpp (got capacity="
                        + capacity + ", fpp=" + fpp + ")");
            }
            BloomFilter first = newFilter(capacity, fppOf(fpp, expansion, 0));
            return new ScalingBloomFilter(
                    capacity, fpp, expansion, gate, new Chain(new BloomFilter[] {first}, new AtomicLong()));
        }
    }
}
