package dev.deja.exact;

import dev.deja.background.SerialWork;
import dev.deja.exact.threads.ExactThreads;
import dev.deja.hash.Hash128;
import java.util.List;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fills the {@link KeyFilter}s of the generations a reopened store found on disk, in the background on threads all
 * exact stores share ({@link ExactThreads}), so that opening does not wait for a scan of every key.
 *
 * <p>Each generation's keys are read back in key order from a RocksDB iterator. A key written while the scan runs
 * either is in the iterator's view or is added by its writer, who always adds to the filter before writing, so a
 * completed scan leaves no key out. Until its scan completes a generation's filter rules nothing out and lookups
 * ask RocksDB, as they would without filters. A scan that fails (a read error) leaves that filter incomplete: the
 * store stays correct, only slower, and says so in its log.
 */
final class FilterLoader implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(FilterLoader.class);
    /** Keys read between two checks for a drop or a close. */
    private static final int STEP = 4096;
    /** Initial size of the key array; a longer key grows it. */
    private static final int KEY_BUFFER = 256;

    private final RocksDB db;
    private final List<Generation> generations;
    private final SerialWork work;
    private volatile boolean stopped;

    /**
     * Starts loading the incomplete filters of the generations (those no {@link KeyFilterFiles file} restored), newest
     * first (the newest answers most duplicates).
     */
    FilterLoader(RocksDB db, List<Generation> generations, String store) {
        this.db = db;
        this.generations = List.copyOf(generations).reversed();
        this.work = ExactThreads.generations("exact store " + store + ": filter loading", () -> {
            run();
            return SerialWork.IDLE; // one run loads them all
        });
        work.wake();
    }

    private void run() {
        long started = System.nanoTime();
        long keys = 0;
        int loaded = 0;
        for (Generation g : generations) {
            if (stopped) {
                return;
            }
            if (!g.filter.complete() && g.pin()) {
                try {
                    keys += load(g);
                    loaded++;
                } catch (RocksDBException | RuntimeException e) {
                    LOG.warn(
                            "exact store could not read back the keys of a generation; lookups in it ask RocksDB"
                                    + " directly (correct, slower)",
                            e);
                } finally {
                    g.unpin();
                }
            }
        }
        if (!stopped) {
            LOG.info(
                    "exact store filters loaded: {} keys in {} generations, {} ms",
                    keys,
                    loaded,
                    (System.nanoTime() - started) / 1_000_000);
        }
    }

    private long load(Generation g) throws RocksDBException {
        long keys = 0;
        // Not cached: a one-off sequential scan would evict the blocks lookups use. Readahead makes it sequential I/O.
        // Keys are read into one reusable array, so that the scan allocates nothing per key.
        byte[] bytes = new byte[KEY_BUFFER];
        try (ReadOptions options = new ReadOptions().setFillCache(false).setReadaheadSize(4 << 20);
                RocksIterator it = db.newIterator(g.handle, options)) {
            for (it.seekToFirst(); it.isValid(); it.next()) {
                int length = it.key(bytes);
                if (length > bytes.length) {
                    bytes = new byte[length];
                    it.key(bytes);
                }
                Hash128 h = Hash128.of(bytes, 0, length);
                g.filter.add(h.high(), h.low());
                if (++keys % STEP == 0 && (stopped || g.dropped())) {
                    return keys;
                }
            }
            it.status();
        }
        g.filter.markComplete();
        return keys;
    }

    /**
     * Stops the loading (filters not yet complete stay so; one not yet begun never begins) and waits for it to let
     * go of the store.
     */
    @Override
    public void close() {
        stopped = true;
        work.stop();
    }
}
