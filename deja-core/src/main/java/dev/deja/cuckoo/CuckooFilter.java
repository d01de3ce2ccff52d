package dev.deja.cuckoo;

import dev.deja.checks.Require;
import dev.deja.hash.Hash128;
import dev.deja.seen.ErrorEstimate;
import dev.deja.seen.Guarantee;
import dev.deja.seen.HashedSeenSet;
import dev.deja.seen.SeenStats;
import dev.deja.seen.Verdict;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.concurrent.locks.StampedLock;

/**
 * A cuckoo filter: a seen-set that, unlike a Bloom filter, can forget a key. It follows Fan, Andersen, Kaminsky and
 * Mitzenmacher, "Cuckoo Filter: Practically Better Than Bloom" (CoNEXT 2014), with partial-key cuckoo hashing, and
 * grows as RedisBloom's cuckoo filters do: when the newest table cannot take a key, a table {@code expansion} times
 * larger is added and later keys go there, while lookups ask every table; at most {@link #MAX_TABLES} tables.
 *
 * <p>Layout. A table is {@code buckets} (a power of two) buckets of {@code bucketSize} slots, each slot a 16-bit
 * fingerprint or 0 for empty. A key's 128-bit hash ({@link Hash128}) gives its fingerprint (the top 16 bits of the low
 * half, 0 mapped to 1) and its first bucket {@code i1} (the high half modulo the bucket count); its second bucket is
 * {@code i2 = i1 XOR mix(fingerprint)}, so either bucket and the fingerprint give the other, and a fingerprint can be
 * moved without the key. A key is held while its fingerprint is in one of its two buckets.
 *
 * <p>Inserting. A fingerprint goes to a free slot of {@code i1} or {@code i2}; when both are full, it takes a slot and
 * the fingerprint it evicts moves to its own other bucket, and so on, up to {@code maxIterations} moves. The slot
 * taken at each move is chosen by the move's number and the fingerprint, not at random, so the same calls on the same
 * filter always leave it in the same state (a journal replayed from a snapshot rebuilds it exactly). If the moves run
 * out, they are undone in reverse, so the filter is as it was: then a growing filter adds a table and inserts there,
 * and a filter that may not grow ({@code expansion} 0) refuses the key with {@link CuckooFullException}. An insert
 * therefore never loses a key already held.
 *
 * <p>The error it may make ({@link Guarantee#NEVER_FALSE_NEW}). A key never added is reported seen when a table holds
 * its fingerprint in one of its buckets: at most {@code 2 * bucketSize / 65535} per table for a full table (so about
 * {@code 6.1e-5} with the default bucket size of 2), times the number of tables; {@link #errorEstimate()} gives the
 * bound at the current load. A key added is never reported new, as long as only keys that were added are forgotten:
 * forgetting a key never added may remove the fingerprint of another key that shares it and a bucket, which is then
 * reported new. As in RedisBloom, the same key may be held several times ({@link #insertHash}, {@link #countHash}),
 * and a forget removes one copy. Owners are not stored, so {@code checkThenAdd} never answers {@link Verdict#RETRY}.
 *
 * <p>Concurrency. Writes take one lock for the whole filter (a move may touch many buckets). Lookups take none: they
 * read optimistically and read again under the lock only if a write ran meanwhile, so a lookup never misses a key
 * that a concurrent move carries from one bucket to the other.
 */
public final class CuckooFilter implements HashedSeenSet {

    /** Slots per bucket when none is given, as in RedisBloom. */
    public static final int DEFAULT_BUCKET_SIZE = 2;
    /** Moves an insert may make before it gives up on a table, as in RedisBloom. */
    public static final int DEFAULT_MAX_ITERATIONS = 20;
    /** Growth factor of each added table when none is given, as in RedisBloom. */
    public static final int DEFAULT_EXPANSION = 1;
    /** The largest bucket size accepted, as in RedisBloom. */
    public static final int MAX_BUCKET_SIZE = 255;
    /** The largest expansion accepted, as in RedisBloom. */
    public static final int MAX_EXPANSION = 32768;
    /** The most tables a filter may have, as in RedisBloom ("Maximum expansions reached"). */
    public static final int MAX_TABLES = 32;
    /** The most slots one table may have: the largest Java array of 16-bit fingerprints used here. */
    static final long MAX_SLOTS = 1L << 30;

