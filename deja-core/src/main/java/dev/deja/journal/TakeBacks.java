package dev.deja.journal;

import dev.deja.seen.Guarantee;
import dev.deja.seen.HashedSeenSet;
import dev.deja.seen.SeenSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Takes back the keys of an add whose journal write failed, for a store that promises never to call a new key seen.
 *
 * <p>A change is applied before its record is written, so when the write fails (a full disk) the store already
 * holds it, and the journal keeps the record to write once the disk recovers. For a store that promises never to
 * call a new key seen ({@link Guarantee#NEVER_FALSE_DUPLICATE}, {@link Guarantee#EXACT_WITHIN_WINDOW}) that would
 * break the promise: the caller was told the add failed, and its retry would be answered "duplicate", dropping a
 * message nobody processed. Such stores take the keys of a failed add back before the caller hears of the failure:
 * each is forgotten if it is still held under the caller's owner, and the forget is journaled after the add, so
 * memory, the journal and a later replay agree that the key is absent. If another caller's identical key is erased
 * with it, a duplicate may slip through, which is the error these stores allow. A bloom filter
 * ({@link Guarantee#NEVER_FALSE_NEW}) cannot forget; a failed add stays in it, within its declared error.
 */
final class TakeBacks {

    private final HashedSeenSet store;
    private final Journal journal;
    /** The store's lock, under which changes are applied and journaled. */
    private final ReentrantLock lock;
    /**
     * Where take-backs run: not where the failure is reported, a thread that holds the journal's write lock, under
     * which the store's lock must not be taken.
     */
    private final Executor executor;
    /** Whether a failed add's keys are taken back; false for stores that cannot forget. */
    private final boolean enabled;

    /** Whether forgets may still be appended (false once the journal is closing); guarded by {@link #lock}. */
    private boolean journalOpen = true;

    TakeBacks(HashedSeenSet store, Journal journal, ReentrantLock lock, Executor executor) {
        this.store = store;
        this.journal = journal;
        this.lock = lock;
        this.executor = executor;
        this.enabled = store.guarantee() != Guarantee.NEVER_FALSE_NEW;
    }

    /** {@link #settled(CompletableFuture, long[], long[], boolean[])} for one key that the add changed. */
    CompletableFuture<Void> settled(CompletableFuture<Void> done, long high, long low, long owner) {
        return enabled ? settled(done, new long[] {high, low}, new long[] {owner}, new boolean[] {true}) : done;
    }

    /**
     * {@code done}, or, for a store that takes failed adds back, a future that fails only once the changed keys
     * have been taken back, so that a caller retrying at once finds them absent.
     *
     * @param hashes  the batch's keys, {@code high} at {@code 2i} and {@code low} at {@code 2i+1}
     * @param owners  their owners, or null for none
     * @param changed which keys the add found new
     */
    CompletableFuture<Void> settled(CompletableFuture<Void> done, long[] hashes, long[] owners, boolean[] changed) {
        if (!enabled || !anyTrue(changed)) {
            return done;
        }
        return done.exceptionallyComposeAsync(failure -> takeBack(hashes, owners, changed, failure), executor);
    }

    /** From now on take-backs change memory only: the journal is closing. Under the store's lock. */
    void stopJournaling() {
        journalOpen = false;
    }

    /**
     * Forgets the keys a failed add changed, each only if still held under the owner it was added with, journaling
     * each forget after the failed add (both are written once the disk recovers, or neither), and returns the
     * failure for the caller, saying that nothing was recorded.
     */
    private CompletableFuture<Void> takeBack(long[] hashes, long[] owners, boolean[] changed, Throwable failure) {
        Throwable cause = failure instanceof CompletionException wrapped && wrapped.getCause() != null
                ? wrapped.getCause()
                : failure;
        if (!(cause instanceof JournalWriteException writeFailure)) {
            return CompletableFuture.failedFuture(cause);
        }
        lock.lock();
        try {
            for (int i = 0; i < changed.length; i++) {
                long high = hashes[2 * i];
                long low = hashes[2 * i + 1];
                long owner = owners == null ? SeenSet.NO_OWNER : owners[i];
                if (changed[i] && store.forgetHash(high, low, owner) && journalOpen) {
                    journal.append(Segment.FORGET, high, low, owner, null);
                }
            }
        } finally {
            lock.unlock();
        }
        return CompletableFuture.failedFuture(new JournalWriteException(
                writeFailure.getMessage() + "; nothing this call added is kept, so its retry finds the keys new",
                writeFailure.getCause()));
    }

    private static boolean anyTrue(boolean[] flags) {
        for (boolean flag : flags) {
            if (flag) {
                return true;
            }
        }
        return false;
    }
}
