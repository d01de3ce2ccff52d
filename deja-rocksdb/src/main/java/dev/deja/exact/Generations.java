package dev.deja.exact;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The exact store's generations, oldest first, and the policy that creates and drops them (the window rules of
 * {@link ExactStore}): a new generation when the newest one's time slice ends or it holds its share of the size
 * bound; the oldest dropped once its successor was created a window ago, or while the store exceeds the size bound.
 *
 * <p>Not thread-safe: the store calls the methods that change the list under the write side of its generation lock
 * and the others under the read side.
 */
final class Generations implements Iterable<Generation> {

    private static final Logger LOG = LoggerFactory.getLogger(Generations.class);
    /** Longest time between two size checks of a size-bounded store. */
    private static final long SIZE_CHECK_MILLIS = 1000;

    private final RocksDB db;
    private final ColumnFamilyOptions options;
    private final Sealer sealer;
    private final long windowMillis;
    private final long sliceMillis;
    private final long maxBytes;
    private final long rollBytes;
    private final long minWindowMillis;
    private final List<Generation> list = new ArrayList<>();
    private long nextSequence;
    private boolean lastDropForSize;
    private boolean warned;
    private long windowWarnings;

    /**
     * The generations found on disk (oldest first) under the window, its cut into slices, the size bound and the
     * minimum window that {@code bounds} sets; new column families get {@code options}, and a generation that stops
     * growing is handed to {@code sealer}.
     */
    Generations(
            RocksDB db, ColumnFamilyOptions options, Sealer sealer, List<Generation> existing, StoreOptions bounds) {
        this.db = db;
        this.options = options;
        this.sealer = sealer;
        this.windowMillis = bounds.windowMillis();
        this.sliceMillis = windowMillis == 0 ? 0 : Math.max(1, windowMillis / bounds.generations());
        this.maxBytes = bounds.maxBytes();
        this.rollBytes = maxBytes / bounds.generations();
        this.minWindowMillis = bounds.minWindowMillis();
        this.list.addAll(existing);
        this.nextSequence = existing.isEmpty() ? 0 : existing.getLast().sequence + 1;
    }

    /**
     * Rolls over to a new generation and drops old ones as due at {@code now}, warns once when the size bound has
     * cut the window below its minimum, and returns the time at which this is next due.
     */
    long maintain(long now) throws RocksDBException {
        rollOverIfDue(now);
        dropExpired(now);
        dropForSize();
        long window = effectiveWindowMillis(now);
        boolean below = belowMinimum(window);
        if (below && !warned) {
            windowWarnings++;
            LOG.warn(
                    "exact store window fell to {} (minimum {}): the size bound ({} bytes) drops keys younger"
                            + " than the configured window",
                    Duration.ofMillis(window),
                    Duration.ofMillis(minWindowMillis),
                    maxBytes);
        }
        warned = below;
        long next = sliceMillis == 0 ? Long.MAX_VALUE : timeEnd(newest());
        if (windowMillis > 0 && list.size() > 1) {
            next = Math.min(next, list.get(1).createdMillis + windowMillis);
        }
        if (sizeBounded()) {
            next = Math.min(next, now + SIZE_CHECK_MILLIS);
        }
        return next;
    }

    /** Whether a size bound applies, so that writes must check the size now and then. */
    boolean sizeBounded() {
        return maxBytes > 0;
    }

    private void rollOverIfDue(long now) throws RocksDBException {
        if (!list.isEmpty()) {
            Generation newest = newest();
            boolean timeUp = now >= timeEnd(newest);
            // A generation that holds no key never rolls over for size: an empty column family already counts 2 KiB
            // of memtable, so a share of the size bound below that would otherwise roll over at every maintenance,
            // each time into another empty generation (and seal the last one, and drop the oldest).
            boolean holdsKeys = !newest.filter.complete() || newest.filter.keys() > 0;
            boolean full = rollBytes > 0 && holdsKeys && familyBytes(newest) >= rollBytes;
            if (!timeUp && !full) {
                return;
            }
        }
        long sequence = nextSequence++;
        ColumnFamilyHandle handle =
                db.createColumnFamily(new ColumnFamilyDescriptor(Generation.name(sequence, now), options));
        // Sized for as many keys as the previous generation received: in a steady stream one part suffices.
        long expected = list.isEmpty() ? 0 : expectedKeys(newest());
        list.add(new Generation(sequence, now, handle, KeyFilter.forNewGeneration(expected)));
        if (list.size() > 1) {
            // The previous generation will not grow again: flush it (freeing its memtable and letting the WAL be
            // recycled) and compact it into the last level.
            sealer.seal(list.get(list.size() - 2));
        }
    }