    /**
     * The owner that makes {@link #checkThenAddHash} insert one more copy of the key whether it is held or not
     * (RedisBloom's {@code CF.ADD}), and answer {@link Verdict#NEW}; every other owner adds the key only when it is
     * not held ({@code CF.ADDNX}). Passed as the owner so that a journal records which of the two a change was, and
     * replays it the same way.
     */
    public static final long ANOTHER_COPY = -1L;

    private static final int FINGERPRINT_VALUES = 65535; // 16 bits, 0 meaning empty

    private final long capacity;
    private final int bucketSize;
    private final int maxIterations;
    private final int expansion;
    private final StampedLock lock = new StampedLock();
    /** The tables, oldest first; replaced (never changed in place) when one is added, so a lookup reads it whole. */
    private volatile CuckooTable[] tables;
    /** Fingerprints held, all tables together; read and written under the lock. */
    private long items;
    /** Copies removed by forget since creation, as RedisBloom's CF.INFO reports; under the lock. */
    private long deletes;

    private CuckooFilter(long capacity, int bucketSize, int maxIterations, int expansion, CuckooTable[] tables) {
        this.capacity = capacity;
        this.bucketSize = bucketSize;
        this.maxIterations = maxIterations;
        this.expansion = expansion;
        this.tables = tables;
    }

    /**
     * An empty filter for {@code capacity} keys; its first table has {@code nextPowerOfTwo(capacity / bucketSize)}
     * buckets.
     *
     * @param capacity      keys the first table is sized for, at least 1
     * @param bucketSize    slots per bucket, 1 to {@value #MAX_BUCKET_SIZE}
     * @param maxIterations moves an insert may make in a table, 1 to 65535
     * @param expansion     growth of each added table, 0 (never grow: a full filter refuses keys) to
     *                      {@value #MAX_EXPANSION}
     * @throws IllegalArgumentException for a value out of range, or a table over 2^30 slots
     */
    public static CuckooFilter create(long capacity, int bucketSize, int maxIterations, int expansion) {
        Require.inRange("capacity", capacity, 1, Long.MAX_VALUE);
        Require.inRange("bucketSize", bucketSize, 1, MAX_BUCKET_SIZE);
        Require.inRange("maxIterations", maxIterations, 1, 65535);
        Require.inRange("expansion", expansion, 0, MAX_EXPANSION);
        CuckooTable first = new CuckooTable(bucketsFor(capacity, bucketSize), bucketSize);
        return new CuckooFilter(capacity, bucketSize, maxIterations, expansion, new CuckooTable[] {first});
    }

    /** {@link #create} with RedisBloom's defaults: 2 slots per bucket, 20 moves, expansion 1. */
    public static CuckooFilter create(long capacity) {
        return create(capacity, DEFAULT_BUCKET_SIZE, DEFAULT_MAX_ITERATIONS, DEFAULT_EXPANSION);
    }

    private static long bucketsFor(long capacity, int bucketSize) {
        long wanted = Math.max(1, (capacity + bucketSize - 1) / bucketSize);
        long buckets = Long.highestOneBit(wanted) == wanted ? wanted : Long.highestOneBit(wanted) << 1;
        if (buckets <= 0 || buckets > MAX_SLOTS / bucketSize) {
            throw new IllegalArgumentException("a cuckoo table holds at most " + MAX_SLOTS + " slots: capacity "
                    + capacity + " with bucket size " + bucketSize + " needs " + buckets + " buckets");
        }
        return buckets;
    }

    // ---- the seen-set operations ----

    @Override
    public boolean checkHash(long high, long low) {
        return countHash(high, low, /* stopAtFirst= */ true) > 0;
    }

