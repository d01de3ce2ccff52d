package dev.deja.cuckoo;

import dev.deja.checks.Require;
import dev.deja.hash.Hash128;
import dev.deja.seen.ErrorEstimate;
import dev.deja.seen.Guarantee;
import dev.deja.seen.HashedSeenSet;
import dev.deja.seen.SeenStats;
import dev.deja.seen.Verdict;
import java.util.Arrays;
import java.util.concurrent.locks.StampedLock;

/**
 * A cuckoo filter: a seen-set that, unlike a Bloom filter, can forget a key. It follows Fan, Andersen, Kaminsky and
 * Mitzenmacher, "Cuckoo Filter: Practically Better Than Bloom" (CoNEXT 2014), with partial-key cuckoo hashing, and
 * grows as RedisBloom's cuckoo filters do: when the newest table cannot take a key, a table {@code expansion} times
 * larger is added and later keys go there, while lookups ask every table.
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
    /** The most slots one table may have: the largest Java array of 16-bit fingerprints used here. */
    static final long MAX_SLOTS = 1L << 30;

    private static final int FINGERPRINT_VALUES = 65535; // 16 bits, 0 meaning empty

    private final long capacity;
    private final int bucketSize;
    private final int maxIterations;
    private final int expansion;
    private final StampedLock lock = new StampedLock();
    /** The tables, oldest first; replaced (never changed in place) when one is added, so a lookup reads it whole. */
    private volatile Table[] tables;
    /** Fingerprints held, all tables together; read and written under the lock. */
    private long items;
    /** Copies removed by forget since creation, as RedisBloom's CF.INFO reports; under the lock. */
    private long deletes;

    private CuckooFilter(long capacity, int bucketSize, int maxIterations, int expansion, Table[] tables) {
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
        Table first = new Table(bucketsFor(capacity, bucketSize), bucketSize);
        return new CuckooFilter(capacity, bucketSize, maxIterations, expansion, new Table[] {first});
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
     * (also, rarely, for a key never added: see the class comment). Never {@link Verdict#RETRY}.
     *
     * @throws CuckooFullException when the key is new and the filter may not grow and has no room for it; the filter
     *                             is unchanged
     */
    @Override
    public Verdict checkThenAddHash(long high, long low, long owner) {
        long stamp = lock.writeLock();
        try {
            if (countLocked(high, low, /* stopAtFirst= */ true) > 0) {
                return Verdict.DUPLICATE;
            }
            insertLocked(high, low);
            return Verdict.NEW;
        } finally {
            lock.unlockWrite(stamp);
        }
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
            Table[] all = tables;
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
        for (Table table : tables) {
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
        Table[] all = tables;
        if (all[all.length - 1].insert(high, fp, maxIterations)) {
            items++;
            return;
        }
        if (expansion == 0) {
            throw new CuckooFullException("the cuckoo filter is full (" + items + " items in "
                    + all[all.length - 1].slots() + " slots) and may not grow (expansion 0)");
        }
        Table last = all[all.length - 1];
        long buckets = Math.multiplyExact(last.buckets(), nextPowerOfTwo(expansion));
        if (buckets > MAX_SLOTS / bucketSize) {
            throw new CuckooFullException(
                    "the cuckoo filter is full: its next table would pass " + MAX_SLOTS + " slots");
        }
        Table added = new Table(buckets, bucketSize);
        if (!added.insert(high, fp, maxIterations)) {
            throw new IllegalStateException("an empty cuckoo table refused a key"); // both buckets are empty
        }
        Table[] grown = Arrays.copyOf(all, all.length + 1);
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

    /** Buckets of all tables together. */
    public long buckets() {
        long n = 0;
        for (Table t : tables) {
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
            for (Table t : tables) {
                slots += t.slots();
                fpp += 2.0 * bucketSize * ((double) t.held / t.slots()) / FINGERPRINT_VALUES;
            }
            return new ErrorEstimate.Cuckoo(
                    (double) items / slots, Math.min(1, fpp), 2.0 * bucketSize / FINGERPRINT_VALUES);
        } finally {
            lock.unlockRead(stamp);
        }
    }

    /**
     * One table: {@code buckets * bucketSize} 16-bit slots, bucket {@code b} at slots {@code [b * bucketSize, (b + 1)
     * * bucketSize)}. Changed only under the filter's write lock.
     */
    private static final class Table {
        private final short[] slots;
        private final long mask;
        private final int bucketSize;
        /** Fingerprints held in this table. */
        long held;

        Table(long buckets, int bucketSize) {
            this.slots = new short[Math.toIntExact(buckets * bucketSize)];
            this.mask = buckets - 1;
            this.bucketSize = bucketSize;
        }

        long buckets() {
            return mask + 1;
        }

        long slots() {
            return slots.length;
        }

        private int first(long high) {
            return (int) (high & mask);
        }

        /** The other bucket of a fingerprint in {@code bucket}; applied twice it gives {@code bucket} back. */
        private int other(int bucket, short fp) {
            long mixed = (fp & 0xFFFFL) * 0x5bd1e995L; // MurmurHash2's multiplier spreads the 16 bits over the mask
            mixed ^= mixed >>> 15;
            return (int) ((bucket ^ mixed) & mask);
        }

        int count(long high, short fp) {
            int b1 = first(high);
            int b2 = other(b1, fp);
            int n = countIn(b1, fp);
            return b2 == b1 ? n : n + countIn(b2, fp);
        }

        private int countIn(int bucket, short fp) {
            int n = 0;
            int base = bucket * bucketSize;
            for (int s = 0; s < bucketSize; s++) {
                if (slots[base + s] == fp) {
                    n++;
                }
            }
            return n;
        }

        boolean remove(long high, short fp) {
            int b1 = first(high);
            return removeFrom(b1, fp) || removeFrom(other(b1, fp), fp);
        }

        private boolean removeFrom(int bucket, short fp) {
            int base = bucket * bucketSize;
            for (int s = 0; s < bucketSize; s++) {
                if (slots[base + s] == fp) {
                    slots[base + s] = 0;
                    held--;
                    return true;
                }
            }
            return false;
        }

        private boolean putIn(int bucket, short fp) {
            int base = bucket * bucketSize;
            for (int s = 0; s < bucketSize; s++) {
                if (slots[base + s] == 0) {
                    slots[base + s] = fp;
                    held++;
                    return true;
                }
            }
            return false;
        }

        /** Inserts the fingerprint, moving others up to {@code maxIterations} times; false, unchanged, if it cannot. */
        boolean insert(long high, short fp, int maxIterations) {
            int b1 = first(high);
            int b2 = other(b1, fp);
            if (putIn(b1, fp) || putIn(b2, fp)) {
                return true;
            }
            int[] path = new int[maxIterations]; // the slot of each move, to undo them
            short homeless = fp;
            int bucket = (fp & 1) == 0 ? b1 : b2;
            for (int move = 0; move < maxIterations; move++) {
                int slot = bucket * bucketSize + Math.floorMod(move + homeless, bucketSize);
                path[move] = slot;
                short evicted = slots[slot];
                slots[slot] = homeless;
                homeless = evicted;
                bucket = other(bucket, homeless);
                if (putIn(bucket, homeless)) {
                    return true;
                }
            }
            // undo the moves in reverse: each slot gets back the fingerprint it held before the move
            for (int move = maxIterations - 1; move >= 0; move--) {
                int slot = path[move];
                short placed = slots[slot];
                slots[slot] = homeless;
                homeless = placed;
            }
            return false;
        }
    }
}
