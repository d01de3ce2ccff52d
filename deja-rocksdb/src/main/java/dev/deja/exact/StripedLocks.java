package dev.deja.exact;

import dev.deja.hash.Hash128;
import java.util.Arrays;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A fixed array of locks indexed by key hash, so that a read-then-write on one key excludes only writers of keys
 * that share its stripe, never the whole store.
 *
 * <p>A batch takes every stripe its keys need, in ascending stripe order, so two batches can never wait for each
 * other in a cycle. Batches of a thousand random keys touch about 970 of the 16384 stripes, so two concurrent
 * batches usually share about 60 stripes and run one after the other on those while single-key calls pass between.
 */
final class StripedLocks {

    private final ReentrantLock[] locks;

    StripedLocks(int stripes) {
        locks = new ReentrantLock[stripes];
        for (int i = 0; i < stripes; i++) {
            locks[i] = new ReentrantLock();
        }
    }

    /** The stripe of a key. */
    int stripe(byte[] key) {
        return (int) Hash128.reduce(Hash128.of(key).low(), locks.length);
    }

    /** Locks the stripes of all keys, in ascending order, and returns them for {@link #unlock(int[])}. */
    int[] lock(byte[][] keys) {
        int[] stripes = new int[keys.length];
        for (int i = 0; i < keys.length; i++) {
            stripes[i] = stripe(keys[i]);
        }
        Arrays.sort(stripes);
        int n = 0;
        for (int i = 0; i < stripes.length; i++) {
            if (i == 0 || stripes[i] != stripes[i - 1]) {
                stripes[n++] = stripes[i];
            }
        }
        int[] held = Arrays.copyOf(stripes, n);
        for (int s : held) {
            locks[s].lock();
        }
        return held;
    }

    /** Releases stripes taken by {@link #lock(byte[][])}. */
    void unlock(int[] held) {
        for (int i = held.length - 1; i >= 0; i--) {
            locks[held[i]].unlock();
        }
    }
}