    /** Records the key unless it is held already (one copy per key); the owner is ignored. */
    @Override
    public void addHash(long high, long low, long owner) {
        checkThenAddHash(high, low, owner);
    }

    /**
     * Atomically records the key and answers {@link Verdict#NEW} if it was not held, else {@link Verdict#DUPLICATE}
     * (also, rarely, for a key never added: see the class comment). Never {@link Verdict#RETRY}. With the owner
     * {@link #ANOTHER_COPY}, inserts one more copy whether the key is held or not, and answers {@link Verdict#NEW}.
     *
     * @throws CuckooFullException when the key is to be inserted and the filter may not grow and has no room for it;
     *                             the filter is unchanged
     */
    @Override
    public Verdict checkThenAddHash(long high, long low, long owner) {
        long stamp = lock.writeLock();
        try {
            return addLocked(high, low, owner);
        } finally {
            lock.unlockWrite(stamp);
        }
    }

    /**
     * {@link #checkThenAddHash} for each key of the batch under one lock, except that a key the filter has no room
     * for is answered {@link Verdict#RETRY} (RedisBloom's -1 of {@code CF.INSERT}) rather than thrown, so the keys
     * before and after it are recorded and answered.
     */
    @Override
    public void checkThenAddHashes(long[] hashes, long[] owners, Verdict[] out) {
        Require.hashBatch(hashes, owners, out);
        long stamp = lock.writeLock();
        try {
            for (int i = 0; i < out.length; i++) {
                long owner = owners == null ? NO_OWNER : owners[i];
                try {
                    out[i] = addLocked(hashes[2 * i], hashes[2 * i + 1], owner);
                } catch (CuckooFullException full) {
                    out[i] = Verdict.RETRY;
                }
            }
        } finally {
            lock.unlockWrite(stamp);
        }
    }

    private Verdict addLocked(long high, long low, long owner) {
        if (owner != ANOTHER_COPY && countLocked(high, low, /* stopAtFirst= */ true) > 0) {
            return Verdict.DUPLICATE;
        }
        insertLocked(high, low);
        return Verdict.NEW;
    }

    /**
     * Removes one copy of the key, answering whether one was held; the owner is ignored. Forget only keys that were
     * added: see the class comment.
     */
    @Override
    public boolean forgetHash(long high, long low, long owner) {
        long stamp = lock.writeLock();
        try {
            short fp = fingerprint(low);
            CuckooTable[] all = tables;
            for (int t = all.length - 1; t >= 0; t--) { // newest first, as RedisBloom deletes
                if (all[t].remove(high, fp)) {
                    items--;
                    deletes++;
                    return true;
                }
            }
            return false;
        } finally {
            lock.unlockWrite(stamp);
        }
    }

    /**
     * Records one more copy of the key, held or not (RedisBloom's {@code CF.ADD}).
     *
     * @throws CuckooFullException when the filter may not grow and has no room; the filter is unchanged
     */
    public void insertHash(long high, long low) {
        long stamp = lock.writeLock();
        try {
            insertLocked(high, low);
        } finally {
            lock.unlockWrite(stamp);
        }
    }

    /** {@link #insertHash} of a key's bytes. */
    public void insert(byte[] key) {
        Hash128 h = Hash128.of(Require.key(key));
        insertHash(h.high(), h.low());
    }

    /**
     * How many copies of the key the filter holds: the copies of its fingerprint in its buckets of every table, so
     * possibly more than were added of this key (another key with the same fingerprint and bucket counts too).
     */
    public long countHash(long high, long low) {
        return countHash(high, low, /* stopAtFirst= */ false);
    }

    /** {@link #countHash} of a key's bytes. */
    public long count(byte[] key) {
        Hash128 h = Hash128.of(Require.key(key));
        return countHash(h.high(), h.low());
    }

    private long countHash(long high, long low, boolean stopAtFirst) {
        long stamp = lock.tryOptimisticRead();
        if (stamp != 0) {
            long n = countLocked(high, low, stopAtFirst);
            if (lock.validate(stamp)) {
                return n;
            }
        }
        stamp = lock.readLock();
        try {
            return countLocked(high, low, stopAtFirst);
        } finally {
            lock.unlockRead(stamp);
        }
    }

