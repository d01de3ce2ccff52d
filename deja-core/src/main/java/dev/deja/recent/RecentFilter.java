package dev.deja.recent;

import dev.deja.checks.Require;
import dev.deja.hash.Hash128;
import dev.deja.seen.ErrorEstimate;
import dev.deja.seen.Guarantee;
import dev.deja.seen.HashedSeenSet;
import dev.deja.seen.SeenStats;
import dev.deja.seen.Verdict;
import dev.deja.sizing.RecentSizing;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.concurrent.atomic.LongAdder;

/**
 * A fixed-memory seen-set that may forget old keys but never reports a new key as seen: the NSQ de-duplication
 * design's "opposite of a Bloom filter", made set-associative.
 *
 * <p>Design. The NSQ de-duplication design (after J. Hodges' "opposite of a Bloom filter") keeps a fixed array of
 * buckets; a key's hash picks a bucket, the bucket stores the key's fingerprint, and a later key that lands in the same
 * bucket simply overwrites it. A lookup answers "seen" only if the bucket holds exactly this fingerprint, so the only
 * error is forgetting (a duplicate slips through), never inventing (a new message dropped). Here the buckets are
 * grouped into {@code S} sets of {@code W} ways ({@code N = S * W}): a key goes to set {@code reduce(high, S)} and is
 * compared with the set's {@code W} fingerprints; a new key enters at the front of its set and the oldest entry falls
 * off the end (FIFO: a lookup does not refresh a key, so a key's survival depends only on how many new keys arrived
 * after it). With {@code W = 1} this is exactly that direct-mapped design. At equal memory, more ways keep a key much
 * longer, because a key is lost only after {@code W} later keys hit its set rather than one (the retention formula is
 * in {@link RecentSizing}; docs/BENCHMARKS.md, section "recent: retention by associativity", measures it); 8 ways
 * (one 64-byte cache line of fingerprints) is the default.
 *
 * <p>Layout. The buckets ({@link RecentBuckets}) keep a set's {@code W} fingerprints contiguous, newest first, so a
 * lookup reads one cache line (for {@code W <= 8}) and stops at the first empty slot; fingerprints are the 64-bit
 * {@code low} half of the key hash, with 0 reserved for "empty" (a hash whose {@code low} is 0 uses
 * {@link #ZERO_FINGERPRINT} instead). Owners (a partition and offset in Tapjoy's Redis design), when enabled, live in a
 * parallel array with the same layout.
 *
 * <p>Error. A fresh key is reported {@code DUPLICATE} only if its fingerprint equals one of the at most {@code W}
 * fingerprints stored in its set; the set index and the fingerprint come from independent halves of the hash,
 * so this happens with probability at most {@code (W + 1) / 2^64} per call (the +1 for the remapped zero).
 *
 * <p>Concurrency. Every operation on a set runs under that set's lock stripe, so {@code checkThenAdd} and
 * {@code forget} are atomic and linearizable per key: of many threads racing on one new key, exactly one is told
 * {@link Verdict#NEW}. {@code forget} erases only if the set still holds our fingerprint (and our owner, when one is
 * given): the NSQ design's case of a failed message, where blindly clearing the bucket would erase a newer key.
 */
public final class RecentFilter implements HashedSeenSet {

    /** The associativity used unless the builder says otherwise: one 64-byte cache line of fingerprints. */
    public static final int DEFAULT_WAYS = 8;
    /** The fingerprint stored for a key whose hash has {@code low == 0}, since 0 marks an empty slot. */
    public static final long ZERO_FINGERPRINT = 0x9E3779B97F4A7C15L;
    /** Retention probability reported by {@link #stats()}. */
    private static final double ESTIMATE_PROBABILITY = 0.9;

    private final RecentBuckets table;
    private final LongAdder insertions = new LongAdder();
    private final long keysHeldAt90Percent;

    RecentFilter(long buckets, int ways, boolean withOwners, int chunkShift) {
        this(
                new RecentBuckets(
                        checkedBuckets(buckets, ways),
                        ways,
                        new LongChunks(buckets, chunkShift),
                        withOwners ? new LongChunks(buckets, chunkShift) : null),
                0);
    }

    /** A filter over buckets already filled (by {@link RecentCodec}), which recorded {@code insertions} keys. */
    private RecentFilter(RecentBuckets table, long insertions) {
        this.table = table;
        this.insertions.add(insertions);
        this.keysHeldAt90Percent = RecentSizing.keysHeld(table.buckets(), table.ways(), ESTIMATE_PROBABILITY);
    }

