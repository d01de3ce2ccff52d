package dev.deja.exact;

import dev.deja.background.SerialWork;
import dev.deja.exact.threads.ExactThreads;
import dev.deja.journal.FsyncPolicy;
import java.io.UncheckedIOException;
import java.util.concurrent.TimeUnit;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

/**
 * Syncs an exact store's write-ahead log as its {@link FsyncPolicy} says: on demand, once a second on the shared
 * maintenance threads ({@link ExactThreads}) under {@code everysec}, and at close unless the policy is {@code no}.
 * ({@code always} needs no timer: each write is synced as it is made, by {@link Tuning}'s write options.) A store
 * opened read-only writes nothing, so it never syncs.
 */
final class WalSync {

    private static final long EVERY_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final RocksDB db;
    private final StoreGuard guard;
    private final StoreHealth health;
    /** Whether close syncs: unless the policy is {@code no} or the store was opened read-only. */
    private final boolean syncsAtClose;
    /** The once-a-second sync under {@code everysec}; null otherwise. */
    private final SerialWork timer;

    /** Starts the once-a-second sync if the policy asks for it; {@code store} names the store in the log. */
    WalSync(RocksDB db, FsyncPolicy fsync, StoreGuard guard, StoreHealth health, String store) {
        this.db = db;
        this.guard = guard;
        this.health = health;
        this.syncsAtClose = fsync != FsyncPolicy.NO && !health.readOnly();
        if (fsync == FsyncPolicy.EVERYSEC && !health.readOnly()) {
            timer = ExactThreads.maintenance("exact store " + store + ": write-ahead log sync", () -> {
                syncQuietly();
                return EVERY_NANOS;
            });
            timer.start(EVERY_NANOS);
        } else {
            timer = null;
        }
    }

    /**
     * Syncs the log: every write that returned before this call is on disk when it returns.
     *
     * @throws UncheckedIOException if the sync fails (a full or failing disk)
     */
    void sync() {
        guard.write("sync the write-ahead log", StoreGuard.NO_KEYS, () -> {
            db.syncWal();
            health.wrote();
            return null;
        });
    }

    /** The once-a-second sync: {@link #sync}, logging a failure instead of throwing it. */
    private void syncQuietly() {
        try {
            sync();
        } catch (UncheckedIOException e) {
            // logged once by writeFailed, and again when the store writes again
        }
    }

    /** Stops the once-a-second sync, waiting for one in progress; the sync at close covers what comes after it. */
    void stop() {
        if (timer != null) {
            timer.stop();
        }
    }

    /**
     * The sync at close, unless the policy is {@code no} or the store was opened read-only; called after the last
     * write, before the database closes.
     *
     * @return the failure, or null; the caller throws it once it has closed the rest
     */
    RocksDBException syncAtClose() {
        if (!syncsAtClose) {
            return null;
        }
        try {
            db.syncWal();
            return null;
        } catch (RocksDBException e) {
            return e;
        }
    }
}