    /**
     * Drops, oldest first, every generation whose youngest key (written before its successor existed) is older
     * than the window. The newest generation always stays.
     */
    private void dropExpired(long now) throws RocksDBException {
        while (windowMillis > 0 && list.size() > 1 && now >= list.get(1).createdMillis + windowMillis) {
            dropOldest();
            lastDropForSize = false;
        }
    }

    private void dropForSize() throws RocksDBException {
        while (maxBytes > 0 && list.size() > 1 && totalBytes() > maxBytes) {
            dropOldest();
            lastDropForSize = true;
        }
    }

    private void dropOldest() throws RocksDBException {
        list.removeFirst().drop(db);
    }

    private long expectedKeys(Generation g) throws RocksDBException {
        return g.filter.complete() ? g.filter.keys() : estimatedKeys(db, g.handle);
    }

    /** The keys the generations hold, estimated as {@link ExactStore#stats()} says. */
    long keys() throws RocksDBException {
        long keys = 0;
        for (Generation g : list) {
            keys += expectedKeys(g);
        }
        return keys;
    }

    /** RocksDB's estimate of the keys a column family holds. */
    static long estimatedKeys(RocksDB db, ColumnFamilyHandle handle) throws RocksDBException {
        return db.getLongProperty(handle, "rocksdb.estimate-num-keys");
    }

    /** When a generation's time slice ends (slices are aligned to multiples of their length). */
    private long timeEnd(Generation g) {
        return sliceMillis == 0 ? Long.MAX_VALUE : (Math.floorDiv(g.createdMillis, sliceMillis) + 1) * sliceMillis;
    }

    /** Age at {@code now} of the oldest key still held: the time since the oldest generation was created. */
    long effectiveWindowMillis(long now) {
        return list.isEmpty() ? 0 : Math.max(0, now - list.getFirst().createdMillis);
    }

    /** Only a size-driven drop shortens the window; a young store holding everything is not "below" anything. */
    boolean belowMinimum(long effectiveWindowMillis) {
        return minWindowMillis > 0 && lastDropForSize && effectiveWindowMillis < minWindowMillis;
    }

    /** How many times the window fell below its minimum. */
    long windowWarnings() {
        return windowWarnings;
    }

    private long totalBytes() throws RocksDBException {
        long total = 0;
        for (Generation g : list) {
            total += familyBytes(g);
        }
        return total;
    }

    private long familyBytes(Generation g) throws RocksDBException {
        return db.getLongProperty(g.handle, "rocksdb.live-sst-files-size")
                + db.getLongProperty(g.handle, "rocksdb.cur-size-all-mem-tables");
    }

    /** A RocksDB integer property summed over the generations' column families. */
    long sumProperty(String property) throws RocksDBException {
        long sum = 0;
        for (Generation g : list) {
            sum += db.getLongProperty(g.handle, property);
        }
        return sum;
    }

    /** Memory of the generations' key filters. */
    long filterBytes() {
        return list.stream().mapToLong(g -> g.filter.bytes()).sum();
    }

    /** Generations whose key filter is still being read back. */
    int filtersLoading() {
        return (int) list.stream().filter(g -> !g.filter.complete()).count();
    }

    /** The newest generation, the one new keys go to. */
    Generation newest() {
        return list.getLast();
    }

    /** The generation at {@code index}, 0 being the oldest. */
    Generation get(int index) {
        return list.get(index);
    }

    int size() {
        return list.size();
    }

    /** Oldest first. */
    @Override
    public Iterator<Generation> iterator() {
        return list.iterator();
    }

    /** Closes every column family handle and forgets the generations; for the store's close. */
    void closeHandles() {
        for (Generation g : list) {
            g.handle.close();
        }
        list.clear();
    }
}
