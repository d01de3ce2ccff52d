package dev.deja.cuckoo;

/**
 * One table of a {@link CuckooFilter}: {@code buckets * bucketSize} 16-bit slots, bucket {@code b} at slots
 * {@code [b * bucketSize, (b + 1) * bucketSize)}. Changed only under the filter's write lock.
 */
final class CuckooTable {
    /** The fingerprints, 0 for an empty slot; read and written whole by {@link CuckooFormat}. */
    final short[] slots;

    private final long mask;
    private final int bucketSize;
    /** Fingerprints held in this table. */
    long held;

    CuckooTable(long buckets, int bucketSize) {
        this.slots = new short[Math.toIntExact(buckets * bucketSize)];
        this.mask = buckets - 1;
        this.bucketSize = bucketSize;
    }

    /** A table of these fingerprints (a power-of-two number of buckets of {@code bucketSize} slots). */
    CuckooTable(short[] slots, int bucketSize) {
        this.slots = slots;
        this.mask = (long) (slots.length / bucketSize) - 1;
        this.bucketSize = bucketSize;
        long n = 0;
        for (short fp : slots) {
            if (fp != 0) {
                n++;
            }
        }
        this.held = n;
    }

    /** A copy that shares nothing with this table. */
    CuckooTable copy() {
        return new CuckooTable(slots.clone(), bucketSize);
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
