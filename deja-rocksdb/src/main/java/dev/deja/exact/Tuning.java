package dev.deja.exact;

import dev.deja.journal.FsyncPolicy;
import java.util.Properties;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompressionType;
import org.rocksdb.ConfigOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.ReadOptions;
import org.rocksdb.Statistics;
import org.rocksdb.StatsLevel;
import org.rocksdb.WALRecoveryMode;
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

    /** The most memtables a store holds at once (RocksDB max_write_buffer_number). */
    static final int MEMTABLES = 3;

    final Statistics statistics;
    final DBOptions dbOptions;
    final ColumnFamilyOptions cfOptions;
    final WriteOptions writeOptions;
    final ReadOptions readOptions;

    /** The options for a store opened with {@code store}'s memory sizes and durability. */
    Tuning(StoreOptions store) {
        statistics = new Statistics();
        // Tickers (bytes flushed, compacted, written) are what the benchmarks and metrics read; per-operation
        // timers would cost a clock read per lookup on the hot path.
        statistics.setStatsLevel(StatsLevel.EXCEPT_DETAILED_TIMERS);

        // The block-based table, configured from an options string because RocksJava has no class for the Ribbon
        // filter. The string is parsed once, into the one ColumnFamilyOptions every column family is opened with:
        // they share its table factory and so one block cache (each parse would create a cache of its own).
        String table = String.join(
                ";",
                // Holds uncompressed data blocks: a hit saves a read and a decompression when a duplicate or a
                // filter false positive has to look at the data. Random keys give it no locality, so it is sized as
                // a budget, not for a hit rate; the operating system's page cache behind it keeps the compressed
                // blocks.
                "block_cache=" + store.blockCacheBytes(),
                // A whole-key filter in the table files a flush writes, at the false-positive rate of a
                // 10-bit-per-key Bloom filter (about 1%). Lookups reach RocksDB only for keys the store's in-memory
                // filters ({@link KeyFilter}) do not rule out, so the table filters matter only while those are read
                // back after a reopen that found none kept, as after a crash ({@link FilterLoader}), and for their
                // 0.1% false positives. The last level, where a sealed generation lives, gets none
                // (optimize_filters_for_hits below).
                "filter_policy=ribbonfilter:10",
                "whole_key_filtering=true",
                // The filters stay out of the block cache: evicting them would turn a miss into a disk read.
                "cache_index_and_filter_blocks=false",
                // Sizes each filter to its table file's key count instead of rounding up to allocation classes.
                "optimize_filters_for_memory=true",
                // 16 KiB blocks by default: the index holds one entry per block, so larger blocks mean a smaller
                // index (under 0.1 byte per key) and give the compressor more context; a lookup that reaches the
                // data reads and decompresses one block, which only duplicates and false positives do
                // (ExactStoreBuilder#blockBytes).
                "block_size=" + store.blockBytes(),
                // Keys are delta-encoded against the previous key, restarting every 32 entries: random sorted
                // 16-byte keys share about log2(n)/8 leading bytes with their neighbour (3 bytes at 10^8 keys), and
                // fewer restart points keep fewer full keys and offsets.
                "block_restart_interval=32");
        Properties tableProps = new Properties();
        tableProps.setProperty("block_based_table_factory", "{" + table + "}");
        try (ConfigOptions config = new ConfigOptions().setIgnoreUnknownOptions(false)) {
            cfOptions = ColumnFamilyOptions.getColumnFamilyOptionsFromProps(config, tableProps);
        }
        if (cfOptions == null) {
            statistics.close();
            throw new IllegalStateException("RocksDB rejected the exact store's table options: " + table);
        }

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
                .setMaxTotalWalSize(4 * store.memtableBytes())
                // A crash leaves at most a torn last record, which this mode cuts; a record damaged before the tail
                // stops the open with a corruption error. RocksDB's default (point-in-time recovery) instead replays
                // up to the first damaged record and opens, so every acknowledged key after it reads as new.
                .setWalRecoveryMode(WALRecoveryMode.TolerateCorruptedTailRecords);

        cfOptions
                .setWriteBufferSize(store.memtableBytes())
                .setMaxWriteBufferNumber(MEMTABLES)
                // No Bloom filter over the memtable: the store's key filters keep the misses, the common case, away
                // from it, and one would cost a hash and bit updates on every insert.
                // Levelled compaction with dynamic level sizes keeps ~90% of the data in the last level, where
                // sequence numbers are zeroed, and bounds space overhead to ~11%. Age-out never rewrites data: a
                // dropped generation's files are deleted, not compacted. A generation that stops growing is
                // compacted once more, into the last level ({@link Sealer}).
                .setLevelCompactionDynamicLevelBytes(true)
                // Random key bytes do not compress, but the per-entry headers, the 8-byte sequence/type trailers
                // and the time fields do, and only an entropy coder gets them: ZSTD (default level) also for
                // flushes and upper levels, where the newest generation sits until it is sealed. LZ4 would leave
                // those bytes on every key of that generation, and ZSTD's default level costs a flush little CPU
                // for the few dozen bytes it compresses per key.
                .setCompressionType(CompressionType.ZSTD_COMPRESSION)
                // The same in the last level, which holds most keys: a higher ZSTD level there takes a little more
                // off but costs compaction CPU on every key; the bytes the table filters no longer take in that
                // level (below) pay for the default level.
                // No filters in the last level: their bytes, on disk and in memory, buy nothing once the store's
                // own filters are loaded. While those load after a reopen, a lookup in a sealed generation reads an
                // index entry and a data block instead, so lookups are slower until the loading ends.
                .setOptimizeFiltersForHits(true);
        // A generation's flushes pile up in level 0 instead of being merged into the last level every 4 files:
        // each such merge rewrites the whole of the generation's last level, and the seal ({@link Sealer})
        // rewrites it all once more when the generation ends. Many level-0 files make RocksDB lookups probe more
        // files, but lookups reach RocksDB only for keys the store's own filters ({@link KeyFilter}) do not rule
        // out. A generation of more than 64 flushes still gets merged; writes slow down at 96 level-0 files and
        // stop at 128 until compaction catches up.
        cfOptions
                .setLevel0FileNumCompactionTrigger(64)
                .setLevel0SlowdownWritesTrigger(96)
                .setLevel0StopWritesTrigger(128);

        // Without the write-ahead log (a store whose writes are replayed from elsewhere after a crash), a write is
        // one memtable insert, and durable once its memtable is flushed ({@link StoreEngine#sync}).
        writeOptions =
                new WriteOptions().setSync(store.fsync() == FsyncPolicy.ALWAYS).setDisableWAL(!store.writeAheadLog());
        // Reads fill the block cache: the blocks a lookup reaches are those of duplicates, and a key that came
        // twice is the likeliest to come again. Checksums are verified on every block read (RocksDB's default,
        // set here so that no one turns it off): a damaged block must fail the lookup, never read as a miss.
        readOptions = new ReadOptions().setVerifyChecksums(true);
    }

    @Override
    public void close() {
        // Reverse order of creation; the table factory, its cache and filter are owned by cfOptions.
        readOptions.close();
        writeOptions.close();
        cfOptions.close();
        dbOptions.close();
        statistics.close();
    }
}
