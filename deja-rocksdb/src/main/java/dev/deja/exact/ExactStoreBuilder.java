package dev.deja.exact;

import dev.deja.checks.Require;
import dev.deja.journal.FsyncPolicy;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;

/**
 * Opens an {@link ExactStore}: {@code ExactStoreBuilder.at(directory).window(Duration.ofHours(24)).open()}. Options
 * are validated as they are set; at least one of {@link #window} and {@link #maxBytes} is required. {@link #open()}
 * creates the store or reopens the generations a directory holds. The builder is where a store begins, as in
 * Caffeine, so that the store does not know how it is built.
 */
public final class ExactStoreBuilder {

    // The ranges the setters accept, public so that a server can check parameters before it writes anything.
    /** Shortest window: time slices of a few milliseconds would make a column family per maintenance call. */
    public static final Duration MIN_WINDOW = Duration.ofSeconds(1);

    /** Longest window: a quarter of the longest in milliseconds, so that times plus windows stay within a long. */
    public static final Duration MAX_WINDOW = Duration.ofMillis(Long.MAX_VALUE / 4);
    /** Fewest generations a window may be cut into. */
    public static final int MIN_GENERATIONS = 2;
    /** Most generations a window may be cut into; each is a column family that a lookup may probe. */
    public static final int MAX_GENERATIONS = 1024;
    /** Largest limit {@link #maxValueBytes} accepts: 1 MiB. */
    public static final int MAX_VALUE_BYTES = 1 << 20;
    /** Smallest block cache {@link #blockCacheBytes} accepts: 1 MiB. */
    public static final long MIN_BLOCK_CACHE_BYTES = 1 << 20;
    /** Smallest table-file block {@link #blockBytes} accepts: 1 KiB. */
    public static final int MIN_BLOCK_BYTES = 1 << 10;
    /** Largest table-file block {@link #blockBytes} accepts: 1 MiB. */
    public static final int MAX_BLOCK_BYTES = 1 << 20;
    /** Smallest memtable {@link #memtableBytes} accepts: 64 KiB. */
    public static final long MIN_MEMTABLE_BYTES = 64 << 10;
    /** Largest memtable {@link #memtableBytes} accepts: 16 GiB. */
    public static final long MAX_MEMTABLE_BYTES = 1L << 34;

    private final Path directory;
    private Duration window;
    private long maxBytes;
    private int generations = 8;
    private Duration minWindow;
    private IdFormat idFormat = IdFormat.RAW;
    private boolean refreshOnDuplicate;
    private boolean countDuplicates;
    private FsyncPolicy fsync = FsyncPolicy.EVERYSEC;
    private boolean writeAheadLog = true;
    private boolean values;
    private int maxValueBytes = 512;
    private long blockCacheBytes = 256L << 20;
    private int blockBytes = 16 << 10;
    private long memtableBytes = 16L << 20;
    private Clock clock = Clock.systemUTC();

    private ExactStoreBuilder(Path directory) {
        this.directory = directory;
    }

    /** A builder for a store kept in the given directory (created if missing, reopened if it holds one). */
    public static ExactStoreBuilder at(Path directory) {
        return new ExactStoreBuilder(Require.nonNull("directory", directory));
    }

    /** Keys are held for at least this long (and at most one slice, {@code window / generations}, longer). */
    public ExactStoreBuilder window(Duration window) {
        Require.nonNull("window", window);
        Require.inRange("window (ms)", window.toMillis(), MIN_WINDOW.toMillis(), MAX_WINDOW.toMillis());
        this.window = window;
        return this;
    }

    /**
     * Table files plus memtables are kept under this many bytes by dropping the oldest generations; see
     * {@link #smallestMaxBytes} for the least that makes sense.
     */
    public ExactStoreBuilder maxBytes(long maxBytes) {
        this.maxBytes = Require.positive("maxBytes", maxBytes);
        return this;
    }

    /**
     * The smallest size bound worth setting with these generations and memtable size: one memtable per generation.
     * A generation rolls over once it holds its share of the bound ({@code maxBytes / generations}), memtable
     * included, and RocksDB allocates a memtable in blocks (an eighth of its size, at most 1 MiB; 2 KiB when empty).
     * With a smaller share generations roll over before their memtable fills, each flushed and compacted small; with
     * a share near one block they roll over every few keys. Not enforced here: a store created with a smaller bound
     * still opens (and an empty generation never rolls over for size, so an idle store does not roll over at every
     * maintenance).
     */
    public static long smallestMaxBytes(int generations, long memtableBytes) {
        return Math.multiplyExact(generations, memtableBytes);
    }

    /** How many time slices the window is cut into (default 8): more means finer age-out, more probes. */
    public ExactStoreBuilder generations(int generations) {
        this.generations = (int) Require.inRange("generations", generations, MIN_GENERATIONS, MAX_GENERATIONS);
        return this;
    }

    /** Below this effective window (only the size bound can cause it) the store warns; at most the window. */
    public ExactStoreBuilder minWindow(Duration minWindow) {
        Require.nonNull("minWindow", minWindow);
        Require.positive("minWindow (ms)", minWindow.toMillis());
        this.minWindow = minWindow;
        return this;
    }

    /** How textual ids become stored bytes (default {@link IdFormat#RAW}); fixed for the store's lifetime. */
    public ExactStoreBuilder idFormat(IdFormat idFormat) {
        this.idFormat = Require.nonNull("idFormat", idFormat);
        return this;
    }