    /** The buckets, or an exception when they and the ways are not a valid shape: checked before allocating. */
    private static long checkedBuckets(long buckets, int ways) {
        RecentSizing.checkShape(buckets, ways);
        return buckets;
    }

    /** A builder; one of {@link Builder#buckets} or {@link Builder#forRetention} must be called. */
    public static Builder builder() {
        return new Builder();
    }

    /** Total buckets (fingerprint slots). */
    public long buckets() {
        return table.buckets();
    }

    /** Buckets per set. */
    public int ways() {
        return table.ways();
    }

    /** Whether each key's owner is kept (and {@link Verdict#RETRY} can be answered). */
    public boolean hasOwners() {
        return table.hasOwners();
    }

    @Override
    public boolean checkHash(long high, long low) {
        long set = setOf(high);
        long fp = fingerprint(low);
        synchronized (table.lockFor(set)) {
            return table.find(set * table.ways(), fp) >= 0;
        }
    }

    @Override
    public void addHash(long high, long low, long owner) {
        checkThenAddHash(high, low, owner);
    }

    @Override
    public Verdict checkThenAddHash(long high, long low, long owner) {
        checkOwner(owner);
        long set = setOf(high);
        long fp = fingerprint(low);
        long base = set * table.ways();
        synchronized (table.lockFor(set)) {
            int way = table.find(base, fp);
            if (way >= 0) {
                boolean sameOwner = table.hasOwners() && owner != NO_OWNER && table.ownerAt(base + way) == owner;
                return sameOwner ? Verdict.RETRY : Verdict.DUPLICATE;
            }
            table.insert(base, fp, owner);
        }
        insertions.increment();
        return Verdict.NEW;
    }

    /** {@link #checkThenAddHash} for each key, after checking every owner, so a refused batch records nothing. */
    @Override
    public void checkThenAddHashes(long[] hashes, long[] owners, Verdict[] out) {
        Require.hashBatch(hashes, owners, out); // a malformed batch is named as such before its owners are read
        checkOwners(owners);
        HashedSeenSet.super.checkThenAddHashes(hashes, owners, out);
    }

    /** {@link #forgetHash} for each key, after checking every owner, so a refused batch erases nothing. */
    @Override
    public void forgetHashes(long[] hashes, long[] owners, boolean[] out) {
        Require.hashBatch(hashes, owners, out);
        checkOwners(owners);
        HashedSeenSet.super.forgetHashes(hashes, owners, out);
    }

    @Override
    public boolean forgetHash(long high, long low, long owner) {
        checkOwner(owner);
        long set = setOf(high);
        long fp = fingerprint(low);
        long base = set * table.ways();
        synchronized (table.lockFor(set)) {
            int way = table.find(base, fp);
            if (way < 0 || (owner != NO_OWNER && table.ownerAt(base + way) != owner)) {
                return false;
            }
            table.remove(base, way);
            return true;
        }
    }

    @Override
    public Guarantee guarantee() {
        return Guarantee.NEVER_FALSE_DUPLICATE;
    }

    /** Statistics; the estimate is how many later keys a key survives with probability 0.9. */
    @Override
    public SeenStats stats() {
        return new SeenStats(
                "recent",
                guarantee(),
                insertions.sum(),
                table.buckets() * RecentSizing.bytesPerBucket(table.hasOwners()),
                new ErrorEstimate.Recent(keysHeldAt90Percent, table.ways()));
    }

    /**
     * Writes the filter to the stream in the format of {@code docs/FORMAT.md} section 3. Each set is copied under
     * its lock, so concurrent writers may proceed; the image is then consistent per set, not as a whole.
     */
    public void writeTo(OutputStream out) throws IOException {
        RecentCodec.write(table, insertions.sum(), Require.nonNull("out", out));
    }

    /**
     * Reads a filter written by {@link #writeTo}. Memory grows with the body as it arrives, never ahead of it: the
     * arrays' 64 MiB chunks are allocated as the body reaches them and doubled up to their full size, so a stream
     * whose header claims more buckets than it holds fails with an {@link java.io.EOFException} having allocated at
     * most about twice what it held. The price is a copy: while a chunk doubles, up to half a chunk (32 MiB) per
     * array is held beside the filter.
     *
     * @throws java.io.EOFException when the stream ends early
     * @throws IOException          when the bytes are not a valid recent filter (bad magic, version, checksum...)
     */
    public static RecentFilter readFrom(InputStream in) throws IOException {
        return readFrom(in, LongChunks.DEFAULT_SHIFT);
    }

