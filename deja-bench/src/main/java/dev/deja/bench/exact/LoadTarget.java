package dev.deja.bench.exact;

import dev.deja.seen.Verdict;
import java.util.List;
import java.util.Optional;
import org.rocksdb.RocksDBException;

/**
 * A store {@link ExactLoad} drives: the exact store ({@link ExactTarget}) or the baseline it is measured against
 * ({@link SequenceIndexStore}). Each keeps a one-day window in which a given number of new keys arrive, in its own
 * way, and reports what the driver prints in the same units.
 */
interface LoadTarget extends AutoCloseable {

    /** How the driver's first line describes the store's memtables. */
    String memtable();

    /** The key the driver sends for the {@code index}-th key of a thread, in the form this store is sent it. */
    byte[] key(int thread, long index);

    /** {@code checkThenAdd} of every key, in order. */
    Verdict[] checkThenAddAll(List<byte[]> keys) throws RocksDBException;

    /** Called after each batch with the new keys it held: time passes, and keys older than a day go. */
    void afterBatch(int newKeys) throws RocksDBException;

    /** Writes every memtable to table files and waits. */
    void flush() throws RocksDBException;

    /** Bytes compaction still has to rewrite plus compactions running: 0 once compaction has caught up. */
    long pendingCompaction() throws RocksDBException;

    /** Bytes of live table files. */
    long liveSstBytes() throws RocksDBException;

    /** Keys held, as RocksDB estimates them. */
    long keysHeld() throws RocksDBException;

    /** Bytes written so far to the write-ahead log, by flushes and by compactions, in that order. */
    long[] bytesWritten();

    /** What else the driver prints at the end of a phase, if anything. */
    Optional<String> state();

    @Override
    void close();
}