    private long countLocked(long high, long low, boolean stopAtFirst) {
        short fp = fingerprint(low);
        long n = 0;
        for (CuckooTable table : tables) {
            n += table.count(high, fp);
            if (stopAtFirst && n > 0) {
                return n;
            }
        }
        return n;
    }

    /** Under the write lock: the key's fingerprint into the newest table, growing the filter when that is full. */
    private void insertLocked(long high, long low) {
        short fp = fingerprint(low);
        CuckooTable[] all = tables;
        if (all[all.length - 1].insert(high, fp, maxIterations)) {
            items++;
            return;
        }
        if (expansion == 0) {
            throw new CuckooFullException("the cuckoo filter is full (" + items + " items in "
                    + all[all.length - 1].slots() + " slots) and may not grow (expansion 0)");
        }
        if (all.length >= MAX_TABLES) {
            throw new CuckooFullException(
                    "the cuckoo filter is full: it has the most tables it may have (" + MAX_TABLES + ")");
        }
        CuckooTable last = all[all.length - 1];
        long buckets = Math.multiplyExact(last.buckets(), nextPowerOfTwo(expansion));
        if (buckets > MAX_SLOTS / bucketSize) {
            throw new CuckooFullException(
                    "the cuckoo filter is full: its next table would pass " + MAX_SLOTS + " slots");
        }
        CuckooTable added = new CuckooTable(buckets, bucketSize);
        if (!added.insert(high, fp, maxIterations)) {
            throw new IllegalStateException("an empty cuckoo table refused a key"); // both buckets are empty
        }
        CuckooTable[] grown = Arrays.copyOf(all, all.length + 1);
        grown[all.length] = added;
        tables = grown;
        items++;
    }

    /** The smallest power of two at least {@code n} (n at least 1): RedisBloom rounds the expansion so. */
    private static long nextPowerOfTwo(long n) {
        long p = Long.highestOneBit(n);
        return p == n ? n : p << 1;
    }

    /** A key's 16-bit fingerprint: the top bits of the low half of its hash, never 0 (the empty slot). */
    static short fingerprint(long low) {
        int fp = (int) (low >>> 48);
        return (short) (fp == 0 ? 1 : fp);
    }

    // ---- copies and serialization ----

    /**
     * A copy of the filter as it is now, taken under the lock so that it holds exactly the changes made before it,
     * sharing nothing with this filter (a snapshot's content at its journal position).
     */
    public CuckooFilter copy() {
        long stamp = lock.writeLock();
        try {
            CuckooTable[] all = tables;
            CuckooTable[] copies = new CuckooTable[all.length];
            for (int t = 0; t < all.length; t++) {
                copies[t] = all[t].copy();
            }
            CuckooFilter copy = new CuckooFilter(capacity, bucketSize, maxIterations, expansion, copies);
            copy.items = items;
            copy.deletes = deletes;
            return copy;
        } finally {
            lock.unlockWrite(stamp);
        }
    }

    /**
     * Writes the filter in deja's cuckoo format (docs/FORMAT.md section 2.5): a checksummed header with the shape and
     * counters, then each table's fingerprints and a checksum of them. Holds the filter's lock while it writes, so the
     * stream is one consistent state; write a {@link #copy} to keep writers running meanwhile.
     */
    public void writeTo(OutputStream out) throws IOException {
        long stamp = lock.readLock();
        try {
            CuckooFormat.write(out, this, tables, items, deletes);
        } finally {
            lock.unlockRead(stamp);
        }
    }

    /**
     * Reads a filter written by {@link #writeTo}, checking it whole before it returns one.
     *
     * @throws IOException naming what is wrong when the stream is not a deja cuckoo filter, has an unknown version,
     *                     a corrupt header or table, an impossible shape, or is truncated
     */
    public static CuckooFilter readFrom(InputStream in) throws IOException {
        return CuckooFormat.read(in);
    }

