package dev.deja.namespace;

import dev.deja.background.TaskQueue;
import dev.deja.exact.ExactStore;
import dev.deja.exact.ExactStoreBuilder;
import dev.deja.exact.IdFormat;
import dev.deja.exact.threads.ExactThreads;
import dev.deja.files.Directories;
import dev.deja.journal.FsyncPolicy;
import dev.deja.seen.SeenSet;
import dev.deja.seen.SeenStats;
import dev.deja.seen.StoreClosedException;
import dev.deja.seen.Verdict;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An exact namespace's store: an {@link ExactStore} in {@code <namespace>/db}, its checkpoints in
 * {@code <namespace>/checkpoints/<UTC time>}.
 *
 * <p>RocksDB's write-ahead log makes writes durable (synced per the server's fsync policy), so there is no deja
 * journal. A write is a write into the log file (the page cache) and a memtable insert, with no wait for the disk, so
 * it runs on the calling event loop, in the order the client sent it: a later read of the same pipeline sees it.
 * Under {@code --fsync always} the reply then waits for a sync of the log that started after the write; those syncs
 * run one at a time and each covers every write made while the previous one ran ({@link GroupSync}), so the disk's
 * flushes are shared instead of each write waiting for its own. (The store itself is opened with {@code everysec},
 * which also syncs at close.) A timer rolls generations over and ages them out while no one writes, and reopens the
 * store when its writes failed (a full disk) and the disk takes writes again. The syncs, the timer and checkpoints
 * run on threads every exact namespace shares ({@link ExactThreads}), so a namespace costs no thread of its own.
 */
final class ExactNamespaceStore implements NamespaceStore {

    private static final Logger log = LoggerFactory.getLogger(ExactNamespaceStore.class);
    /** Checkpoints kept; older ones are deleted when a new one is written. */
    static final int CHECKPOINTS_KEPT = 2;

    private static final Duration MAINTENANCE_INTERVAL = Duration.ofSeconds(5);
    /** The RocksDB store's directory, inside the namespace's. */
    static final String DB = "db";
    /** What {@link #clear} renames {@link #DB} to before deleting it. */
    static final String CLEARED = "db.cleared";

    private static final DateTimeFormatter CHECKPOINT_NAME =
            DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss.SSS'Z'", Locale.ROOT).withZone(ZoneOffset.UTC);

    private final String namespace;
    private final Map<String, String> parameters;
    private final Path dir;
    private final Durability durability;
    private final GroupSync syncs;
    /** Runs the maintenance timer and checkpoints, one at a time. */
    private final TaskQueue maintenance;
    /**
     * The store serving; closed, with no successor, when a clear deleted the old store's files but could not create
     * the new one (a full disk), or a reopen failed: the maintenance timer opens it once the disk takes writes.
     */
    private volatile ExactStore store;

    private ExactNamespaceStore(String namespace, Map<String, String> parameters, Path dir, Durability durability) {
        this.namespace = namespace;
        this.parameters = parameters;
        this.dir = dir;
        this.durability = durability;
        syncs = new GroupSync("exact namespace '" + namespace + "': group syncs", this::syncWrites);
        maintenance = ExactThreads.maintenanceTasks("exact namespace '" + namespace + "': maintenance");
    }

    static ExactNamespaceStore open(String namespace, Map<String, String> parameters, Path dir, Durability durability)
            throws IOException {
        ExactNamespaceStore opened = new ExactNamespaceStore(namespace, parameters, dir, durability);
        deleteTree(dir.resolve(CLEARED)); // a clear that a crash interrupted after renaming the old store aside
        try {
            opened.store = opened.openStore();
        } catch (RuntimeException e) {
            opened.syncs.close();
            opened.maintenance.close();
            throw new IOException(
                    "cannot open exact namespace '" + namespace + "' in " + dir + ": " + e.getMessage(), e);
        }
        opened.maintenance.repeat(MAINTENANCE_INTERVAL, opened::maintain);
        return opened;
    }

    private ExactStore openStore() {
        ExactStoreBuilder builder = ExactStoreBuilder.at(dir.resolve(DB))
                .generations(Integer.parseInt(parameters.get("generations")))
                .idFormat(IdFormat.valueOf(parameters.get("idFormat").toUpperCase(Locale.ROOT)))
                .refreshOnDuplicate(Boolean.parseBoolean(parameters.get("refresh")))
                .countDuplicates(Boolean.parseBoolean(parameters.get("countDuplicates")))
                .values(Boolean.parseBoolean(parameters.get("values")))
                .maxValueBytes(Integer.parseInt(parameters.get("maxValueBytes")))
                .blockCacheBytes(Long.parseLong(parameters.get("blockCache")))
                .memtableBytes(Long.parseLong(parameters.get("memtable")))
                // under always the server syncs for each group of writes itself (see the class comment)
                .fsync(durability.fsync() == FsyncPolicy.ALWAYS ? FsyncPolicy.EVERYSEC : durability.fsync());
        Duration window = KindParameters.canonicalDuration(parameters, "window");
        if (window != null) {
            builder.window(window);
        }
        long maxBytes = Long.parseLong(parameters.get("maxBytes"));
        if (maxBytes > 0) {
            builder.maxBytes(maxBytes);
        }
        Duration minWindow = KindParameters.canonicalDuration(parameters, "minWindow");
        if (minWindow != null) {
            builder.minWindow(minWindow);
        }
        return builder.open();
    }

