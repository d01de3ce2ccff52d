package dev.deja.exact;

import dev.deja.background.SerialWork;
import dev.deja.exact.threads.ExactThreads;
import java.util.ArrayDeque;
import java.util.Queue;
import org.rocksdb.CompactRangeOptions;
import org.rocksdb.FlushOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compacts each generation once, after rollover, into RocksDB's last level, one at a time, in the background on
 * threads all exact stores share ({@link ExactThreads}).
 *
 * <p>Why: a generation stops receiving keys at rollover, but its data still sits in many level-0 files (or files
 * RocksDB merely moved down), each with its own table filter and carrying 7-byte sequence numbers. One forced
 * compaction of the last level merges them into one sorted run with zeroed sequence numbers and no table filters
 * ({@link Tuning}), which takes bytes off every key for the rest of its life, at the cost of writing each key once
 * more. A
 * generation dropped while its seal runs has the seal cancelled ({@link Generation#drop}); the seal pins the
 * generation, so its column family is dropped, and its handle closed, only once the seal has let go.
 */
final class Sealer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Sealer.class);

    private final RocksDB db;
    private final SerialWork work;
    /** The generations waiting for their seal, oldest first; guarded by this. */
    private final Queue<Generation> queued = new ArrayDeque<>();

    private volatile Generation current;
    /** Set by {@link #close}: a seal that starts after it, or that it could not see, cancels itself. */
    private volatile boolean closing;

    Sealer(RocksDB db, String store) {
        this.db = db;
        this.work = ExactThreads.generations("exact store " + store + ": seals", this::sealNext);
    }

    /** Queues the generation, which no longer receives new keys, for its final compaction. */
    void seal(Generation g) {
        synchronized (this) {
            queued.add(g);
        }
        work.wake();
    }

    /** One run of the work: seals the oldest generation waiting, and runs again while others wait. */
    private long sealNext() {
        Generation g;
        synchronized (this) {
            g = queued.poll();
        }
        if (g != null) {
            run(g);
        }
        synchronized (this) {
            return queued.isEmpty() ? SerialWork.IDLE : 0;
        }
    }

    private void run(Generation g) {
        if (!g.pin()) {
            return; // dropped before its turn
        }
        CompactRangeOptions options = new CompactRangeOptions()
                .setBottommostLevelCompaction(CompactRangeOptions.BottommostLevelCompaction.kForce)
                // Flushes and other compactions go on meanwhile; only this generation is rewritten.
                .setExclusiveManualCompaction(false);
        synchronized (g) {
            g.sealing = options;
            if (g.dropped()) {
                options.setCanceled(true);
            }
        }
        current = g;
        if (closing) {
            options.setCanceled(true); // close read current before it was set, so it cancels nothing
        }
        try (FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
            if (!options.canceled()) {
                db.flush(flush, g.handle);
                db.compactRange(g.handle, null, null, options);
            }
        } catch (RocksDBException | IllegalArgumentException e) {
            // A cancelled seal ends in an error, expected after a drop or at close. rocksdbjni turns a status code
            // its Status.Code does not know (14, a dropped column family) into an IllegalArgumentException; the
            // column family is dropped only once this seal lets go of it (Generation#drop), so that means a bug.
            if (!options.canceled()) {
                LOG.warn("exact store could not compact a finished generation; it stays larger on disk", e);
            }
        } finally {
            current = null;
            synchronized (g) {
                g.sealing = null;
            }
            options.close();
            g.unpin();
        }
    }

    /**
     * Drops the queued seals, cancels the running one and waits for it to let go of the store: once this returns no
     * seal of this store runs.
     */
    @Override
    public void close() {
        closing = true;
        synchronized (this) {
            queued.clear();
        }
        Generation g = current;
        if (g != null) {
            synchronized (g) {
                if (g.sealing != null) {
                    g.sealing.setCanceled(true);
                }
            }
        }
        work.stop();
    }
}
