package dev.deja.journal;

import dev.deja.checks.Require;
import dev.deja.hash.Hash128;
import dev.deja.journal.deferred.DeferredWrites;
import dev.deja.seen.HashedSeenSet;
import dev.deja.seen.SeenSet;
import dev.deja.seen.StoreClosedException;
import dev.deja.seen.Verdict;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The write protocol of a {@link JournaledSeenSet}: each change is applied to the store and appended to the journal
 * under one lock, so the journal's order is the order in which changes were applied, and the caller then waits,
 * outside the lock, until its records are durable. Only changes are journaled; a call that changed nothing waits
 * for the records before it. Changes are refused once the store is closed, and while the journal cannot write.
 */
final class JournaledWrites {

    private final Path dir;
    private final HashedSeenSet store;
    private final Journal journal;
    /** Guards the store's changes and the journal's appends, so that the journal's order is the store's. */
    private final ReentrantLock lock = new ReentrantLock();

    private final TakeBacks takeBacks;

    /** Guarded by {@link #lock}. */
    private boolean closed;

    /**
     * @param takeBackExecutor where the take-backs of failed adds run, one at a time ({@link TakeBacks})
     */
    JournaledWrites(Path dir, HashedSeenSet store, Journal journal, Executor takeBackExecutor) {
        this.dir = dir;
        this.store = store;
        this.journal = journal;
        this.takeBacks = new TakeBacks(store, journal, lock, takeBackExecutor);
    }

    /** {@link HashedSeenSet#checkThenAddHash}, returning once the change is durable. */
    Verdict checkThenAdd(long high, long low, long owner) {
        return changeOne(
                Segment.ADD, high, low, owner, () -> store.checkThenAddHash(high, low, owner), v -> v == Verdict.NEW);
    }

    /** {@link HashedSeenSet#forgetHash}, returning once the change is durable. */
    boolean forget(long high, long low, long owner) {
        return changeOne(Segment.FORGET, high, low, owner, () -> store.forgetHash(high, low, owner), erased -> erased);
    }

