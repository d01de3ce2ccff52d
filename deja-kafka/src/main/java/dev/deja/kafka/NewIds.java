package dev.deja.kafka;

import java.util.Arrays;

/**
 * The new ids an {@link ExactStateStore} holds in memory until it writes them, up to a capacity: each id's 128-bit
 * hash with its owner and the time it was dated at, in the order they came, found again by hash through an
 * open-addressing table of positions (at most half full, probed linearly). Every id is looked up here once per record,
 * so the table keeps primitives in arrays rather than boxed keys in a map. The arrays start small and double as ids
 * come, so a task that sees few ids holds little memory: about {@value #BYTES_PER_ID} bytes per id.
 */
final class NewIds {

    /** The fewest ids a table holds: a table file of fewer ids than this would be too small to be worth writing. */
    static final int MIN_CAPACITY = 1 << 10;
    /** The most: arrays of this many longs, and a table of twice as many ints, stay well under Java's array limit. */
    static final int MAX_CAPACITY = 1 << 26;
    /** Memory per id held: four longs (the hash's halves, owner, time) and two table slots (up to four otherwise). */
    static final int BYTES_PER_ID = 4 * Long.BYTES + 2 * Integer.BYTES;

    /** The size of the arrays when the first id comes. */
    private static final int FIRST_LENGTH = 1 << 12;

    private final int capacity;
    private long[] high;
    private long[] low;
    private long[] owner;
    private long[] time;
    /** A position plus one per slot; 0 for an empty slot. Twice as many slots as the arrays hold ids. */
    private int[] slots;

    private int size;

    /**
     * Holds up to {@code capacity} ids.
     *
     * @throws IllegalArgumentException unless {@code capacity} is in [{@value #MIN_CAPACITY}, {@value #MAX_CAPACITY}]
     */
    NewIds(int capacity) {
        if (capacity < MIN_CAPACITY || capacity > MAX_CAPACITY) {
            throw new IllegalArgumentException(
                    "new ids in memory must be in [" + MIN_CAPACITY + ", " + MAX_CAPACITY + "], not " + capacity);
        }
        this.capacity = capacity;
        allocate(Math.min(capacity, FIRST_LENGTH));
    }

    /** The position of the id with this hash, or -1 if none is held. */
    int find(long high, long low) {
        int mask = slots.length - 1;
        for (int s = slot(high, low, mask); ; s = (s + 1) & mask) {
            int at = slots[s] - 1;
            if (at < 0) {
                return -1;
            }
            if (this.high[at] == high && this.low[at] == low) {
                return at;
            }
        }
    }

    /**
     * Holds an id that {@link #find} did not find, at the next position.
     *
     * @throws IllegalStateException if the capacity is held already
     */
    void add(long high, long low, long owner, long time) {
        if (size == capacity) {
            throw new IllegalStateException("already holds " + capacity + " new ids; write them first");
        }
        if (size == this.high.length) {
            grow();
        }
        this.high[size] = high;
        this.low[size] = low;
        this.owner[size] = owner;
        this.time[size] = time;
        place(size);
        size++;
    }

    int capacity() {
        return capacity;
    }

    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    boolean isFull() {
        return size == capacity;
    }

    long high(int at) {
        return high[at];
    }

    long low(int at) {
        return low[at];
    }

    long owner(int at) {
        return owner[at];
    }

    long time(int at) {
        return time[at];
    }

    /** Forgets every id, keeping the arrays grown so far for the next ones. */
    void clear() {
        if (size > 0) {
            Arrays.fill(slots, 0);
            size = 0;
        }
    }

    /** Doubles the arrays (up to the capacity) and places every id held again in a table twice as large. */
    private void grow() {
        int length = (int) Math.min(capacity, 2L * high.length);
        long[] h = high;
        long[] l = low;
        long[] o = owner;
        long[] t = time;
        allocate(length);
        System.arraycopy(h, 0, high, 0, size);
        System.arraycopy(l, 0, low, 0, size);
        System.arraycopy(o, 0, owner, 0, size);
        System.arraycopy(t, 0, time, 0, size);
        for (int at = 0; at < size; at++) {
            place(at);
        }
    }

    private void allocate(int length) {
        high = new long[length];
        low = new long[length];
        owner = new long[length];
        time = new long[length];
        slots = new int[Integer.highestOneBit(length - 1) << 2];
    }

    /** Puts the position {@code at} into the first empty slot from its id's first slot. */
    private void place(int at) {
        int mask = slots.length - 1;
        int s = slot(high[at], low[at], mask);
        while (slots[s] != 0) {
            s = (s + 1) & mask;
        }
        slots[s] = at + 1;
    }

    /** The id's first slot: the hash's low bits, which are as random as any. */
    private static int slot(long high, long low, int mask) {
        return (int) (low ^ high) & mask;
    }
}
