package dev.deja.kafka;

import java.util.Map;
import java.util.TreeMap;

/**
 * Counts the ids a task holds per slice of the window (an eighth of it), to enforce a cap: when the count passes the
 * cap, the oldest slice is given up and the floor, the earliest time still answered from, moves past it. Without a
 * cap it only remembers the earliest time held, for the effective-window metric.
 */
final class HeldIds {

    /** Slices per window: the cap gives up an eighth of the window at a time. */
    static final int SLICES = 8;

    private final long windowMs;
    private final long sliceMs;
    private final long maxIds;
    private final TreeMap<Long, Long> perSlice = new TreeMap<>();
    private long count;
    private long floor;
    private long oldest = Long.MAX_VALUE;

    /** Counts for a window of {@code windowMs}, capped at {@code maxIds} ({@link Long#MAX_VALUE}: no cap). */
    HeldIds(long windowMs, long maxIds) {
        this.windowMs = windowMs;
        this.sliceMs = Math.max(1, windowMs / SLICES);
        this.maxIds = maxIds;
    }

    boolean capped() {
        return maxIds != Long.MAX_VALUE;
    }

    /** Counts an id found in the store when the task starts. */
    void restored(long time) {
        added(time);
    }

    /** Counts an id recorded at {@code time}, and gives up the oldest slices while the cap is passed. */
    void added(long time) {
        oldest = Math.max(floor, Math.min(oldest, time));
        if (!capped()) {
            return;
        }
        perSlice.merge(Math.floorDiv(time, sliceMs), 1L, Long::sum);
        count++;
        // Slices wholly older than one window before this time have aged out of the store.
        long expired = Math.floorDiv(time - windowMs, sliceMs);
        while (!perSlice.isEmpty() && perSlice.firstKey() < expired) {
            count -= perSlice.pollFirstEntry().getValue();
        }
        while (count > maxIds && perSlice.size() > 1) {
            Map.Entry<Long, Long> first = perSlice.pollFirstEntry();
            count -= first.getValue();
            floor = Math.max(floor, (first.getKey() + 1) * sliceMs);
        }
        oldest = Math.max(oldest, floor);
    }

    /** The earliest time ids are still answered from. */
    long floor() {
        return floor;
    }

    /** The earliest time of an id held, or {@link Long#MAX_VALUE} when none is. */
    long oldest() {
        return oldest;
    }

    /** The ids counted, when capped. */
    long count() {
        return count;
    }
}
