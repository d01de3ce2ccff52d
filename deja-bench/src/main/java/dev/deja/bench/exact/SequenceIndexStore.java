package dev.deja.bench.exact;

import dev.deja.seen.Verdict;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompressionType;
import org.rocksdb.DBOptions;
import org.rocksdb.LRUCache;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Statistics;
import org.rocksdb.StatsLevel;
import org.rocksdb.TickerType;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * The baseline {@link ExactLoad} measures the exact store against: the RocksDB layout of Segment's de-duplication
 * worker, with keys in one column family, a secondary index from sequence number to key in another, and age-out by
 * deleting the oldest keys and their index entries one by one, resuming from a stored seek hint.
 *
 * <p>It gets the same table tuning as the exact store (bloom filters, block cache, compression), so the
 * comparison isolates the data layout and the age-out, not the settings. Calls are serialized: Segment's worker
 * runs one loop per partition. Keys are sent as the 16 bytes of a UUID, which is what the exact store keeps of
 * one.
 */
final class SequenceIndexStore implements LoadTarget {

    private static final byte[] SEEK_HINT = "seek_hint".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private final Statistics statistics = new Statistics();
    private final LRUCache cache;
    private final BloomFilter bloom = new BloomFilter(10, false);
    private final DBOptions dbOptions;
    private final ColumnFamilyOptions cfOptions;
    private final WriteOptions writeOptions = new WriteOptions();
    private final ReadOptions readOptions = new ReadOptions();
    private final RocksDB db;
    private final List<ColumnFamilyHandle> handles = new ArrayList<>();
    private final ColumnFamilyHandle keys;
    private final ColumnFamilyHandle seq;
    /** The keys a day holds: after each batch, the oldest keys beyond these are deleted. */
    private final long dayKeys;

    private long nextSeq;
    private long oldestSeq;

    SequenceIndexStore(Path dir, long blockCacheBytes, long dayKeys) throws RocksDBException {
        this.dayKeys = dayKeys;
        RocksDB.loadLibrary();
        statistics.setStatsLevel(StatsLevel.EXCEPT_DETAILED_TIMERS);
        cache = new LRUCache(blockCacheBytes);
        dbOptions = new DBOptions()
                .setCreateIfMissing(true)
                .setCreateMissingColumnFamilies(true)
                .setStatistics(statistics)
                .setMaxBackgroundJobs(2)
                .setBytesPerSync(1 << 20);
        cfOptions = new ColumnFamilyOptions()
                .setTableFormatConfig(new BlockBasedTableConfig()
                        .setFilterPolicy(bloom)
                        .setBlockCache(cache)
                        .setBlockSize(16 * 1024)
                        .setBlockRestartInterval(32)
                        .setOptimizeFiltersForMemory(true))
                .setWriteBufferSize(64L << 20)
                .setMaxWriteBufferNumber(3)
                .setMemtablePrefixBloomSizeRatio(0.05)
                .setMemtableWholeKeyFiltering(true)
                .setLevelCompactionDynamicLevelBytes(true)
                .setCompressionType(CompressionType.LZ4_COMPRESSION)
                .setBottommostCompressionType(CompressionType.ZSTD_COMPRESSION);
        db = RocksDB.open(
                dbOptions,
                dir.toString(),
                List.of(
                        new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, cfOptions),
                        new ColumnFamilyDescriptor(
                                "seq".getBytes(java.nio.charset.StandardCharsets.US_ASCII), cfOptions)),
                handles);
        keys = handles.get(0);
        seq = handles.get(1);
    }

    @Override
    public String memtable() {
        return "64MiB (the baseline's own)";
    }

    @Override
    public byte[] key(int thread, long index) {
        return UuidKeys.bytes(thread, index);
    }

    /** MultiGet the keys, then one WriteBatch with each new key and its sequence-number index entry. */
    @Override
    public synchronized Verdict[] checkThenAddAll(List<byte[]> batch) throws RocksDBException {
        List<byte[]> found = db.multiGetAsList(readOptions, Collections.nCopies(batch.size(), keys), batch);
        Verdict[] out = new Verdict[batch.size()];
        Set<ByteBuffer> inBatch = new HashSet<>();
        try (WriteBatch wb = new WriteBatch()) {
            for (int i = 0; i < out.length; i++) {
                byte[] key = batch.get(i);
                if (found.get(i) != null || !inBatch.add(ByteBuffer.wrap(key))) {
                    out[i] = Verdict.DUPLICATE;
                    continue;
                }
                out[i] = Verdict.NEW;
                byte[] s = ByteBuffer.allocate(8).putLong(nextSeq++).array();
                wb.put(keys, key, s);
                wb.put(seq, s, key);
            }
            db.write(writeOptions, wb);
        }
        return out;
    }

    /** Ages out: the oldest keys beyond a day's go. */
    @Override
    public void afterBatch(int newKeys) throws RocksDBException {
        ageOut();
    }

    /** Segment's delete(n): walks the index from the seek hint and deletes the oldest keys beyond a day's. */
    private synchronized void ageOut() throws RocksDBException {
        long n = nextSeq - oldestSeq - dayKeys;
        if (n <= 0) {
            return;
        }
        try (RocksIterator it = db.newIterator(seq, readOptions);
                WriteBatch wb = new WriteBatch()) {
            byte[] hint = db.get(SEEK_HINT);
            if (hint != null) {
                it.seek(hint);
            } else {
                it.seekToFirst();
            }
            long deleted = 0;
            byte[] last = null;
            for (; it.isValid() && deleted < n; it.next(), deleted++) {
                last = it.key();
                wb.delete(seq, last);
                wb.delete(keys, it.value());
            }
            it.status();
            if (last != null) {
                wb.put(
                        SEEK_HINT,
                        ByteBuffer.allocate(8)
                                .putLong(ByteBuffer.wrap(last).getLong() + 1)
                                .array());
            }
            db.write(writeOptions, wb);
            oldestSeq += deleted;
        }
    }

    @Override
    public void flush() throws RocksDBException {
        try (var fo = new org.rocksdb.FlushOptions().setWaitForFlush(true)) {
            db.flush(fo, handles);
        }
    }

    @Override
    public long pendingCompaction() throws RocksDBException {
        return property("rocksdb.estimate-pending-compaction-bytes") + property("rocksdb.num-running-compactions");
    }

    @Override
    public long liveSstBytes() throws RocksDBException {
        return property("rocksdb.live-sst-files-size");
    }

    /** The keys of the key column family; the index holds as many entries, which are part of its cost. */
    @Override
    public long keysHeld() throws RocksDBException {
        return property("rocksdb.estimate-num-keys") / 2;
    }

    @Override
    public long[] bytesWritten() {
        return new long[] {
            statistics.getTickerCount(TickerType.WAL_FILE_BYTES),
            statistics.getTickerCount(TickerType.FLUSH_WRITE_BYTES),
            statistics.getTickerCount(TickerType.COMPACT_WRITE_BYTES)
        };
    }

    @Override
    public Optional<String> state() {
        return Optional.empty();
    }

    /** A RocksDB integer property summed over both column families. */
    private long property(String name) throws RocksDBException {
        return db.getLongProperty(keys, name) + db.getLongProperty(seq, name);
    }

    @Override
    public void close() {
        handles.forEach(ColumnFamilyHandle::close);
        db.close();
        readOptions.close();
        writeOptions.close();
        cfOptions.close();
        dbOptions.close();
        bloom.close();
        cache.close();
        statistics.close();
    }
}
