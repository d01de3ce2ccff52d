package dev.deja.exact;

import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompressionOptions;
import org.rocksdb.CompressionType;
import org.rocksdb.DBOptions;
import org.rocksdb.LRUCache;
import org.rocksdb.ReadOptions;
import org.rocksdb.Statistics;
import org.rocksdb.StatsLevel;
import org.rocksdb.WriteOptions;

/**
 * The RocksDB options of the exact store, tuned for its workload, and the native objects they hold.
 *
 * <p>The workload is unusual for RocksDB: keys are random (no locality for the block cache to exploit), values are
 * one to a dozen bytes, almost every lookup misses (most messages are new), and data is never deleted key by key
 * but by dropping a whole column family. Each setting below says what it buys for that workload. Every column
 * family (generation) shares these options, so the block cache and memory budget do not grow with their number.
 */
final class Tuning implements AutoCloseable {

    final Statistics statistics;
    final LRUCache blockCache;
    final BloomFilter bloom;
    final CompressionOptions bottommostCompression;
    final DBOptions dbOptions;
    final ColumnFamilyOptions cfOptions;
    final WriteOptions writeOptions;
    final ReadOptions readOptions;

    Tuning(long blockCacheBytes, long memtableBytes, FsyncPolicy fsync) {
        statistics = new Statistics();
        // Tickers (bytes flushed, compacted, written) are what the benchmarks and metrics read; per-operation
        // timers would cost a clock read per lookup on the hot path.
        statistics.setStatsLevel(StatsLevel.EXCEPT_DETAILED_TIMERS);

        // Holds uncompressed data blocks: a hit saves a read and a decompression when a duplicate or a filter
        // false positive has to look at the data. Random keys give it no locality, so it is sized as a budget, not
        // for a hit rate; the operating system's page cache behind it keeps the compressed blocks.
        blockCache = new LRUCache(blockCacheBytes);

        // A whole-key Bloom filter per table file at 10 bits per key (about 1% false positives): a lookup of a new
        // key, the common case, is answered from the filter without touching a data block. The filters stay out
        // of the block cache (cacheIndexAndFilterBlocks = false): about 1.3 bytes of memory per key that must
        // never be evicted, because evicting them would turn every miss into a disk read.
        bloom = new BloomFilter(10, false);
        BlockBasedTableConfig table = new BlockBasedTableConfig()
                .setFilterPolicy(bloom)
                .setWholeKeyFiltering(true)
                .setCacheIndexAndFilterBlocks(false)
                // Sizes each filter to its table file's key count instead of rounding up to allocation classes.
                .setOptimizeFiltersForMemory(true)
                .setBlockCache(blockCache)
                // 16 KiB blocks: the index holds one entry per block, so larger blocks mean a smaller index
                // (under 0.1 byte per key) and give the compressor more context; a lookup that reaches the data
                // decompresses one block, which only duplicates and false positives do.
                .setBlockSize(16 * 1024)
                // Keys are delta-encoded against the previous key, restarting every 32 entries: random sorted
                // 16-byte keys share about log2(n)/8 leading bytes with their neighbour (3 bytes at 10^8 keys), and
                // fewer restart points keep fewer full keys and offsets.
                .setBlockRestartInterval(32);

        bottommostCompression = new CompressionOptions().setEnabled(true).setLevel(12);
        dbOptions = new DBOptions()
                .setCreateIfMissing(true)
                .setCreateMissingColumnFamilies(true)
                .setStatistics(statistics)
                // Flushes and compactions run in the background; two jobs match the small machines this runs on
                // and leave the request threads a core.
                .setMaxBackgroundJobs(2)
                // Writes file data to disk in 1 MiB steps instead of one burst at file close, so a flush or
                // compaction does not stall WAL syncs behind gigabytes of dirty pages.
                .setBytesPerSync(1 << 20)
                // A WAL file can only be deleted once every column family that wrote to it has flushed. Old
                // generations are flushed at rollover; this bound forces any straggler so the WAL stays small.
                .setMaxTotalWalSize(4 * memtableBytes);

        cfOptions = new ColumnFamilyOptions()
                .setTableFormatConfig(table)
                .setWriteBufferSize(memtableBytes)
                .setMaxWriteBufferNumber(3)
                // A Bloom filter over the memtable's whole keys: a miss in the memtable, the common case, costs a
                // few hashed bit tests instead of a skiplist walk of ~20 cache misses.
                .setMemtablePrefixBloomSizeRatio(0.05)
                .setMemtableWholeKeyFiltering(true)
                // Levelled compaction with dynamic level sizes keeps ~90% of the data in the last level, where
                // sequence numbers are zeroed and the strongest compression applies, and bounds space overhead
                // to ~11%. Age-out never rewrites data: a dropped generation's files are deleted, not compacted.
                // A generation that stops growing is compacted once more, into the last level ({@link Sealer}).
                .setLevelCompactionDynamicLevelBytes(true)
                // Upper levels are rewritten soon, so they get the cheap compressor; random key bytes do not
                // compress, but the per-entry headers, the 8-byte sequence/type trailers and the time fields do.
                .setCompressionType(CompressionType.LZ4_COMPRESSION)
                // The last level holds most keys and is rewritten least often: ZSTD squeezes the same redundancy
                // further. Level 12 instead of the default 3 took 2.4% more off (20.18 to 19.71 bytes per key at
                // 2 million keys) for compaction CPU that a sealed generation pays once.
                .setBottommostCompressionType(CompressionType.ZSTD_COMPRESSION)
                .setBottommostCompressionOptions(bottommostCompression)
                // Filters on the last level stay: most lookups miss, and it is the last level that would
                // otherwise be read for every miss (optimize_filters_for_hits is for the opposite workload).
                .setOptimizeFiltersForHits(false);

        writeOptions = new WriteOptions().setSync(fsync == FsyncPolicy.ALWAYS);
        // Reads fill the block cache: the blocks a lookup reaches are those of duplicates, and a key that came
        // twice is the likeliest to come again.
        readOptions = new ReadOptions();
    }

    @Override
    public void close() {
        // Reverse order of creation: options reference the table config, cache and filter.
        readOptions.close();
        writeOptions.close();
        cfOptions.close();
        dbOptions.close();
        bottommostCompression.close();
        bloom.close();
        blockCache.close();
        statistics.close();
    }
}
