package dev.deja.exact;

import dev.deja.hash.Hash128;
import java.util.Arrays;
import java.util.Comparator;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;

/**
 * Per-key locks for the read-then-write of a batch, so that concurrent batches exclude each other on the keys they
 * share and on nothing else.
 *
 * <p>A key is locked by its 128-bit hash, as an entry of a concurrent map from the hash to the batch holding it
 * (two keys with one hash would merely share a lock). A batch takes its keys in ascending hash order and releases
 * them all at its end; finding a key taken, it waits for the holder's release and tries again. A batch waiting for
 * a key holds only smaller ones, so waits never form a cycle.
 *
 * <p>Why not a fixed array of locks indexed by hash: two batches of a thousand random keys would almost always
 * share some of its stripes (about 60 of 16,384), so the second batch would queue behind the first and concurrent
 * callers would take turns; locking the keys themselves makes batches wait only for the keys they share.
 */
final class KeyLocks {

    private static final Comparator<Hash128> ORDER =
            (a, b) -> a.high() != b.high() ? Long.compare(a.high(), b.high()) : Long.compare(a.low(), b.low());

    private final ConcurrentHashMap<Hash128, Lease> held = new ConcurrentHashMap<>();

    /** A batch's hold on its keys, released by {@link #unlock}. */
    static final class Lease {
        private final Hash128[] keys;
        private final CountDownLatch released = new CountDownLatch(1);

        private Lease(Hash128[] keys) {
            this.keys = keys;
        }

        private void awaitRelease() {
            boolean interrupted = false;
            while (true) {
                try {
                    released.await();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true; // a lock wait is not interruptible; keep the status for the caller
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Locks the keys whose hash pairs {@code hashes} holds ({@code high} at {@code 2i}, {@code low} at {@code 2i+1},
     * as {@link Hash128#ofAll} makes them), waiting for other batches holding any of them. Not reentrant: a thread
     * must unlock before it locks again.
     */
    Lease lock(long[] hashes) {
        Hash128[] keys = new Hash128[hashes.length / 2];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = new Hash128(hashes[2 * i], hashes[2 * i + 1]);
        }
        Arrays.sort(keys, ORDER);
        int n = 0;
        for (int i = 0; i < keys.length; i++) {
            if (n == 0 || !keys[i].equals(keys[n - 1])) {
                keys[n++] = keys[i];
            }
        }
        Lease lease = new Lease(Arrays.copyOf(keys, n));
        for (Hash128 key : lease.keys) {
            Lease other;
            while ((other = held.putIfAbsent(key, lease)) != null) {
                other.awaitRelease();
            }
        }
        return lease;
    }

    /** Releases every key of the lease and wakes the batches waiting for any of them. */
    void unlock(Lease lease) {
        for (Hash128 key : lease.keys) {
            held.remove(key, lease);
        }
        lease.released.countDown();
    }
}
