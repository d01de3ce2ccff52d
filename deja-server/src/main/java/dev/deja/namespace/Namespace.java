package dev.deja.namespace;

import dev.deja.journal.JournaledSeenSet;
import dev.deja.journal.SnapshotCodec;
import dev.deja.seen.HashedSeenSet;
import dev.deja.seen.Verdict;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A named store of one kind with its parameters, made durable by a journal and snapshots in its own directory of
 * the data dir (DESIGN.md section 5).
 *
 * <p>Reads go straight to the store ({@link #store()}); writes go through {@link #checkThenAdd} and {@link #forget},
 * whose futures complete once the journal holds the change as durably as the fsync policy says, so a front end
 * answers then without parking a thread. The namespace adds what the journaled store lacks: a name and kind,
 * clearing, loading a dump, and merging (a bulk union that bypasses the journal, made durable by a snapshot).
 */
public final class Namespace {

    private static final Logger log = LoggerFactory.getLogger(Namespace.class);
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.:-]{0,127}");
    /** The file that holds a namespace's kind and parameters; everything else in its directory is the journal's. */
    static final String METADATA = "namespace.properties";

    private final String name;
    private final StoreKind kind;
    private final Map<String, String> parameters;
    private final Path dir;
    private final Durability durability;
    private volatile JournaledSeenSet<HashedSeenSet> store;
    /** The store inside the journal, needed for merges, which are not journaled key by key. */
    private volatile HashedSeenSet inner;

    private Namespace(String name, StoreKind kind, Map<String, String> parameters, Path dir, Durability durability) {
        this.name = name;
        this.kind = kind;
        this.parameters = parameters;
        this.dir = dir;
        this.durability = durability;
    }

    /** Opens (recovering from its directory) or creates the namespace's journaled store. */
    static Namespace open(String name, StoreKind kind, Map<String, String> parameters, Path dir, Durability durability)
            throws IOException {
        Namespace namespace = new Namespace(name, kind, parameters, dir, durability);
        namespace.store = namespace.openStore(() -> kind.create(parameters));
        return namespace;
    }

    private JournaledSeenSet<HashedSeenSet> openStore(Supplier<HashedSeenSet> empty) throws IOException {
        SnapshotCodec<HashedSeenSet> codec = new SnapshotCodec<>() {
            @Override
            public void write(HashedSeenSet store, OutputStream out) throws IOException {
                kind.writeSnapshot(store, out);
            }

            @Override
            public HashedSeenSet read(InputStream in) throws IOException {
                HashedSeenSet loaded = kind.readSnapshot(parameters, in);
                inner = loaded;
                return loaded;
            }
        };
        JournaledSeenSet<HashedSeenSet> opened = JournaledSeenSet.builder(dir, codec, () -> {
                    HashedSeenSet created = empty.get();
                    inner = created;
                    return created;
                })
                .fsync(durability.fsync())
                .snapshotInterval(durability.snapshotInterval())
                .open();
        if (!opened.recovery().clean()) {
            log.warn("namespace '{}' recovered from damage: {}", name, opened.recovery().summary());
        }
        return opened;
    }

    /**
     * The name, or an exception when it is not 1 to 128 characters of letters, digits, {@code _ . : -} starting
     * with a letter, digit or underscore (so it can never leave the data dir: no {@code /}, no {@code ..}).
     */
    public static String checkName(String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("namespace name must be 1 to 128 characters of letters, digits and"
                    + " _ . : - starting with a letter, digit or _ (got " + (name == null ? "none" : "'" + name + "'")
                    + ")");
        }
        return name;
    }

    /** The namespace's name. */
    public String name() {
        return name;
    }

    /** The store kind. */
    public StoreKind kind() {
        return kind;
    }

    /** Canonical parameters. */
    public Map<String, String> parameters() {
        return parameters;
    }

    /** The store, for reads; replaced by {@link #clear()}, so callers fetch it for each operation or batch. */
    public HashedSeenSet store() {
        return store;
    }

    /**
     * Atomically records each key under the owner at the same index (none when {@code owners} is null) and says what
     * it was; completes once the changes are as durable as the fsync policy says, or fails when the journal cannot
     * take them (a full disk).
     */
    public CompletableFuture<Verdict[]> checkThenAdd(List<byte[]> keys, long[] owners) {
        return store.checkThenAddAllAsync(keys, owners);
    }

    /** Erases each key held under the owner at the same index; completes once the erasures are durable. */
    public CompletableFuture<boolean[]> forget(List<byte[]> keys, long[] owners) {
        return store.forgetAllAsync(keys, owners);
    }

    /**
     * Adds every key of {@code source} to this namespace (a union), then snapshots, since a union of whole stores
     * is not written to the journal key by key.
     *
     * @throws IllegalArgumentException when the two differ in kind or parameters, or are the same namespace
     */
    public CompletableFuture<Path> mergeFrom(Namespace source) {
        if (source == this) {
            throw new IllegalArgumentException("a namespace cannot be merged into itself");
        }
        if (kind != source.kind || !parameters.equals(source.parameters)) {
            throw new IllegalArgumentException("merge needs two namespaces of the same kind and parameters ('"
                    + name + "' is " + kind.name() + " " + parameters + ", '" + source.name + "' is "
                    + source.kind.name() + " " + source.parameters + ")");
        }
        kind.merge(inner, source.inner);
        return store.snapshotNow();
    }

    /** What the namespace is and holds right now. */
    public NamespaceInfo info() {
        return new NamespaceInfo(name, kind.name(), parameters, kind.capacity(parameters), store.stats());
    }

    /** Writes the store's content as its kind's snapshot payload, for dumps; the store keeps serving meanwhile. */
    void writeContent(OutputStream out) throws IOException {
        kind.writeSnapshot(inner, out);
    }

    /** Writes a snapshot in the background; the future completes with its file. */
    CompletableFuture<Path> snapshot() {
        return store.snapshotNow();
    }

    /** Forgets every key: the journal and snapshots are deleted and the store starts empty. */
    synchronized void clear() throws IOException {
        replace(() -> kind.create(parameters));
    }

    /** Replaces the content with a store read elsewhere (a dump loaded chunk by chunk) and snapshots it. */
    synchronized void replace(HashedSeenSet loaded) throws IOException {
        replace(() -> loaded);
        store.snapshotNow();
    }

    private void replace(Supplier<HashedSeenSet> content) throws IOException {
        // a request that fetched the old store just before the swap fails with "closed" rather than writing
        // into a journal that is about to be deleted
        store.close();
        deleteJournalFiles();
        store = openStore(content);
    }

    /** Writes the journal out and a final snapshot; the namespace must not be used afterwards. */
    void close() {
        store.close();
    }

    /** Closes the store and deletes the namespace's directory. */
    void delete() throws IOException {
        store.close();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(file);
            }
        }
    }

    private void deleteJournalFiles() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.filter(f -> !f.getFileName().toString().equals(METADATA)).toList()) {
                Files.delete(file);
            }
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }
}