    /** Whether a key seen again is kept for a new full window from now (default false). */
    public ExactStoreBuilder refreshOnDuplicate(boolean refresh) {
        this.refreshOnDuplicate = refresh;
        return this;
    }

    /** Whether each key counts its duplicates, shown by {@link ExactStore#info(byte[])} (default false). */
    public ExactStoreBuilder countDuplicates(boolean count) {
        this.countDuplicates = count;
        return this;
    }

    /**
     * Whether the store keeps a small value and an optional expiry per key (the key-value layout, for
     * {@link ExactStore#putIfAbsent} and its kin; default false). Fixed when the store is created and recorded in
     * its metadata; reopening with a different setting fails with a clear error.
     */
    public ExactStoreBuilder values(boolean values) {
        this.values = values;
        return this;
    }

    /** Largest value accepted by put/putIfAbsent, default 512 bytes, in [0, 1 MiB]; not recorded in the store. */
    public ExactStoreBuilder maxValueBytes(int maxValueBytes) {
        this.maxValueBytes = (int) Require.inRange("maxValueBytes", maxValueBytes, 0, MAX_VALUE_BYTES);
        return this;
    }

    /** When the write-ahead log is synced (default {@link FsyncPolicy#EVERYSEC}). */
    public ExactStoreBuilder fsync(FsyncPolicy fsync) {
        this.fsync = Require.nonNull("fsync", fsync);
        return this;
    }

    /**
     * Whether writes go through RocksDB's write-ahead log (default true). Without it a write is durable only once
     * its memtable is in a table file: after {@link ExactStore#sync()} or {@link ExactStore#flush()}, at
     * {@link ExactStore#close()}, or when RocksDB flushes a full memtable; a crash loses the rest. For a store whose
     * writes are kept elsewhere too and replayed after a crash (a Kafka changelog), which saves writing each key
     * twice. Not with {@link FsyncPolicy#ALWAYS}, which syncs that log at every write.
     */
    public ExactStoreBuilder writeAheadLog(boolean writeAheadLog) {
        this.writeAheadLog = writeAheadLog;
        return this;
    }

    /** Bytes of RocksDB block cache, shared by all generations (default 256 MiB). */
    public ExactStoreBuilder blockCacheBytes(long bytes) {
        this.blockCacheBytes = Require.inRange("blockCacheBytes", bytes, MIN_BLOCK_CACHE_BYTES, Long.MAX_VALUE);
        return this;
    }

    /**
     * Bytes of data per block of the table files (RocksDB block_size, default 16 KiB). A lookup that reaches the data
     * (a key that is held, or a filter's false positive) reads and decompresses one block: smaller blocks make that
     * cheaper where copies of keys the block cache does not hold are common, at the price of a larger index and a
     * little less compression (docs/BENCHMARKS.md, section "Kafka worker").
     */
    public ExactStoreBuilder blockBytes(int bytes) {
        this.blockBytes = (int) Require.inRange("blockBytes", bytes, MIN_BLOCK_BYTES, MAX_BLOCK_BYTES);
        return this;
    }

    /** The most memtables a store holds at once (RocksDB max_write_buffer_number): the native memory they take. */
    public static final int MEMTABLES = Tuning.MEMTABLES;

    /**
     * Bytes of one memtable (RocksDB write_buffer_size, default 16 MiB); up to {@value #MEMTABLES} exist at once.
     * Inserting a random key walks the memtable's skiplist with a cache miss per level, so a smaller memtable inserts
     * faster, at the price of more, smaller level-0 files ({@link Tuning}).
     */
    public ExactStoreBuilder memtableBytes(long bytes) {
        this.memtableBytes = Require.inRange("memtableBytes", bytes, MIN_MEMTABLE_BYTES, MAX_MEMTABLE_BYTES);
        return this;
    }

    /** The clock that dates keys and drives rollover and age-out (default UTC system clock). */
    public ExactStoreBuilder clock(Clock clock) {
        this.clock = Require.nonNull("clock", clock);
        return this;
    }

    /**
     * Opens the store, creating its directory or reopening the generations it holds. An existing store whose open
     * fails on an I/O error (RocksDB writes a new manifest and flushes its recovered log at every open, which a full
     * disk refuses) is opened read-only instead: its reads are answered and its writes fail
     * ({@link ExactStore#writesFailing()} is true) until it is closed and opened again once the disk has room.
     */
    public ExactStore open() {
        if (window == null && maxBytes == 0) {
            throw new IllegalArgumentException("at least one of window and maxBytes must be set");
        }
        if (!writeAheadLog && fsync == FsyncPolicy.ALWAYS) {
            throw new IllegalArgumentException("fsync always syncs the write-ahead log: it needs writeAheadLog(true)");
        }
        if (minWindow != null && window != null && minWindow.compareTo(window) > 0) {
            throw new IllegalArgumentException(
                    "minWindow must be at most window (got " + minWindow + " > " + window + ")");
        }
        return new ExactStore(StoreOpener.open(new StoreOptions(
                directory,
                window,
                maxBytes,
                generations,
                minWindow,
                idFormat,
                refreshOnDuplicate,
                countDuplicates,
                fsync,
                writeAheadLog,
                values,
                maxValueBytes,
                blockCacheBytes,
                blockBytes,
                memtableBytes,
                clock)));
    }
}