    private void maintain() {
        if (store.writesFailing() || store.isClosed()) {
            reopenIfWritable();
            return;
        }
        try {
            store.maintain();
        } catch (RuntimeException e) {
            // a store a clear closed since the check above, or anything else; never a closing namespace's store,
            // which close shuts only once this run has ended
            log.warn("exact namespace '{}': maintenance failed: {}", namespace, e.getMessage());
        }
    }

    /**
     * Called by the maintenance timer while the store's writes fail (a full disk, most often): once a probe file of
     * {@link #probeBytes()} can be written and synced in the namespace's directory, closes the store and opens it
     * again, which gives RocksDB a new write-ahead log writer (the old one refuses every write after its first
     * failure). The reopened store replays the log; a write that failed was never acknowledged. While the disk stays
     * full nothing happens, and nothing is logged beyond the store's one line. If the open fails, the next run
     * tries again; commands meanwhile fail as on a closed store.
     */
    private synchronized void reopenIfWritable() {
        ExactStore failing = store;
        boolean notCreated = failing.isClosed() && !failing.writesFailing();
        if (!(failing.writesFailing() || notCreated) || !diskTakes(probeBytes())) {
            return;
        }
        log.warn(
                "exact namespace '{}': the disk takes writes again; {}",
                namespace,
                notCreated ? "creating the store a clear could not" : "reopening its store, whose writes failed");
        closeQuietly(failing);
        try {
            store = openStore();
            log.info("exact namespace '{}': store reopened, writing again", namespace);
        } catch (RuntimeException e) {
            log.error(
                    "exact namespace '{}': could not reopen its store (tried again in {} s): {}",
                    namespace,
                    MAINTENANCE_INTERVAL.toSeconds(),
                    e.getMessage());
        }
    }

    /** Room a reopen needs: a memtable's worth of log and its flush, with a margin; at most 64 MiB. */
    private long probeBytes() {
        return Math.min(64L << 20, 2 * Long.parseLong(parameters.get("memtable")));
    }

