package dev.deja.namespace;

import dev.deja.exact.ExactStore;
import dev.deja.exact.ExactStoreBuilder;
import dev.deja.exact.IdFormat;
import dev.deja.journal.FsyncPolicy;
import dev.deja.seen.SeenSet;
import dev.deja.seen.SeenStats;
import dev.deja.seen.Verdict;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An exact namespace's store: an {@link ExactStore} in {@code <namespace>/db}, its checkpoints in
 * {@code <namespace>/checkpoints/<UTC time>}.
 *
 * <p>RocksDB's write-ahead log makes writes durable (synced per the server's fsync policy), so there is no deja
 * journal. Under {@code --fsync everysec} and {@code no} a write is a write into the log file (the page cache)
 * and a memtable insert, a few microseconds, so it runs on the calling event loop: handing it to another thread
 * and back would cost more than the write. Under {@code --fsync always} each write waits for the disk, so writes
 * run on two threads of the namespace's own; their queue is bounded, and when it is full the submitting thread
 * runs the write itself, which slows the clients that write faster than the disk takes it instead of letting the
 * queue grow. A timer rolls generations over and ages them out while no one writes.
 */
final class ExactNamespaceStore implements NamespaceStore {

    private static final Logger log = LoggerFactory.getLogger(ExactNamespaceStore.class);
    /** Checkpoints kept; older ones are deleted when a new one is written. */
    static final int CHECKPOINTS_KEPT = 2;
    private static final Duration MAINTENANCE_INTERVAL = Duration.ofSeconds(5);
    private static final DateTimeFormatter CHECKPOINT_NAME =
            DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss.SSS'Z'", Locale.ROOT).withZone(ZoneOffset.UTC);

    private final String namespace;
    private final Map<String, String> parameters;
    private final Path dir;
    private final Durability durability;
    private final ThreadPoolExecutor writers;
    private final ScheduledExecutorService maintenance;
    private volatile ExactStore store;

    private ExactNamespaceStore(String namespace, Map<String, String> parameters, Path dir, Durability durability) {
        this.namespace = namespace;
        this.parameters = parameters;
        this.dir = dir;
        this.durability = durability;
        AtomicInteger threads = new AtomicInteger();
        writers = new ThreadPoolExecutor(2, 2, 0, TimeUnit.SECONDS, new ArrayBlockingQueue<>(1024), r -> {
            Thread t = new Thread(r, "deja-exact-" + namespace + "-" + threads.incrementAndGet());
            t.setDaemon(true);
            return t;
        }, new ThreadPoolExecutor.CallerRunsPolicy());
        maintenance = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "deja-exact-" + namespace + "-maintenance");
            t.setDaemon(true);
            return t;
        });
    }

    static ExactNamespaceStore open(String namespace, Map<String, String> parameters, Path dir,
                                    Durability durability) throws IOException {
        ExactNamespaceStore opened = new ExactNamespaceStore(namespace, parameters, dir, durability);
        try {
            opened.store = opened.openStore();
        } catch (RuntimeException e) {
            opened.writers.shutdownNow();
            opened.maintenance.shutdownNow();
            throw new IOException("cannot open exact namespace '" + namespace + "' in " + dir + ": "
                    + e.getMessage(), e);
        }
        long interval = MAINTENANCE_INTERVAL.toMillis();
        opened.maintenance.scheduleWithFixedDelay(opened::maintain, interval, interval, TimeUnit.MILLISECONDS);
        return opened;
    }

    private ExactStore openStore() {
        ExactStoreBuilder builder = ExactStore.builder(dir.resolve("db"))
                .generations(Integer.parseInt(parameters.get("generations")))
                .idFormat(IdFormat.valueOf(parameters.get("idFormat").toUpperCase(Locale.ROOT)))
                .refreshOnDuplicate(Boolean.parseBoolean(parameters.get("refresh")))
                .countDuplicates(Boolean.parseBoolean(parameters.get("countDuplicates")))
                .values(Boolean.parseBoolean(parameters.get("values")))
                .maxValueBytes(Integer.parseInt(parameters.get("maxValueBytes")))
                .blockCacheBytes(Long.parseLong(parameters.get("blockCache")))
                .memtableBytes(Long.parseLong(parameters.get("memtable")))
                .fsync(durability.fsync());
        Duration window = ExactKind.duration(parameters, "window");
        if (window != null) {
            builder.window(window);
        }
        long maxBytes = Long.parseLong(parameters.get("maxBytes"));
        if (maxBytes > 0) {
            builder.maxBytes(maxBytes);
        }
        Duration minWindow = ExactKind.duration(parameters, "minWindow");
        if (minWindow != null) {
            builder.minWindow(minWindow);
        }
        return builder.open();
    }

    private void maintain() {
        try {
            store.maintain();
        } catch (RuntimeException e) {
            // a store closed by clear() or shutdown between two runs; anything else is worth a line in the log
            if (!writers.isShutdown()) {
                log.warn("exact namespace '{}': maintenance failed: {}", namespace, e.getMessage());
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
        if (durability.fsync() != FsyncPolicy.ALWAYS) {
            try {
                return CompletableFuture.completedFuture(call.get());
            } catch (RuntimeException e) {
                return CompletableFuture.failedFuture(e);
            }
        }
        return CompletableFuture.supplyAsync(call, writers);
    }

    @Override
    public SeenStats stats() {
        return store.stats();
    }

    /** Writes a RocksDB checkpoint (hard links to the table files, so cheap) and keeps the newest two. */
    @Override
    public CompletableFuture<Path> snapshot() {
        return CompletableFuture.supplyAsync(() -> {
            Path checkpoints = dir.resolve("checkpoints");
            Path target = checkpoints.resolve(CHECKPOINT_NAME.format(Instant.now()));
            try {
                Files.createDirectories(checkpoints);
                store.checkpoint(target);
                pruneCheckpoints(checkpoints);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException("cannot write a checkpoint of exact namespace '" + namespace
                        + "' to " + target, e);
            }
            log.info("exact namespace '{}': checkpoint written to {}", namespace, target);
            return target;
        }, maintenance);
    }

    private static void pruneCheckpoints(Path checkpoints) throws IOException {
        List<Path> all;
        try (Stream<Path> list = Files.list(checkpoints)) {
            all = list.filter(Files::isDirectory).sorted(Comparator.reverseOrder()).toList();
        }
        for (Path old : all.subList(Math.min(CHECKPOINTS_KEPT, all.size()), all.size())) {
            deleteTree(old);
        }
    }

    @Override
    public synchronized void clear() throws IOException {
        store.close();
        deleteTree(dir.resolve("db"));
        store = openStore();
    }

    @Override
    public void close() {
        maintenance.shutdown();
        writers.shutdown();
        try {
            if (!writers.awaitTermination(30, TimeUnit.SECONDS)) {
                log.warn("exact namespace '{}': writes still running after 30 s at shutdown", namespace);
            }
            maintenance.awaitTermination(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        store.close();
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
