package dev.deja.exact;

import dev.deja.journal.FsyncPolicy;
import dev.deja.seen.Require;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.Status;

/**
 * Options of an {@link ExactStore}, validated as they are set; at least one of {@link #window} and
 * {@link #maxBytes} is required. {@link #open()} creates the store or reopens the generations a directory holds.
 */
public final class ExactStoreBuilder {

    private static final byte[] META_ID_FORMAT = "id-format".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] META_TIME_UNIT = "time-unit-ms".getBytes(StandardCharsets.US_ASCII);
    /** Present, as {@code 1}, only in a store created with values; its absence means the seen-set layout. */
    private static final byte[] META_VALUES = "values".getBytes(StandardCharsets.US_ASCII);

    private static final byte[] VALUES_ON = {'1'};
    /** Absent in stores created before it existed, which keep {@link StoredValue#FORMAT_VARINT_TIME}. */
    private static final byte[] META_VALUE_FORMAT = "value-format".getBytes(StandardCharsets.US_ASCII);
    /** Values date keys to about 1/256 of a slice: one byte of information, precise enough to answer "when". */
    private static final int UNITS_PER_SLICE = 256;
    /** The time unit of a store without a time bound, whose generations are cut by size alone. */
    private static final long SIZE_ONLY_TIME_UNIT_MILLIS = 60_000;

    private static final long[] ROUND_UNITS_MILLIS = {
        1_000, 2_000, 5_000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 900_000, 1_800_000, 3_600_000
    };

    // The ranges the setters accept, public so that a server can check parameters before it writes anything.
    /** Shortest window: time slices of a few milliseconds would make a column family per maintenance call. */
    public static final Duration MIN_WINDOW = Duration.ofSeconds(1);

    public static final Duration MAX_WINDOW = Duration.ofMillis(Long.MAX_VALUE / 4);
    public static final int MIN_GENERATIONS = 2;
    public static final int MAX_GENERATIONS = 1024;
    public static final int MAX_VALUE_BYTES = 1 << 20;
    public static final long MIN_BLOCK_CACHE_BYTES = 1 << 20;
    public static final long MIN_MEMTABLE_BYTES = 64 << 10;
    public static final long MAX_MEMTABLE_BYTES = 1L << 34;

    final Path directory;
    // Read by ExactStore's constructor.
    Duration window;
    long maxBytes;
    int generations = 8;
    Duration minWindow;
    IdFormat idFormat = IdFormat.RAW;
    boolean refreshOnDuplicate;
    boolean countDuplicates;
    FsyncPolicy fsync = FsyncPolicy.EVERYSEC;
    boolean values;
    int maxValueBytes = 512;
    long blockCacheBytes = 256L << 20;
    long memtableBytes = 16L << 20;
    Clock clock = Clock.systemUTC();

    ExactStoreBuilder(Path directory) {
        this.directory = directory;
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
     * a share near one block they roll over every few keys; below 2 KiB an idle store did so at every maintenance.
     * Not enforced here: a store created with a smaller bound still opens (and an empty generation never rolls
     * over for size).
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

    /** Bytes of RocksDB block cache, shared by all generations (default 256 MiB). */
    public ExactStoreBuilder blockCacheBytes(long bytes) {
        this.blockCacheBytes = Require.inRange("blockCacheBytes", bytes, MIN_BLOCK_CACHE_BYTES, Long.MAX_VALUE);
        return this;
    }

    /** The most memtables a store holds at once (RocksDB max_write_buffer_number): the native memory they take. */
    public static final int MEMTABLES = 3;

    /**
     * Bytes of one memtable (RocksDB write_buffer_size, default 16 MiB); up to {@value #MEMTABLES} exist at once. Inserting a
     * random key walks the memtable's skiplist with a cache miss per level, so a smaller memtable inserts faster
     * (measured, 12 million inserts: 6.66 us of the callers' CPU per insert at 64 MiB, 5.91 at 16 MiB, 5.38 at
     * 8 MiB; docs/BENCHMARKS.md) at the price of more, smaller level-0 files ({@link Tuning}).
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
        if (minWindow != null && window != null && minWindow.compareTo(window) > 0) {
            throw new IllegalArgumentException(
                    "minWindow must be at most window (got " + minWindow + " > " + window + ")");
        }
        RocksDB.loadLibrary();
        try {
            Files.createDirectories(directory);
        } catch (IOException e) {
            throw new UncheckedIOException("could not create " + directory, e);
        }
        boolean existed = Files.exists(directory.resolve("CURRENT"));
        try {
            return open(null);
        } catch (ReadOnlyFallback e) {
            if (!existed) {
                throw e.failure; // nothing to read yet: a store cannot be created on a disk that refuses writes
            }
            try {
                return open(e.failure.getMessage());
            } catch (ReadOnlyFallback again) {
                again.failure.addSuppressed(e.failure);
                throw again.failure;
            }
        }
    }

    /** A writable open that failed on an I/O error, for {@link #open()} to try read-only. */
    private static final class ReadOnlyFallback extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final transient UncheckedIOException failure;

        ReadOnlyFallback(UncheckedIOException failure) {
            super(failure.getMessage(), null, false, false);
            this.failure = failure;
        }
    }

    /** Opens writable, or read-only when {@code readOnlyBecause} says why the writable open failed. */
    private ExactStore open(String readOnlyBecause) {
        boolean readOnly = readOnlyBecause != null;
        Tuning tuning = new Tuning(blockCacheBytes, memtableBytes, fsync);
        List<ColumnFamilyHandle> handles = new ArrayList<>();
        RocksDB db = null;
        ExactStore store = null;
        try {
            List<byte[]> names = existingFamilies();
            List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
            for (byte[] name : names) {
                if (!Arrays.equals(name, RocksDB.DEFAULT_COLUMN_FAMILY) && Generation.parse(name) == null) {
                    throw new IllegalArgumentException(directory + " is not an exact store: it holds column"
                            + " family " + new String(name, StandardCharsets.UTF_8));
                }
                descriptors.add(new ColumnFamilyDescriptor(name, tuning.cfOptions));
            }
            db = readOnly
                    ? RocksDB.openReadOnly(tuning.dbOptions, directory.toString(), descriptors, handles)
                    : RocksDB.open(tuning.dbOptions, directory.toString(), descriptors, handles);
            int defaultIndex = 0;
            while (Generation.parse(names.get(defaultIndex)) != null) {
                defaultIndex++;
            }
            ColumnFamilyHandle defaultFamily = handles.get(defaultIndex);
            Metadata meta = checkMetadata(db, defaultFamily);
            // Taken (read and deleted) before the store can write, so no file outlives the state it describes; a
            // read-only store changes nothing, so it leaves them for the writable open that follows.
            KeyFilterFiles filterFiles = new KeyFilterFiles(directory);
            Map<String, KeyFilter> kept = readOnly ? filterFiles.readAll() : filterFiles.takeAll();
            List<Generation> existing = new ArrayList<>();
            for (int i = 0; i < names.size(); i++) {
                long[] parsed = Generation.parse(names.get(i));
                if (parsed != null) {
                    // Kept by the last close, or else filled in the background by the store's FilterLoader (until
                    // then it rules nothing out).
                    KeyFilter filter = kept.get(new String(names.get(i), StandardCharsets.US_ASCII));
                    if (filter == null) {
                        filter = new KeyFilter(Generations.estimatedKeys(db, handles.get(i)), false);
                    }
                    existing.add(new Generation(parsed[0], parsed[1], handles.get(i), filter));
                }
            }
            existing.sort(Comparator.comparingLong(g -> g.sequence));
            store = new ExactStore(
                    this,
                    meta.timeUnitMillis(),
                    meta.valueFormat(),
                    tuning,
                    db,
                    defaultFamily,
                    existing,
                    readOnlyBecause);
            store.maintain();
            return store;
        } catch (RocksDBException | IOException | RuntimeException e) {
            if (store != null) {
                store.close();
            } else {
                handles.forEach(ColumnFamilyHandle::close);
                if (db != null) {
                    db.close();
                }
                tuning.close();
            }
            if (e instanceof RocksDBException re) {
                UncheckedIOException failure = StoreHealth.failure("open " + directory, re);
                throw !readOnly && refusedWrite(re) ? new ReadOnlyFallback(failure) : failure;
            }
            if (e instanceof IOException io) {
                throw new UncheckedIOException("could not open " + directory + ": " + io.getMessage(), io);
            }
            throw (RuntimeException) e;
        }
    }

    /**
     * Whether an open failed because the disk refused a write: full (ENOSPC, or EFBIG past a file size limit), over
     * quota, or mounted read-only. Not other I/O errors: a lock held by another process is one, and reading a store
     * that another process writes would answer from a stale view.
     */
    private static boolean refusedWrite(RocksDBException e) {
        Status status = e.getStatus();
        if (status == null || status.getCode() != Status.Code.IOError) {
            return false;
        }
        String message = String.valueOf(e.getMessage());
        return status.getSubCode() == Status.SubCode.NoSpace
                || message.contains("No space left on device")
                || message.contains("File too large")
                || message.contains("Disk quota exceeded")
                || message.contains("Read-only file system");
    }

    /** The first round duration at least this long, so that first-seen times read as whole minutes etc. */
    private static long roundUnit(long millis) {
        for (long unit : ROUND_UNITS_MILLIS) {
            if (unit >= millis) {
                return unit;
            }
        }
        long hour = ROUND_UNITS_MILLIS[ROUND_UNITS_MILLIS.length - 1];
        return (millis + hour - 1) / hour * hour;
    }

    /**
     * The column families of the store in the directory, just the default one for a new store. A directory that
     * holds a store's files without the ones naming its column families is refused, naming what is missing: RocksDB
     * would otherwise fail with a message that names neither the directory nor the file.
     */
    private List<byte[]> existingFamilies() throws RocksDBException, IOException {
        if (!Files.exists(directory.resolve("CURRENT"))) {
            if (holdsStoreFiles()) {
                throw new IllegalStateException(directory + " holds an exact store's files but no CURRENT file,"
                        + " which names its MANIFEST; restore the store from a checkpoint or put the file back");
            }
            return List.of(RocksDB.DEFAULT_COLUMN_FAMILY);
        }
        List<byte[]> names;
        try (Options options = new Options()) {
            names = RocksDB.listColumnFamilies(options, directory.toString());
        }
        if (names.stream().noneMatch(n -> Arrays.equals(n, RocksDB.DEFAULT_COLUMN_FAMILY))) {
            throw new IllegalStateException(directory + " is damaged: its MANIFEST, named by its CURRENT file, is"
                    + " missing or lists no column families; restore the store from a checkpoint");
        }
        return names;
    }

    /** Whether the directory holds table files, write-ahead logs or a MANIFEST: a store, not a new directory. */
    private boolean holdsStoreFiles() throws IOException {
        try (var files = Files.list(directory)) {
            return files.map(f -> f.getFileName().toString())
                    .anyMatch(n -> n.endsWith(".sst") || n.endsWith(".log") || n.startsWith("MANIFEST-"));
        }
    }

    /** What a store fixes when it is created, beside its id format. */
    private record Metadata(long timeUnitMillis, int valueFormat) {}

    /**
     * Records the id format, time unit, value format and (for the key-value layout) values on creation and returns
     * the unit and value format; refuses to reopen with another id format, which would miss every key, another
     * value layout, which would misread every value, or a value format newer than this version reads. The unit
     * stays as created even if the window changes.
     */
    private Metadata checkMetadata(RocksDB db, ColumnFamilyHandle defaultFamily) throws RocksDBException {
        byte[] storedFormat = db.get(defaultFamily, META_ID_FORMAT);
        byte[] storedUnit = db.get(defaultFamily, META_TIME_UNIT);
        byte[] storedValueFormat = db.get(defaultFamily, META_VALUE_FORMAT);
        if (storedFormat != null) {
            if (!Arrays.equals(storedFormat, idFormat.name().getBytes(StandardCharsets.US_ASCII))) {
                throw new IllegalArgumentException("idFormat must match the store's (" + directory + " was"
                        + " created with " + new String(storedFormat, StandardCharsets.US_ASCII) + ", got "
                        + idFormat + ")");
            }
            boolean storedValues = Arrays.equals(db.get(defaultFamily, META_VALUES), VALUES_ON);
            if (storedValues != values) {
                throw new IllegalArgumentException("values must match the store's (" + directory + " was created "
                        + (storedValues ? "with values, the key-value layout" : "without values, the seen-set layout")
                        + "; open it with values(" + storedValues + "))");
            }
            long unit = Long.parseLong(new String(storedUnit, StandardCharsets.US_ASCII));
            if (storedValueFormat == null) {
                return new Metadata(unit, StoredValue.FORMAT_VARINT_TIME);
            }
            String text = new String(storedValueFormat, StandardCharsets.US_ASCII);
            if (!text.matches("[1-9][0-9]{0,8}") || Integer.parseInt(text) > StoredValue.CURRENT_FORMAT) {
                throw new IllegalArgumentException(directory + " holds exact-store values in format \"" + text
                        + "\"; this version of deja reads formats 1 to " + StoredValue.CURRENT_FORMAT
                        + " (docs/FORMAT.md section 6)");
            }
            return new Metadata(unit, Integer.parseInt(text));
        }
        long unit = window == null
                ? SIZE_ONLY_TIME_UNIT_MILLIS
                : roundUnit(window.toMillis() / generations / UNITS_PER_SLICE);
        db.put(defaultFamily, META_TIME_UNIT, Long.toString(unit).getBytes(StandardCharsets.US_ASCII));
        if (values) {
            db.put(defaultFamily, META_VALUES, VALUES_ON);
        }
        db.put(
                defaultFamily,
                META_VALUE_FORMAT,
                Integer.toString(StoredValue.CURRENT_FORMAT).getBytes(StandardCharsets.US_ASCII));
        // Last: its presence marks a created store, so everything written before it is there too.
        db.put(defaultFamily, META_ID_FORMAT, idFormat.name().getBytes(StandardCharsets.US_ASCII));
        // Nothing else is written here, and an unflushed memtable would pin every WAL file forever.
        try (FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
            db.flush(flush, defaultFamily);
        }
        return new Metadata(unit, StoredValue.CURRENT_FORMAT);
    }
}