    /** Whether {@code bytes} can be written and synced in the namespace's directory now (the file is deleted). */
    private boolean diskTakes(long bytes) {
        Path probe = dir.resolve("write-probe.tmp");
        try {
            try (FileChannel ch = FileChannel.open(
                    probe, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                ByteBuffer chunk = ByteBuffer.allocate(1 << 16);
                for (long written = 0; written < bytes; written += chunk.capacity()) {
                    chunk.clear();
                    while (chunk.hasRemaining()) {
                        ch.write(chunk);
                    }
                }
                ch.force(false);
            }
            return true;
        } catch (IOException e) {
            return false;
        } finally {
            try {
                Files.deleteIfExists(probe);
            } catch (IOException e) {
                log.warn("exact namespace '{}': could not delete {}: {}", namespace, probe, e.getMessage());
            }
        }
    }

    /** Closes a store, logging instead of throwing what closing met (a write-ahead log that could not be synced). */
    private void closeQuietly(ExactStore closing) {
        try {
            closing.close();
        } catch (RuntimeException e) {
            if (closing.writesFailing()) {
                // expected: the log's writer refuses everything after its first failure, the sync at close too
                log.warn(
                        "exact namespace '{}': closing its store, whose writes were failing: {}",
                        namespace,
                        e.getMessage());
            } else {
                log.error("exact namespace '{}': closing its store: {}", namespace, e.getMessage());
            }
        }
    }

    /** The exact store, for what only it offers (per-key info, key-value commands). */
    ExactStore exact() {
        return store;
    }

    @Override
    public SeenSet reader() {
        return store;
    }

    @Override
    public CompletableFuture<Verdict[]> checkThenAdd(List<byte[]> keys, long[] owners) {
        return write(() -> store.checkThenAddAll(keys, owners));
    }

    @Override
    public CompletableFuture<boolean[]> forget(List<byte[]> keys, long[] owners) {
        return write(() -> store.forgetAll(keys, owners));
    }

    /** Runs a write (see the class comment for where); the future fails with what the store threw. */
    <T> CompletableFuture<T> write(Supplier<T> call) {
        T result;
        try {
            result = call.get();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (durability.fsync() != FsyncPolicy.ALWAYS) {
            return CompletableFuture.completedFuture(result);
        }
        return syncs.next().thenApply(synced -> result);
    }

    @Override
    public SeenStats stats() {
        return store.stats();
    }

    @Override
    public boolean writesFailing() {
        return store.writesFailing();
    }

    /** Writes a RocksDB checkpoint (hard links to the table files, so cheap) and keeps the newest two. */
    @Override
    public CompletableFuture<Path> snapshot() {
        return CompletableFuture.supplyAsync(
                () -> {
                    Path checkpoints = dir.resolve("checkpoints");
                    Path target = newCheckpoint(checkpoints, Instant.now());
                    try {
                        Files.createDirectories(checkpoints);
                        store.checkpoint(target);
                        pruneCheckpoints(checkpoints);
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(
                                "cannot write a checkpoint of exact namespace '" + namespace + "' to " + target, e);
                    }
                    log.info("exact namespace '{}': checkpoint written to {}", namespace, target);
                    return target;
                },
                maintenance);
    }

    /**
     * A checkpoint directory named for {@code now}, one that does not exist yet: a second checkpoint in the same millisecond
     * gets a suffix, which sorts after the plain name, so that the names still sort oldest first for pruning.
     */
    static Path newCheckpoint(Path checkpoints, Instant now) {
        String stamp = CHECKPOINT_NAME.format(now);
        Path target = checkpoints.resolve(stamp);
        for (int n = 2; Files.exists(target); n++) {
            target = checkpoints.resolve(String.format(Locale.ROOT, "%s-%04d", stamp, n));
        }
        return target;
    }

    private static void pruneCheckpoints(Path checkpoints) throws IOException {
        List<Path> all;
        try (Stream<Path> list = Files.list(checkpoints)) {
            all = list.filter(Files::isDirectory)
                    .sorted(Comparator.reverseOrder())
                    .toList();
        }
        for (Path old : all.subList(Math.min(CHECKPOINTS_KEPT, all.size()), all.size())) {
            deleteTree(old);
        }
    }

    /**
     * The group sync under {@code --fsync always}: makes the writes applied so far durable. Those writes went into the
     * store serving when they were made; a swap (a clear, a reopen) or a shutdown may have closed it since, and its
     * close synced its log, so they count as synced unless that sync failed: a write racing a clear that landed
     * before the clear is answered as the success it is.
     */
    private void syncWrites() {
        ExactStore syncing = store;
        try {
            syncing.sync();
        } catch (StoreClosedException closed) {
            if (!syncing.closedDurably()) {
                throw new java.io.UncheckedIOException(
                        "exact namespace '" + namespace + "': its store was closed"
                                + " before this write was synced, and its close could not sync the write-ahead log",
                        new java.io.IOException(closed));
            }
        }
    }

    /** Synchronized with {@link #clear} and the reopen after a full disk, which swap the store: it only waits. */
    @Override
    public synchronized void awaitSwap() {}

    /**
     * Deletes the store's files and starts an empty one. The store's directory is first renamed aside (and the rename
     * synced) and deleted after, so a crash leaves the old store whole or none of it: deleted in place, file by file,
     * a crash could leave RocksDB a directory it refuses to open (a manifest gone, its tables still there) or one that
     * holds part of the old keys. {@link #open} finishes the deletion a crash interrupted. When the empty store cannot
     * be created (RocksDB writes files to create a store, which a full disk refuses) the clear is done all the same,
     * the keys being gone: the store is created by the maintenance timer once the disk takes writes, and writes are
     * refused until then. When the directory cannot be renamed, the old store opens again and the clear fails.
     */
    @Override
    public synchronized void clear() throws IOException {
        closeQuietly(store);
        Path cleared = dir.resolve(CLEARED);
        try {
            deleteTree(cleared);
            Path db = dir.resolve(DB);
            if (Files.exists(db)) {
                Files.move(db, cleared, StandardCopyOption.ATOMIC_MOVE);
                Directories.force(dir);
            }
        } finally {
            openAfterClear(); // the old store again if the rename failed
        }
        try {
            deleteTree(cleared);
        } catch (IOException e) {
            log.warn(
                    "exact namespace '{}': cleared, but the old store's files in {} could not all be deleted"
                            + " (deleted at the next start): {}",
                    namespace,
                    cleared,
                    e.getMessage());
        }
    }

    private void openAfterClear() {
        try {
            store = openStore();
        } catch (RuntimeException e) {
            log.error(
                    "exact namespace '{}': cleared, but its new store could not be created; tried again every"
                            + " {} s, writes are refused until then: {}",
                    namespace,
                    MAINTENANCE_INTERVAL.toSeconds(),
                    e.getMessage());
        }
    }

    @Override
    public void close() {
        maintenance.close(); // waits for a run in progress; a checkpoint asked for and not yet begun runs here
        syncs.close();
        // Never throws: a server closing every namespace at shutdown goes on with the others.
        synchronized (this) {
            closeQuietly(store);
        }
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> files = Files.walk(root)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(file);
            }
        }
    }
}
