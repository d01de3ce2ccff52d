package dev.deja.namespace;

import dev.deja.exact.ExactStore;
import dev.deja.seen.HashedSeenSet;
import dev.deja.seen.SeenSet;
import dev.deja.seen.StoreClosedException;
import dev.deja.seen.Verdict;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A named store of one kind with its parameters, kept in its own directory of the data dir.
 *
 * <p>Reads go straight to the store ({@link #store()}); writes go through {@link #checkThenAdd} and {@link #forget},
 * whose futures complete once the change is as durable as the fsync policy says, so a front end answers then
 * without parking a thread. How the store is made durable is its kind's business ({@link NamespaceStore}).
 */
public final class Namespace {

    /** The expiry of a namespace that does not expire. */
    public static final long NO_EXPIRY = 0;

    /** When the whole namespace is dropped, epoch milliseconds, or {@link #NO_EXPIRY}. */
    private volatile long expiresAtMillis = NO_EXPIRY;

    /**
     * The namespace that requests naming none use, which always exists: the single filter of the bloom HTTP server
     * whose protocol deja follows (Snawoot/bloom).
     */
    public static final String DEFAULT = "default";

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.:-]{0,127}");
    /** Swaps a write refused by a closed store waits out before it fails. */
    private static final int SWAPS_WAITED = 8;

    private final String name;
    private final StoreKind kind;
    private final Map<String, String> parameters;
    private final Path dir;
    private final NamespaceStore store;
    /** Keys read, written or forgotten since the namespace was opened, for the activity history of the status page. */
    private final LongAdder operations = new LongAdder();
    /** How the namespace ended, set before its store closes for good; null while it serves. */
    private volatile End end;

    private enum End {
        DELETED,
        RENAMED,
        SERVER_STOPPING
    }

    private Namespace(String name, StoreKind kind, Map<String, String> parameters, Path dir, NamespaceStore store) {
        this.name = name;
        this.kind = kind;
        this.parameters = parameters;
        this.dir = dir;
        this.store = store;
    }

    /** Opens (recovering from its directory) or creates the namespace's store. */
    static Namespace open(String name, StoreKind kind, Map<String, String> parameters, Path dir, Durability durability)
            throws IOException {
        return new Namespace(name, kind, parameters, dir, kind.open(name, parameters, dir, durability));
    }

    /**
     * The name, or an exception when it is not 1 to 128 characters of letters, digits, {@code _ . : -} starting
     * with a letter, digit or underscore (so it can never leave the data dir: no {@code /}, no {@code ..}).
     */
    public static String checkName(String name) {
        if (!isName(name)) {
            throw new IllegalArgumentException("namespace name must be 1 to 128 characters of letters, digits and"
                    + " _ . : - starting with a letter, digit or _ (got " + (name == null ? "none" : "'" + name + "'")
                    + ")");
        }
        return name;
    }

    /** When the whole namespace is dropped ({@code EXPIRE} on its name), epoch milliseconds, or {@link #NO_EXPIRY}. */
    public long expiresAtMillis() {
        return expiresAtMillis;
    }

    void expiresAtMillis(long at) {
        this.expiresAtMillis = at;
    }

    /** Whether {@code name} is one a namespace can have ({@link #checkName} refuses every other). */
    public static boolean isName(String name) {
        return name != null && NAME.matcher(name).matches();
    }

    /** The namespace's directory. */
    Path dir() {
        return dir;
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

    /**
     * The store, for reads; replaced by {@link #clear()}, so callers fetch it for each operation or batch. It is a
     * view that counts the keys read into {@link #operations()}, not the store's own class: what only a kind's
     * store class offers is reached through {@code durableStore().reader()}.
     */
    public SeenSet store() {
        return new CountedReads(store.reader(), operations);
    }

    /**
     * Keys read, written or forgotten in this namespace since it was opened (a key-value command counts one): a
     * count that only grows, whose rate the status page charts.
     */
    public long operations() {
        return operations.sum();
    }

    /** The durable store itself, for what only some kinds offer. */
    public NamespaceStore durableStore() {
        return store;
    }

    /**
     * The exact store of an {@code exact} namespace, for what only it offers (per-key info, key-value commands).
     *
     * @throws UnsupportedOperationException when the namespace is of another kind
     */
    public ExactStore exactStore() {
        if (store instanceof ExactNamespaceStore exact) {
            return exact.exact();
        }
        throw new UnsupportedOperationException(
                "namespace '" + name + "' is of kind " + kind.name() + "; this needs an exact namespace");
    }

    /**
     * Runs a write on an exact namespace; the future completes once it is as durable as {@code --fsync} says.
     *
     * @throws UnsupportedOperationException when the namespace is of another kind
     */
    public <T> CompletableFuture<T> writeExact(Function<ExactStore, T> write) {
        if (store instanceof ExactNamespaceStore exact) {
            operations.increment();
            CompletableFuture<T> done = exact.write(() -> write.apply(exact.exact()));
            return refusedAsClosed(done) ? afterTheSwap(() -> exact.write(() -> write.apply(exact.exact()))) : done;
        }
        throw new UnsupportedOperationException(
                "namespace '" + name + "' is of kind " + kind.name() + "; this needs an exact namespace");
    }

    /**
     * Atomically records each key under the owner at the same index (none when {@code owners} is null) and says what
     * it was; completes once the changes are as durable as the fsync policy says, or fails when the store cannot
     * take them (a full disk).
     */
    public CompletableFuture<Verdict[]> checkThenAdd(List<byte[]> keys, long[] owners) {
        operations.add(keys.size());
        CompletableFuture<Verdict[]> done = store.checkThenAdd(keys, owners);
        return refusedAsClosed(done) ? afterTheSwap(() -> store.checkThenAdd(keys, owners)) : done;
    }

    /** Erases each key held under the owner at the same index; completes once the erasures are durable. */
    public CompletableFuture<boolean[]> forget(List<byte[]> keys, long[] owners) {
        operations.add(keys.size());
        CompletableFuture<boolean[]> done = store.forget(keys, owners);
        return refusedAsClosed(done) ? afterTheSwap(() -> store.forget(keys, owners)) : done;
    }

    /**
     * Makes again a write that reached a store just closed by a swap (a clear, a loaded dump, a reopen after a full
     * disk), on the store that replaced it, once the swap is done: a write racing a clear then lands before or after
     * it, as it would have a moment earlier or later, instead of failing. A write that meets the store closed for
     * good fails with what happened to the namespace. (Stores refuse a write on a closed store with a failed future
     * before changing anything; the write methods above make the first attempt themselves, so the usual path
     * creates no lambda.)
     */
    private <T> CompletableFuture<T> afterTheSwap(Supplier<CompletableFuture<T>> write) {
        // a few times: the store that replaced it may itself be swapped out by the next clear before the write
        // reaches it; a store that stays closed (one that could not be opened again) ends the loop at once
        for (int swaps = 0; swaps < SWAPS_WAITED && end == null; swaps++) {
            store.awaitSwap();
            CompletableFuture<T> done = attempt(write);
            if (!refusedAsClosed(done)) {
                return done;
            }
        }
        return CompletableFuture.failedFuture(
                switch (end) {
                    case null ->
                        NamespaceException.closed(
                                name,
                                "is not open: its store was closed and could not be opened"
                                        + " again (the server's log says why)");
                    case DELETED -> NamespaceException.deletedMeanwhile(name);
                    case RENAMED ->
                        NamespaceException.closed(
                                name,
                                "was renamed while this command ran; nothing was changed, retry under its new name");
                    case SERVER_STOPPING -> NamespaceException.closed(name, "is closing: the server is stopping");
                });
    }

    /**
     * What a front end answers for a call that met a closed store outside the writes made again above: a read of an
     * exact namespace racing its clear, say.
     */
    public static String closedMeanwhile(StoreClosedException e) {
        return "the namespace's store was closed while this command ran (a clear, a delete or the server stopping);"
                + " nothing was changed, retry (" + e.getMessage() + ")";
    }

    private static <T> CompletableFuture<T> attempt(Supplier<CompletableFuture<T>> write) {
        try {
            return write.get();
        } catch (StoreClosedException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Whether the write was refused, before changing anything, because its store was closed. */
    private static boolean refusedAsClosed(CompletableFuture<?> done) {
        return done.isCompletedExceptionally() && done.exceptionNow() instanceof StoreClosedException;
    }

    /**
     * Adds every key of {@code source} to this namespace (a union), then snapshots, since a union of whole stores
     * is not written key by key.
     *
     * @throws IllegalArgumentException when the two differ in kind or parameters, or are the same namespace
     */
    public CompletableFuture<Path> mergeFrom(Namespace source) {
        if (source == this) {
            throw new IllegalArgumentException("a namespace cannot be merged into itself");
        }
        if (!kind.mergeable()) {
            throw notMergeable(kind.name());
        }
        if (!kind.equals(source.kind) || !parameters.equals(source.parameters)) {
            throw new IllegalArgumentException("merge needs two namespaces of the same kind and parameters ('"
                    + name + "' is " + kind.name() + " " + parameters + ", '" + source.name + "' is "
                    + source.kind.name() + " " + source.parameters + ")");
        }
        return store.mergeFrom(source.store);
    }

    /** The refusal to merge namespaces of a kind; {@link BloomKind} is the only one that merges. */
    static UnsupportedOperationException notMergeable(String kind) {
        return new UnsupportedOperationException(
                "namespaces of kind '" + kind + "' cannot be merged; only bloom" + " namespaces can");
    }

    /** What the namespace is and holds right now. */
    public NamespaceInfo info() {
        return new NamespaceInfo(name, kind.name(), parameters, kind.capacity(parameters), store.stats());
    }

    /** Writes the store's content as its kind's snapshot payload, for dumps; the store keeps serving meanwhile. */
    void writeContent(OutputStream out) throws IOException {
        store.writeContent(out);
    }

    /** Writes a snapshot in the background; the future completes with its file. */
    CompletableFuture<Path> snapshot() {
        return store.snapshot();
    }

    /** Forgets every key. */
    synchronized void clear() throws IOException {
        store.clear();
    }

    /** Replaces the content with a store read elsewhere (a dump loaded chunk by chunk), durably. */
    synchronized void replace(HashedSeenSet loaded) throws IOException {
        store.replace(loaded);
    }

    /** Makes everything durable (a final snapshot, a flush); the namespace must not be used afterwards. */
    void close() {
        end = End.SERVER_STOPPING;
        store.close();
    }

    /** Whether the verdict says the key was refused, not recorded ({@link StoreKind#retryMeansRefused}). */
    public boolean refused(Verdict verdict) {
        return verdict == Verdict.RETRY && kind.retryMeansRefused();
    }

    /** Makes everything durable and closes the store before its directory moves to another name. */
    void closeForRename() {
        end = End.RENAMED;
        store.close();
    }

    /** Closes the store and deletes the namespace's directory. */
    void delete() throws IOException {
        end = End.DELETED;
        store.close();
        deleteTree(dir);
    }

    /** Deletes a directory and everything in it; nothing when it does not exist. */
    static void deleteTree(Path root) throws IOException {
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