    /**
     * A call on one key: {@code apply} runs under the lock, and when {@code changed} says that its answer changed the
     * store, the record {@code op} of the key is appended; else the call waits for the records before it. The records
     * are then written and waited for outside the lock; a failed add is taken back before its failure is thrown.
     */
    private <T> T changeOne(byte op, long high, long low, long owner, Supplier<T> apply, Predicate<T> changed) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        T answer;
        boolean journaled;
        lockOrThrow();
        try {
            answer = apply.get();
            journaled = changed.test(answer);
            if (journaled) {
                journal.append(op, high, low, owner, done);
            } else {
                journal.sync(done);
            }
        } finally {
            lock.unlock();
        }
        journal.writeNow();
        await(journaled && op == Segment.ADD ? takeBacks.settled(done, high, low, owner) : done);
        return answer;
    }

    /** {@link #checkThenAddAllAsync}, written now and waited for. */
    Verdict[] checkThenAddAll(List<byte[]> keys, long[] owners) {
        CompletableFuture<Verdict[]> done = checkThenAddAllAsync(keys, owners);
        journal.writeNow(); // not deferred, even inside DeferredWrites.run
        return await(done);
    }

    /** {@link #forgetAllAsync}, written now and waited for. */
    boolean[] forgetAll(List<byte[]> keys, long[] owners) {
        CompletableFuture<boolean[]> done = forgetAllAsync(keys, owners);
        journal.writeNow(); // not deferred, even inside DeferredWrites.run
        return await(done);
    }

    /** {@link JournaledSeenSet#checkThenAddAllAsync}: one lock and one wait for the disk for the whole batch. */
    CompletableFuture<Verdict[]> checkThenAddAllAsync(List<byte[]> keys, long[] owners) {
        Require.sameLength(keys, owners);
        long[] hashes = Hash128.ofAll(keys);
        Verdict[] out = new Verdict[keys.size()];
        boolean[] changed = new boolean[out.length];
        CompletableFuture<Void> done = new CompletableFuture<>();
        RuntimeException refused = lockForWrite();
        if (refused != null) {
            return CompletableFuture.failedFuture(refused);
        }
        try {
            store.checkThenAddHashes(hashes, owners, out);
            for (int i = 0; i < out.length; i++) {
                changed[i] = out[i] == Verdict.NEW;
            }
            journalChanges(Segment.ADD, hashes, owners, changed, done);
        } finally {
            lock.unlock();
        }
        if (journal.appendersWrite()) { // else the journal's background work writes them
            DeferredWrites.written(journal);
        }
        return takeBacks.settled(done, hashes, owners, changed).thenApply(durable -> out);
    }

    /** {@link JournaledSeenSet#forgetAllAsync}: one lock and one wait for the disk for the whole batch. */
    CompletableFuture<boolean[]> forgetAllAsync(List<byte[]> keys, long[] owners) {
        Require.sameLength(keys, owners);
        long[] hashes = Hash128.ofAll(keys);
        boolean[] erased = new boolean[keys.size()];
        CompletableFuture<Void> done = new CompletableFuture<>();
        RuntimeException refused = lockForWrite();
        if (refused != null) {
            return CompletableFuture.failedFuture(refused);
        }
        try {
            store.forgetHashes(hashes, owners, erased); // refuses a bad owner before erasing any key
            journalChanges(Segment.FORGET, hashes, owners, erased, done);
        } finally {
            lock.unlock();
        }
        if (journal.appendersWrite()) { // else the journal's background work writes them
            DeferredWrites.written(journal);
        }
        return done.thenApply(durable -> erased);
    }

    /**
     * The journal position, read under the lock: every record before it is in the store, and no later one is while
     * {@code underLock} runs (a snapshot's capture of the store, {@link SnapshotCodec#capture}).
     */
    long journalPosition(Runnable underLock) {
        lock.lock();
        try {
            underLock.run();
            return journal.nextSeq();
        } finally {
            lock.unlock();
        }
    }

    /** Refuses every change from now on; false when that was done already. */
    boolean close() {
        lock.lock();
        try {
            if (closed) {
                return false;
            }
            closed = true;
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Take-backs from now on change memory only: the journal is closing. */
    void stopJournaling() {
        lock.lock();
        try {
            takeBacks.stopJournaling();
        } finally {
            lock.unlock();
        }
    }

    /** Appends the changed entries of a batch, in order, with {@code done} on the last (under the lock). */
    private void journalChanges(
            byte op, long[] hashes, long[] owners, boolean[] changed, CompletableFuture<Void> done) {
        int last = -1;
        for (int i = 0; i < changed.length; i++) {
            last = changed[i] ? i : last;
        }
        if (last < 0) {
            journal.sync(done);
            return;
        }
        for (int i = 0; i <= last; i++) {
            if (changed[i]) {
                long owner = owners == null ? SeenSet.NO_OWNER : owners[i];
                journal.append(op, hashes[2 * i], hashes[2 * i + 1], owner, i == last ? done : null);
            }
        }
    }

    private void lockOrThrow() {
        RuntimeException refused = lockForWrite();
        if (refused != null) {
            throw refused;
        }
    }

    /** Takes the lock for a change, or returns why the change is refused (without the lock). */
    private RuntimeException lockForWrite() {
        IOException failure = journal.failure();
        if (failure != null) {
            return new JournalWriteException(
                    "journal in " + dir + " cannot write (" + failure.getMessage()
                            + "); writes are refused until the disk accepts them, reads continue",
                    failure);
        }
        lock.lock();
        if (closed) {
            lock.unlock();
            return new StoreClosedException("store " + dir + " is closed");
        }
        return null;
    }

    private static <T> T await(CompletableFuture<T> done) {
        try {
            return done.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof JournalWriteException failed) {
                throw new JournalWriteException(failed.getMessage(), failed.getCause()); // this thread's stack trace
            }
            throw (RuntimeException) e.getCause(); // a refused call: closed store
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new JournalWriteException(
                    "interrupted while waiting for the journal; the change is applied but " + "may not be durable",
                    new InterruptedIOException());
        }
    }
}
