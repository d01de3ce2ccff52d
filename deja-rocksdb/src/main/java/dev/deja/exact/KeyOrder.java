package dev.deja.exact;

import java.util.Arrays;

/**
 * The order of keys under RocksDB's bytewise comparator, which a table file is written in: a primitive sort of
 * each key's first bytes with its position in the low bits, then a pass that orders keys whose first bytes tie by
 * the whole key (random keys almost never tie, so that pass only compares neighbours).
 *
 * <p>One instance serves one writer: it keeps the array it sorts in from call to call, since one as large as a batch
 * of tens of thousands of keys, made anew each time, would be a humongous object on G1 heaps under 2 GiB and start a
 * concurrent collection cycle.
 */
final class KeyOrder {

    private long[] sortKeys = new long[0];

    /** The positions of {@code keys}, smallest key first; equal keys keep their order. */
    int[] of(byte[][] keys) {
        int n = keys.length;
        int positionBits = Math.max(1, Integer.SIZE - Integer.numberOfLeadingZeros(n - 1));
        long positionMask = (1L << positionBits) - 1;
        if (sortKeys.length < n) {
            sortKeys = new long[n];
        }
        for (int i = 0; i < n; i++) {
            // the top bits of the key's first eight bytes, unsigned, then the position; the sign bit flipped so that
            // a signed sort gives unsigned order
            sortKeys[i] = ((prefix(keys[i]) >>> positionBits) << positionBits | i) ^ Long.MIN_VALUE;
        }
        Arrays.sort(sortKeys, 0, n);
        int[] order = new int[n];
        for (int i = 0; i < n; i++) {
            order[i] = (int) (sortKeys[i] & positionMask);
        }
        // insertion sort by the whole key: moves only keys whose prefixes tied, and keeps equal keys in order
        for (int i = 1; i < n; i++) {
            int at = order[i];
            int j = i;
            while (j > 0 && Arrays.compareUnsigned(keys[order[j - 1]], keys[at]) > 0) {
                order[j] = order[j - 1];
                j--;
            }
            order[j] = at;
        }
        return order;
    }

    /** The key's first eight bytes, big-endian, zero-padded when it is shorter. */
    private static long prefix(byte[] key) {
        long prefix = 0;
        for (int i = 0; i < Long.BYTES; i++) {
            prefix = prefix << 8 | (i < key.length ? key[i] & 0xFF : 0);
        }
        return prefix;
    }
}
