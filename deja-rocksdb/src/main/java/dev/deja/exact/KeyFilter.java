package dev.deja.exact;

import dev.deja.bloom.BloomFilter;
import dev.deja.seen.Verdict;
import dev.deja.sizing.ExactSize;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An in-memory Bloom filter of the keys one generation holds, asked before RocksDB.
 *
 * <p>Why: most lookups are of new keys, and a new key must be ruled out in every generation. Asking RocksDB for that
 * costs a JNI call, a MultiGet setup, a memtable probe and a filter probe per table file, per generation, on every
 * insert. This filter rules a key out with one cache line of the JVM's memory; only the keys it cannot rule out (those
 * held, and a false-positive rate of {@link #FPP} per generation) reach RocksDB. It costs about 2 bytes of memory per
 * key held (15.7 bits at 0.1%).
 *
 * <p>The filter grows with its generation: it starts sized for an expected key count (the previous generation's)
 * and adds a part twice as large whenever the keys added exceed what its parts hold at their rate, so every part
 * keeps {@link #FPP} and memory follows the keys. Keys are never removed: a forgotten or aged key is a false
 * positive, which only costs a RocksDB lookup.
 *
 * <p>A generation reopened from disk gets an incomplete filter, filled by {@link FilterLoader} while the store
 * serves; until {@link #markComplete()} it rules nothing out, so answers never depend on the loading.
 */
final class KeyFilter {

    /** False-positive rate of each part. */
    static final double FPP = ExactSize.FILTER_FPP;
    /** The smallest part: a new store's first generation starts here and doubles as keys arrive. */
    static final long MIN_CAPACITY = 1 << 16;

    private final AtomicLong added = new AtomicLong();
    /** Oldest part first; keys go into the last. Replaced, never modified, under this object's monitor. */
    private volatile BloomFilter[] parts;

    private volatile long capacity;
    private volatile boolean complete;

    /**
     * The filter of a new generation, complete from the start: every key it will hold passes through {@link #add}.
     *
     * @param expectedKeys the keys the generation is expected to receive (the first part's capacity, at least
     *                     {@link #MIN_CAPACITY})
     */
    static KeyFilter forNewGeneration(long expectedKeys) {
        return new KeyFilter(expectedKeys, true);
    }

    /**
     * The filter of a generation reopened from disk, which rules nothing out until its keys have been added and
     * {@link #markComplete()} called.
     *
     * @param expectedKeys the keys the generation holds, estimated
     */
    static KeyFilter toLoad(long expectedKeys) {
        return new KeyFilter(expectedKeys, false);
    }

    private KeyFilter(long expectedKeys, boolean complete) {
        long first = Math.max(MIN_CAPACITY, expectedKeys);
        this.parts = new BloomFilter[] {part(first)};
        this.capacity = first;
        this.complete = complete;
    }

    private KeyFilter(BloomFilter[] parts, long keys) {
        long total = 0;
        for (BloomFilter p : parts) {
            total += p.capacity();
        }
        this.parts = parts;
        this.capacity = total;
        this.added.set(keys);
        this.complete = true;
    }

    /** A complete filter from the parts and key count a closed store kept ({@link KeyFilterFiles}). */
    static KeyFilter restored(BloomFilter[] parts, long keys) {
        return new KeyFilter(parts.clone(), keys);
    }

    /** The parts, oldest first, for keeping the filter in a file. */
    BloomFilter[] partsSnapshot() {
        return parts.clone();
    }

    private static BloomFilter part(long capacity) {
        return BloomFilter.builder().capacity(capacity).fpp(FPP).build();
    }

    /** False only if the generation surely does not hold the key (whose canonical hash is given). */
    boolean mayContain(long high, long low) {
        if (!complete) {
            return true;
        }
        for (BloomFilter p : parts) {
            if (p.checkHash(high, low)) {
                return true;
            }
        }
        return false;
    }

    /**
     * {@link #mayContain} for many keys given by their hash pairs ({@link dev.deja.hash.Hash128#ofAll}), each part
     * probed with the cache misses of all the keys overlapped ({@link BloomFilter#orCheckHashes}), and a key one part
     * may hold not asked of the next.
     */
    boolean[] mayContainAll(long[] hashes) {
        boolean[] out = new boolean[hashes.length / 2];
        if (!complete) {
            Arrays.fill(out, true);
            return out;
        }
        for (BloomFilter p : parts) {
            p.orCheckHashes(hashes, out);
        }
        return out;
    }

    /** Records a key the generation is about to hold; call before the write that stores it. */
    void add(long high, long low) {
        BloomFilter[] p = parts;
        // Only keys that set a bit are counted, so rewriting a key (a duplicate count, an overwrite) does not make
        // the filter grow.
        if (p[p.length - 1].checkThenAddHash(high, low, 0) == Verdict.NEW && added.incrementAndGet() > capacity) {
            grow();
        }
    }

    /**
     * {@link #add} for every key of a batch, given by its hash pairs ({@link dev.deja.hash.Hash128#ofAll}), with the
     * batch's cache misses overlapped ({@link BloomFilter#checkThenAddHashes}). The whole batch goes into the part
     * that is last when it starts, which may take it up to one batch past its capacity before the next part grows.
     */
    void addAll(long[] hashes) {
        int n = hashes.length / 2;
        if (n == 0) {
            return;
        }
        BloomFilter[] p = parts;
        Verdict[] verdicts = new Verdict[n];
        p[p.length - 1].checkThenAddHashes(hashes, new long[n], verdicts);
        long fresh = 0;
        for (Verdict v : verdicts) {
            fresh += v == Verdict.NEW ? 1 : 0;
        }
        if (fresh > 0 && added.addAndGet(fresh) > capacity) {
            grow();
        }
    }

    private synchronized void grow() {
        if (added.get() <= capacity) {
            return; // another thread grew it
        }
        BloomFilter[] p = parts;
        BloomFilter next = part(2 * p[p.length - 1].capacity());
        BloomFilter[] grown = Arrays.copyOf(p, p.length + 1);
        grown[p.length] = next;
        parts = grown;
        capacity += next.capacity();
    }

    /** Called once every key the generation held before this filter existed has been added. */
    void markComplete() {
        complete = true;
    }

    boolean complete() {
        return complete;
    }

    /** Keys added (each counted once, unless a false positive hid it). */
    long keys() {
        return added.get();
    }

    /** Memory the parts hold now. */
    long bytes() {
        long bytes = 0;
        for (BloomFilter p : parts) {
            bytes += p.allocatedBytes();
        }
        return bytes;
    }

    int parts() {
        return parts.length;
    }
}
