package dev.deja.exact;

import dev.deja.checks.Require;
import dev.deja.hash.Hash128;
import java.util.Arrays;
import java.util.List;

/**
 * The keys of one call as the store keeps them (encoded by its {@link IdFormat}), with their canonical hashes as
 * pairs ({@link Hash128#ofAll}) and each key's position in the caller's list.
 */
final class KeyBatch {

    /**
     * Keys hashed at a time by {@link #addTo}: its array of their hashes stays far below the size at which G1 makes
     * an array a humongous object (half a region, 512 KiB on heaps under 2 GiB), each of which would start a
     * concurrent collection cycle, where the hashes of a batch of tens of thousands of keys would pass it.
     */
    static final int FILTER_SLICE = 4096;

    private final byte[][] keys;
    private final int[] positions;
    /** Computed when first asked for: writes of keys found new ({@link #addTo}) need no array of them all. */
    private long[] hashes;

    private KeyBatch(byte[][] keys, int[] positions) {
        this.keys = keys;
        this.positions = positions;
    }

    /** Every key encoded; a malformed key fails the whole call. */
    static KeyBatch of(IdFormat format, List<byte[]> keys) {
        Require.nonNull("keys", keys);
        byte[][] k = new byte[keys.size()][];
        int[] positions = new int[k.length];
        for (int i = 0; i < k.length; i++) {
            k[i] = format.encode(keys.get(i));
            positions[i] = i;
        }
        return new KeyBatch(k, positions);
    }

    /**
     * The keys that are well formed, encoded; a key that is not gets, at its position in {@code refused}, the
     * exception saying why, and is left out.
     */
    static KeyBatch wellFormed(IdFormat format, List<byte[]> keys, RuntimeException[] refused) {
        byte[][] k = new byte[keys.size()][];
        int[] positions = new int[k.length];
        int valid = 0;
        for (int i = 0; i < k.length; i++) {
            try {
                k[valid] = format.encode(Require.key(keys.get(i)));
                positions[valid++] = i;
            } catch (RuntimeException e) {
                refused[i] = e;
            }
        }
        return new KeyBatch(Arrays.copyOf(k, valid), Arrays.copyOf(positions, valid));
    }

    int size() {
        return keys.length;
    }

    /** The stored bytes of each key. */
    byte[][] keys() {
        return keys;
    }

    /** Each key's hash as a pair: {@code high} at {@code 2i}, {@code low} at {@code 2i+1}. */
    long[] hashes() {
        if (hashes == null) {
            hashes = Hash128.ofAll(Arrays.asList(keys));
        }
        return hashes;
    }

    /**
     * Adds every key to {@code filter} ({@link KeyFilter#addAll}), {@value #FILTER_SLICE} keys at a time, with their
     * hashes in an array of that size rather than one as large as the batch.
     */
    void addTo(KeyFilter filter) {
        long[] slice = new long[2 * Math.min(FILTER_SLICE, keys.length)];
        for (int from = 0; from < keys.length; from += FILTER_SLICE) {
            int n = Math.min(FILTER_SLICE, keys.length - from);
            for (int i = 0; i < n; i++) {
                Hash128 h = Hash128.of(keys[from + i]);
                slice[2 * i] = h.high();
                slice[2 * i + 1] = h.low();
            }
            filter.addAll(n == FILTER_SLICE ? slice : Arrays.copyOf(slice, 2 * n));
        }
    }

    /** Where the {@code i}-th key stands in the caller's list. */
    int position(int i) {
        return positions[i];
    }
}
