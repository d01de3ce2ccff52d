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
 * <p>Why: a generation stops receiving keys at rollover, but its newest data still sits in level 0 or in a file
 * RocksDB merely moved down: compressed with the fast compressor and carrying 7-byte sequence numbers. One forced
 * compaction of the last level rewrites it with the last level's compressor and zeroed sequence numbers, which
 * takes several bytes off every key for the rest of its life, at the cost of writing each key once more. A
 * generation dropped while its seal runs has the seal cancelled; its column family handle is closed by whichever
 * of the drop and the seal finishes last, so no native call ever sees a closed handle.
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
        CompactRangeOptions options = new CompactRangeOptions()
                .setBottommostLevelCompaction(CompactRangeOptions.BottommostLevelCompaction.kForce)
                // Flushes and other compactions go on meanwhile; only this generation is rewritten.
                .setExclusiveManualCompaction(false);
        synchronized (g) {
            if (g.dropped) {
                options.close();
                return;
            }
            g.sealing = options;
        }
        current = g;
        try (FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
            db.flush(flush, g.handle);
            db.compactRange(g.handle, null, null, options);
        } catch (RocksDBException | IllegalArgumentException e) {
            // A cancelled compaction ends with a status code rocksdbjni's Status.Code does not know (14), which it
            // reports as IllegalArgumentException while building the RocksDBException: expected after a drop.
            if (!options.canceled()) {
                LOG.warn("exact store could not compact a finished generation; it stays larger on disk", e);
            }
        } finally {
            current = null;
            synchronized (g) {
                g.sealing = null;
                options.close();
                if (g.dropped) {
                    g.handle.close();
                }
            }
        }
    }

    /** Called after the generation's column family was dropped: cancels its seal or closes its handle now. */
    void release(Generation g) {
        synchronized (g) {
            g.dropped = true;
            if (g.sealing != null) {
                g.sealing.setCanceled(true);
            } else {
                g.handle.close();
            }
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
