package dev.deja.exact;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.rocksdb.CompactRangeOptions;
import org.rocksdb.FlushOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compacts each generation once, after rollover, into RocksDB's last level, on one background thread.
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
    private final ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "deja-exact-seal");
        t.setDaemon(true);
        return t;
    });
    private volatile Generation current;

    Sealer(RocksDB db) {
        this.db = db;
    }

    /** Queues the generation, which no longer receives new keys, for its final compaction. */
    void seal(Generation g) {
        thread.execute(() -> run(g));
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

    /** Cancels the running seal, drops queued ones and waits for the thread to stop. */
    @Override
    public void close() {
        thread.shutdownNow();
        Generation g = current;
        if (g != null) {
            synchronized (g) {
                if (g.sealing != null) {
                    g.sealing.setCanceled(true);
                }
            }
        }
        try {
            if (!thread.awaitTermination(1, TimeUnit.MINUTES)) {
                LOG.warn("exact store: a generation compaction did not stop within a minute of close");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
