package dev.deja.exact;

import dev.deja.seen.StoreClosedException;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.rocksdb.RocksDBException;

/**
 * Runs each operation of an exact store under the locks and checks it needs, and turns a RocksDB failure into the
 * error its caller gets.
 *
 * <p>Generations are created and dropped under the write side of a read-write lock whose read side every other
 * operation holds, so no operation ever sees a closed column family; a closed store refuses every operation before
 * it touches a handle, since RocksDB's own error for a closed one says nothing of what happened. A write also takes
 * its keys' locks ({@link KeyLocks}), so that its read-then-write is atomic per key, and is refused by a store
 * opened read-only ({@link StoreHealth}).
 */
final class StoreGuard {

    /** An operation's work on the database. */
    interface Work<T> {
        T run() throws RocksDBException;
    }

    /** The keys of a write that locks none (a sync of the write-ahead log). */
    static final long[] NO_KEYS = {};

    private final ReentrantReadWriteLock generationLock = new ReentrantReadWriteLock();
    private final KeyLocks keyLocks = new KeyLocks();
    private final StoreHealth health;
    private volatile boolean closed;

    StoreGuard(StoreHealth health) {
        this.health = health;
    }

    /** Runs a read; a failure is reported as the failure to do {@code what}. */
    <T> T read(String what, Work<T> work) {
        return run(generationLock.readLock(), what, work);
    }

    /**
     * Runs work that writes files but no keys (a flush, a checkpoint): refused by a store opened read-only; a failure
     * is reported as the failure to do {@code what}, and does not count as a failing write.
     */
    <T> T writeFiles(String what, Work<T> work) {
        return run(generationLock.readLock(), what, () -> {
            health.refuseIfReadOnly();
            return work.run();
        });
    }

    /**
     * Runs a write under the locks of the keys whose hash pairs {@code hashes} holds ({@link KeyLocks#lock}; none
     * for {@link #NO_KEYS}): refused by a store opened read-only; a failure counts as a failing write
     * ({@link StoreHealth#writeFailed}).
     */
    <T> T write(String what, long[] hashes, Work<T> work) {
        Lock lock = generationLock.readLock();
        lock.lock();
        KeyLocks.Lease held = null;
        try {
            ensureOpen();
            health.refuseIfReadOnly();
            if (hashes.length > 0) {
                held = keyLocks.lock(hashes);
            }
            return work.run();
        } catch (RocksDBException e) {
            throw health.writeFailed(what, e);
        } finally {
            if (held != null) {
                keyLocks.unlock(held);
            }
            lock.unlock();
        }
    }

    /**
     * Runs work that changes the list of generations, alone; a failure is reported as the failure to do {@code what}.
     */
    <T> T exclusive(String what, Work<T> work) {
        return run(generationLock.writeLock(), what, work);
    }

    /** Marks the store closed and runs {@code close}, alone; does nothing if the store was closed already. */
    void closeOnce(Runnable close) {
        Lock lock = generationLock.writeLock();
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            close.run();
        } finally {
            lock.unlock();
        }
    }

    /** Whether {@link #closeOnce} has been called. */
    boolean closed() {
        return closed;
    }

    private <T> T run(Lock lock, String what, Work<T> work) {
        lock.lock();
        try {
            ensureOpen();
            return work.run();
        } catch (RocksDBException e) {
            throw StoreHealth.failure(what, e);
        } finally {
            lock.unlock();
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw new StoreClosedException("exact store is closed");
        }
    }
}
