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

    private final byte[][] keys;
    private final long[] hashes;
    private final int[] positions;

    private KeyBatch(byte[][] keys, int[] positions) {
        this.keys = keys;
        this.hashes = Hash128.ofAll(Arrays.asList(keys));
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
        return hashes;
    }

    /** Where the {@code i}-th key stands in the caller's list. */
    int position(int i) {
        return positions[i];
    }
}
