package dev.deja.recent;

import dev.deja.seen.SeenSet;

/**
 * The buckets of a {@link RecentFilter}: {@code S} sets of {@code W} fingerprint slots, newest first and empty slots
 * last, an owner per slot in a parallel array when owners are kept, and the lock stripes that guard the sets.
 *
 * <p>The {@code W} fingerprints of a set are contiguous, so a lookup reads one cache line (for {@code W <= 8}) and
 * stops at the first empty slot. The arrays are chunked ({@link LongChunks}) so a filter may exceed 2^31 buckets.
 * Every access to a set, whether to read, change or copy it, holds the set's stripe ({@link #lockFor}).
 */
final class RecentBuckets {

    /** The content of an empty slot; {@link RecentFilter} never stores it as a fingerprint. */
    static final long EMPTY = 0L;
    /** Enough lock stripes that two threads rarely share one, few enough to cost nothing (64 KiB). */
    private static final int MAX_STRIPES = 4096;

    private final long buckets;
    private final int ways;
    private final long sets;
    private final LongChunks fingerprints;
    private final LongChunks owners; // null when owners are not kept
    private final Object[] locks;
    private final int lockMask;

    /** Buckets over the given arrays, of a shape already checked; {@code owners} is null when owners are not kept. */
    RecentBuckets(long buckets, int ways, LongChunks fingerprints, LongChunks owners) {
        this.buckets = buckets;
        this.ways = ways;
        this.sets = buckets / ways;
        this.fingerprints = fingerprints;
        this.owners = owners;
        int stripes = (int) Math.min(MAX_STRIPES, Long.highestOneBit(sets));
        this.locks = new Object[stripes];
        for (int i = 0; i < stripes; i++) {
            locks[i] = new Object();
        }
        this.lockMask = stripes - 1;
    }

    /** Total buckets (fingerprint slots). */
    long buckets() {
        return buckets;
    }

    /** Buckets per set. */
    int ways() {
        return ways;
    }

    /** Number of sets. */
    long sets() {
        return sets;
    }

    /** Whether each slot also keeps its key's owner. */
    boolean hasOwners() {
        return owners != null;
    }

    /** The fingerprint slots, set {@code s} at {@code s * ways}. */
    LongChunks fingerprints() {
        return fingerprints;
    }

    /** The owner slots, laid out as the fingerprints; null when owners are not kept. */
    LongChunks owners() {
        return owners;
    }

    /** The lock to hold while reading or changing set {@code set}. */
    Object lockFor(long set) {
        return locks[(int) (set & lockMask)];
    }

    /** The way holding {@code fp} in the set starting at {@code base}, or -1; under the set's lock. */
    int find(long base, long fp) {
        long[] chunk = fingerprints.chunk(base);
        int off = fingerprints.offset(base);
        for (int i = 0; i < ways; i++) {
            long v = chunk[off + i];
            if (v == fp) {
                return i;
            }
            if (v == EMPTY) { // empty slots are always at the end of a set
                return -1;
            }
        }
        return -1;
    }

    /** The owner kept in slot {@code index}, or {@link SeenSet#NO_OWNER} when owners are not kept. */
    long ownerAt(long index) {
        return owners == null ? SeenSet.NO_OWNER : owners.chunk(index)[owners.offset(index)];
    }

    /** Puts a key at the front of its set; the oldest entry falls off the end. Under the set's lock. */
    void insert(long base, long fp, long owner) {
        move(base, 0, 1, ways - 1);
        put(base, 0, fp, owner);
    }

    /** Erases one way, keeping the others in order and the empty slots at the end. Under the set's lock. */
    void remove(long base, int way) {
        move(base, way + 1, way, ways - 1 - way);
        put(base, ways - 1, EMPTY, SeenSet.NO_OWNER);
    }

    /** Moves {@code length} ways of the set at {@code base} from way {@code from} to way {@code to}, owners too. */
    private void move(long base, int from, int to, int length) {
        move(fingerprints, base, from, to, length);
        if (owners != null) {
            move(owners, base, from, to, length);
        }
    }

    private static void move(LongChunks array, long base, int from, int to, int length) {
        long[] chunk = array.chunk(base);
        int off = array.offset(base);
        System.arraycopy(chunk, off + from, chunk, off + to, length);
    }

    /** Stores a fingerprint in way {@code way} of the set at {@code base}, and its owner when owners are kept. */
    private void put(long base, int way, long fp, long owner) {
        fingerprints.chunk(base)[fingerprints.offset(base) + way] = fp;
        if (owners != null) {
            owners.chunk(base)[owners.offset(base) + way] = owner;
        }
    }
}
