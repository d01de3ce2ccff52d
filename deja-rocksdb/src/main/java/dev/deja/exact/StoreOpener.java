package dev.deja.exact;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.Status;

/**
 * Opens an exact store's directory: creates a new store or reopens the generations a directory holds, with the key
 * filters its last close kept. An existing store whose writable open fails because the disk refuses writes (RocksDB
 * writes a new manifest and flushes its recovered log at every open, which a full disk refuses) is opened
 * read-only instead: its reads are answered and its writes fail until it is opened again once the disk has room.
 */
final class StoreOpener {

    private final StoreOptions options;
    private final Path directory;

    private StoreOpener(StoreOptions options) {
        this.options = options;
        this.directory = options.directory();
    }

    /** Opens the store the options describe, writable, or read-only when the disk refuses writes. */
    static StoreEngine open(StoreOptions options) {
        return new StoreOpener(options).openWithFallback();
    }

    private StoreEngine openWithFallback() {
        RocksDB.loadLibrary();
        try {
            Files.createDirectories(directory);
        } catch (IOException e) {
            throw new UncheckedIOException("could not create " + directory, e);
        }
        boolean existed = Files.exists(directory.resolve("CURRENT"));
        try {
            return attempt(null);
        } catch (ReadOnlyFallback e) {
            if (!existed) {
                throw e.failure; // nothing to read yet: a store cannot be created on a disk that refuses writes
            }
            try {
                return attempt(e.failure.getMessage());
            } catch (ReadOnlyFallback again) {
                again.failure.addSuppressed(e.failure);
                throw again.failure;
            }
        }
    }

    /** A writable open that failed on an I/O error, for {@link #openWithFallback()} to try read-only. */
    private static final class ReadOnlyFallback extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final transient UncheckedIOException failure;

        ReadOnlyFallback(UncheckedIOException failure) {
            super(failure.getMessage(), null, false, false);
            this.failure = failure;
        }
    }

    /** Opens writable, or read-only when {@code readOnlyBecause} says why the writable open failed. */
    private StoreEngine attempt(String readOnlyBecause) {
        boolean readOnly = readOnlyBecause != null;
        Tuning tuning = new Tuning(options);
        List<ColumnFamilyHandle> handles = new ArrayList<>();
        RocksDB db = null;
        StoreEngine engine = null;
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
            StoreDatabase database = new StoreDatabase(db, handles.get(defaultIndex), tuning);
            ValueLayout layout = StoreMetadata.readOrCreate(db, database.defaultFamily(), options);
            // Taken (read and deleted) before the store can write, so no file outlives the state it describes; a
            // read-only store changes nothing, so it leaves them for the writable open that follows.
            KeyFilterFiles filterFiles = new KeyFilterFiles(directory);
            Map<String, KeyFilter> kept = readOnly ? filterFiles.readAll() : filterFiles.takeAll();
            List<Generation> existing = generations(db, names, handles, kept);
            engine = new StoreEngine(options, database, layout, existing, readOnlyBecause);
            engine.maintain();
            return engine;
        } catch (RocksDBException | IOException | RuntimeException e) {
            if (engine != null) {
                engine.close();
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
     * The generations of the column families found on disk, oldest first, each with the key filter the last close
     * kept, or else an incomplete one that the store's {@link FilterLoader} fills in the background (until then it
     * rules nothing out).
     */
    private static List<Generation> generations(
            RocksDB db, List<byte[]> names, List<ColumnFamilyHandle> handles, Map<String, KeyFilter> kept)
            throws RocksDBException {
        List<Generation> existing = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            long[] parsed = Generation.parse(names.get(i));
            if (parsed != null) {
                KeyFilter filter = kept.get(new String(names.get(i), StandardCharsets.US_ASCII));
                if (filter == null) {
                    filter = KeyFilter.toLoad(Generations.estimatedKeys(db, handles.get(i)));
                }
                existing.add(new Generation(parsed[0], parsed[1], handles.get(i), filter));
            }
        }
        existing.sort(Comparator.comparingLong(g -> g.sequence));
        return existing;
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
        try (Options listing = new Options()) {
            names = RocksDB.listColumnFamilies(listing, directory.toString());
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
}