    /** A filter of this shape holding these tables and counters, for {@link CuckooFormat}. */
    static CuckooFilter of(
            long capacity,
            int bucketSize,
            int maxIterations,
            int expansion,
            CuckooTable[] tables,
            long items,
            long deletes) {
        CuckooFilter filter = new CuckooFilter(capacity, bucketSize, maxIterations, expansion, tables);
        filter.items = items;
        filter.deletes = deletes;
        return filter;
    }

    /**
     * Bytes of the first table of a filter of this capacity and bucket size: the heap a new filter takes.
     *
     * @throws IllegalArgumentException when that table would pass 2^30 slots
     */
    public static long firstTableBytes(long capacity, int bucketSize) {
        return 2 * bucketsFor(capacity, bucketSize) * bucketSize;
    }

    /** Buckets of the first table of a filter of this capacity and bucket size (a power of two). */
    static long firstBuckets(long capacity, int bucketSize) {
        return bucketsFor(capacity, bucketSize);
    }

    /** Buckets of the table added after one of {@code buckets}, or -1 when it would pass the slot limit. */
    static long nextBuckets(long buckets, int bucketSize, int expansion) {
        long next = buckets * nextPowerOfTwo(Math.max(1, expansion));
        return next <= 0 || next > MAX_SLOTS / bucketSize ? -1 : next;
    }

    // ---- shape and statistics ----

    /** Keys the first table was sized for. */
    public long capacity() {
        return capacity;
    }

    /** Slots per bucket. */
    public int bucketSize() {
        return bucketSize;
    }

    /** Moves an insert may make in one table. */
    public int maxIterations() {
        return maxIterations;
    }

    /** Growth of each added table; 0 when the filter never grows. */
    public int expansion() {
        return expansion;
    }

    /** Tables (RedisBloom's "sub-filters"), at least one. */
    public int tables() {
        return tables.length;
    }

    /** Buckets of the first table (RedisBloom's "Number of buckets"). */
    public long firstTableBuckets() {
        return tables[0].buckets();
    }

    /** Buckets of all tables together. */
    public long buckets() {
        long n = 0;
        for (CuckooTable t : tables) {
            n += t.buckets();
        }
        return n;
    }

    /** Fingerprints held: keys inserted (every copy) minus those forgotten. */
    public long items() {
        long stamp = lock.readLock();
        try {
            return items;
        } finally {
            lock.unlockRead(stamp);
        }
    }

    /** Copies removed by forget since the filter was created. */
    public long deletes() {
        long stamp = lock.readLock();
        try {
            return deletes;
        } finally {
            lock.unlockRead(stamp);
        }
    }

    /** Bytes of the fingerprint arrays. */
    public long memoryBytes() {
        return 2 * buckets() * bucketSize;
    }

    @Override
    public Guarantee guarantee() {
        return Guarantee.NEVER_FALSE_NEW;
    }

    @Override
    public SeenStats stats() {
        return new SeenStats("cuckoo", guarantee(), items(), memoryBytes(), errorEstimate());
    }

    /**
     * The load (fingerprints held over slots) and the bound on the false-positive probability at that load: each
     * table answers a key never added wrongly when one of its {@code 2 * bucketSize} candidate slots holds the same
     * fingerprint, at most {@code 2 * bucketSize * load / 65535}, summed over the tables. The target is that bound for
     * full tables.
     */
    public ErrorEstimate.Cuckoo errorEstimate() {
        long stamp = lock.readLock();
        try {
            long slots = 0;
            double fpp = 0;
            for (CuckooTable t : tables) {
                slots += t.slots();
                fpp += 2.0 * bucketSize * ((double) t.held / t.slots()) / FINGERPRINT_VALUES;
            }
            return new ErrorEstimate.Cuckoo(
                    (double) items / slots, Math.min(1, fpp), 2.0 * bucketSize / FINGERPRINT_VALUES);
        } finally {
            lock.unlockRead(stamp);
        }
    }
}
