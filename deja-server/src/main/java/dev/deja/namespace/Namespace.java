package dev.deja.namespace;

import dev.deja.seen.HashedSeenSet;
import java.io.IOException;
import dev.deja.seen.Verdict;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Pattern;

/**
 * A named store of one kind with its parameters, kept under its own directory of the data dir.
 *
 * <p>Front ends call the store directly ({@link #store()}); the namespace adds what a bare store lacks: a name,
 * a kind, clearing, and snapshots that do not block requests (the store keeps serving while it is written).
 */
public final class Namespace {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.:-]{0,127}");

    private final String name;
    private final StoreKind kind;
    private final Map<String, String> parameters;
    private final Path dir;
    private final Object snapshotLock = new Object();
    private volatile HashedSeenSet store;
    private boolean deleted;

    Namespace(String name, StoreKind kind, Map<String, String> parameters, Path dir, HashedSeenSet store) {
        this.name = name;
        this.kind = kind;
        this.parameters = parameters;
        this.dir = dir;
        this.store = store;
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

    /** The store; replaced by {@link #clear()}, so callers fetch it for each operation or batch. */
    public HashedSeenSet store() {
        return store;
    }

    /**
     * Atomically records each key under the owner at the same index (none when {@code owners} is null) and says what
     * it was; completes once the changes are as durable as the server's fsync policy says.
     */
    public CompletableFuture<Verdict[]> checkThenAdd(List<byte[]> keys, long[] owners) {
        return CompletableFuture.completedFuture(store.checkThenAddAll(keys, owners));
    }

    /** Erases each key held under the owner at the same index; completes once the erasures are durable. */
    public CompletableFuture<boolean[]> forget(List<byte[]> keys, long[] owners) {
        return CompletableFuture.completedFuture(store.forgetAll(keys, owners));
    }

    /**
     * Adds every key of {@code source} to this namespace (a union).
     *
     * @throws IllegalArgumentException when the two differ in kind or parameters, or are the same namespace
     */
    public void mergeFrom(Namespace source) {
        if (source == this) {
            throw new IllegalArgumentException("a namespace cannot be merged into itself");
        }
        if (kind != source.kind || !parameters.equals(source.parameters)) {
            throw new IllegalArgumentException("merge needs two namespaces of the same kind and parameters ('"
                    + name + "' is " + kind.name() + " " + parameters + ", '" + source.name + "' is "
                    + source.kind.name() + " " + source.parameters + ")");
        }
        kind.merge(store, source.store);
    }

    /** What the namespace is and holds right now. */
    public NamespaceInfo info() {
        return new NamespaceInfo(name, kind.name(), parameters, kind.capacity(parameters), store.stats());
    }

    /** Forgets every key: the namespace keeps its kind and parameters with an empty store. */
    void clear() {
        // the old store is left to the garbage collector rather than closed: a request that fetched it just
        // before the swap may still be using it
        store = kind.create(parameters);
    }

    /** Replaces the content with a store read elsewhere (a dump loaded chunk by chunk). */
    void replace(HashedSeenSet loaded) {
        store = loaded;
    }

    /** Writes a snapshot now; concurrent calls run one after the other. Does nothing once deleted. */
    void snapshot() throws IOException {
        synchronized (snapshotLock) {
            if (deleted) {
                return;
            }
            HashedSeenSet current = store;
            SnapshotFiles.write(dir, out -> kind.writeSnapshot(current, out));
        }
    }

    /** Marks the namespace deleted, after any snapshot being written, so no later one recreates its files. */
    void markDeleted() {
        synchronized (snapshotLock) {
            deleted = true;
        }
    }

    Path dir() {
        return dir;
    }
}
