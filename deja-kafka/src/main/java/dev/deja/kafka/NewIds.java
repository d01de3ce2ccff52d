package dev.deja.kafka;

import java.util.Arrays;

/**
 * The new ids an {@link ExactStateStore} holds in memory until it writes them, up to {@value #CAPACITY}: each id's
 * 128-bit hash with its owner and the time it was dated at, in the order they came, found again by hash through an
 * open-addressing table of positions (at most a quarter full, probed linearly). Every id is looked up here once per
 * record, so the table keeps primitives in arrays rather than boxed keys in a map.
 */
final class NewIds {

    /**
     * The most ids held: enough that each write of them to the store (one table file) is large, as a memtable flush
     * would write, and small in memory (about 3 MiB per task).
     */
    static final int CAPACITY = 1 << 16;

    /** Slots of the table: four times the capacity, a power of two, so that a probe meets an empty slot soon. */
    private static final int SLOTS = Integer.highestOneBit(CAPACITY) << 2;

    private final long[] high = new long[CAPACITY];
    private final long[] low = new long[CAPACITY];
    private final long[] owner = new long[CAPACITY];
    private final long[] time = new long[CAPACITY];
    /** A position plus one per slot; 0 for an empty slot. */
    private final int[] slots = new int[SLOTS];

    private int size;

    /** The position of the id with this hash, or -1 if none is held. */
    int find(long high, long low) {
        for (int s = slot(high, low); ; s = (s + 1) & (SLOTS - 1)) {
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
     * @throws IllegalStateException if {@value #CAPACITY} ids are held already
     */
    void add(long high, long low, long owner, long time) {
        if (size == CAPACITY) {
            throw new IllegalStateException("already holds " + CAPACITY + " new ids; write them first");
        }
        int s = slot(high, low);
        while (slots[s] != 0) {
            s = (s + 1) & (SLOTS - 1);
        }
        slots[s] = size + 1;
        this.high[size] = high;
        this.low[size] = low;
        this.owner[size] = owner;
        this.time[size] = time;
        size++;
    }

    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    boolean isFull() {
        return size == CAPACITY;
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

    /** Forgets every id. */
    void clear() {
        if (size > 0) {
            Arrays.fill(slots, 0);
            size = 0;
        }
    }

    /** The id's first slot: the hash's low bits, which are as random as any. */
    private static int slot(long high, long low) {
        return (int) (low ^ high) & (SLOTS - 1);
    }
}