    /** {@link #readFrom(InputStream)} into arrays of chunks of {@code 2^chunkShift} longs. */
    static RecentFilter readFrom(InputStream in, int chunkShift) throws IOException {
        RecentCodec.Content content = RecentCodec.read(Require.nonNull("in", in), chunkShift);
        return new RecentFilter(content.buckets(), content.insertions());
    }

    /** The fingerprint stored for a hash's low half: never {@link RecentBuckets#EMPTY}. */
    static long fingerprint(long low) {
        return low == RecentBuckets.EMPTY ? ZERO_FINGERPRINT : low;
    }

    private long setOf(long high) {
        return Hash128.reduce(high, table.sets());
    }

    private void checkOwner(long owner) {
        if (!table.hasOwners() && owner != NO_OWNER) {
            throw new IllegalArgumentException("owner must be NO_OWNER (0) on a recent filter built without owners"
                    + " (got " + owner + "); build it with owners(true) to keep owners");
        }
    }

    private void checkOwners(long[] owners) {
        if (owners != null && !table.hasOwners()) {
            for (long owner : owners) {
                checkOwner(owner);
            }
        }
    }

    /** Builds a {@link RecentFilter} from validated parameters. */
    public static final class Builder {

        private long buckets = -1;
        private long retentionKeys = -1;
        private double retentionProbability;
        private int ways = DEFAULT_WAYS;
        private boolean owners;
        private int chunkShift = LongChunks.DEFAULT_SHIFT;

        private Builder() {}

        /** Total buckets: a multiple of the ways, at most {@link RecentSizing#MAX_BUCKETS}. */
        public Builder buckets(long buckets) {
            this.buckets = Require.inRange("buckets", buckets, 1, RecentSizing.MAX_BUCKETS);
            return this;
        }

        /** Buckets per set: 1 (the NSQ design's direct-mapped filter), 2, 4, 8 (default) or 16. */
        public Builder ways(int ways) {
            RecentSizing.checkWays(ways);
            this.ways = ways;
            return this;
        }

        /** Whether to keep each key's 64-bit owner, doubling memory; needed for {@link Verdict#RETRY}. */
        public Builder owners(boolean owners) {
            this.owners = owners;
            return this;
        }

        /**
         * Sizes the filter so that a key is still held, with probability at least {@code probabilityHeld}, after
         * {@code keysPerWindow} further new keys (e.g. rate times window), at the configured ways.
         */
        public Builder forRetention(long keysPerWindow, double probabilityHeld) {
            this.retentionKeys = Require.positive("keysPerWindow", keysPerWindow);
            this.retentionProbability = Require.probability("probabilityHeld", probabilityHeld);
            return this;
        }

        /** Chunk size of the bucket arrays, as a power of two; smaller in tests to exercise chunk boundaries. */
        Builder chunkShift(int shift) {
            this.chunkShift = (int) Require.inRange("chunkShift", shift, 4, LongChunks.DEFAULT_SHIFT);
            return this;
        }

        /**
         * The filter.
         *
         * @throws IllegalArgumentException if neither or both of buckets and forRetention were given, or buckets
         *                                  is not a multiple of ways
         */
        public RecentFilter build() {
            return new RecentFilter(resolvedBuckets(), ways, owners, chunkShift);
        }

        /**
         * The number of buckets {@link #build} would give the filter, validated the same way, without allocating
         * it: a caller that only needs the shape (or its memory, {@link RecentSizing#bytesPerBucket}) of a filter
         * that may be gigabytes large asks this.
         *
         * @throws IllegalArgumentException as {@link #build} does
         */
        public long resolvedBuckets() {
            if ((buckets > 0) == (retentionKeys > 0)) {
                throw new IllegalArgumentException("give exactly one of buckets(n) or forRetention(keys, probability)");
            }
            long n = buckets > 0 ? buckets : RecentSizing.bucketsFor(retentionKeys, retentionProbability, ways);
            RecentSizing.checkShape(n, ways);
            return n;
        }
    }
}
