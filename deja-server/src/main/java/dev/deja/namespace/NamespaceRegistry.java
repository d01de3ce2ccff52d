package dev.deja.namespace;

import dev.deja.seen.HashedSeenSet;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every namespace of a server, each kept in its directory of the data dir: {@code <data>/<name>/namespace.properties}
 * (its kind and parameters, {@link NamespaceMetadata}) and its store's files.
 *
 * <p>Of the lookups of a namespace that does not exist, only {@link #getOrCreate} creates it. {@link #get} refuses
 * it as unknown, {@link #find} answers empty, and {@link #getOrEmpty}, for calls that only read or remove keys,
 * answers empty when auto-create is on (a write would create the namespace empty, so it holds no key) and refuses it
 * when off.
 *
 * <p>The namespaces stay within {@link NamespaceLimits}. Every namespace reserves the memory its store takes when
 * full against the memory limit ({@link MemoryBudget}) when it is created or loaded, and gives it back when
 * deleted; one that would exceed the limit is refused before anything is written, and a data dir whose namespaces
 * exceed it does not open. Creating a namespace beyond the count limit is refused too; a data dir holding more
 * (the limit was lowered) still opens, with a warning.
 *
 * <p>Lookups are lock-free; creating and deleting namespaces is rare and serialised on the registry.
 */
public final class NamespaceRegistry implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(NamespaceRegistry.class);

    private final Path dataDir;
    private final StoreKinds kinds;
    private final NamespaceSpec defaultSpec;
    private final boolean autoCreate;
    private final Durability durability;
    private final NamespaceMemory memory;
    private final int maxNamespaces;
    private final NamespaceRemoval removal;
    private final DamagedNamespaces damaged = new DamagedNamespaces();
    private final NamespaceExpiry expiry = new NamespaceExpiry(this::list, this::dropExpired);
    private final Map<String, Namespace> namespaces = new ConcurrentHashMap<>();

    NamespaceRegistry(NamespaceRegistryBuilder builder) {
        this.dataDir = builder.dataDir;
        this.memory = new NamespaceMemory(builder.limits);
        this.kinds = builder.kinds.growingWithin(memory.growth());
        this.defaultSpec = Objects.requireNonNull(builder.defaultSpec, "defaultSpec");
        this.autoCreate = builder.autoCreate;
        this.durability = Objects.requireNonNull(builder.durability, "durability");
        this.maxNamespaces = builder.limits.count();
        this.removal = new NamespaceRemoval(dataDir);
        kinds.get(defaultSpec.kind()).parameters(defaultSpec.parameters());
    }

    /**
     * A builder of a registry over {@code dataDir}, which needs {@link NamespaceRegistryBuilder#defaultSpec} and
     * {@link NamespaceRegistryBuilder#durability}; the registry it builds is opened with {@link #open()} before use.
     */
    public static NamespaceRegistryBuilder builder(Path dataDir) {
        return new NamespaceRegistryBuilder(dataDir);
    }

    /** Bytes of heap the namespaces may reserve together. Like the three below, it never waits for the lock. */
    public long memoryLimit() {
        return memory.heap().limit();
    }

    /** Bytes of heap the namespaces have reserved: what their stores take when full. */
    public long memoryReserved() {
        return memory.heap().reserved();
    }

    /** Bytes of native memory the namespaces may reserve together. */
    public long nativeMemoryLimit() {
        return memory.nativeMemory().limit();
    }

    /** Bytes of native memory the namespaces have reserved: RocksDB's block caches and memtables. */
    public long nativeMemoryReserved() {
        return memory.nativeMemory().reserved();
    }

    /**
     * Loads every namespace found in the data dir, and creates the {@code default} one when it is missing. A
     * namespace that cannot be opened (damaged or unreadable files) is not served but kept as damaged
     * ({@link #damaged()}, {@link #reset}); the others are served.
     *
     * @throws NamespaceException when the namespaces need more memory than the limit (nothing is left open then)
     */
    public synchronized void open() throws IOException {
        Files.createDirectories(dataDir);
        try (Stream<Path> dirs = Files.list(dataDir)) {
            for (Path dir : dirs.filter(NamespaceMetadata::loadable).sorted().toList()) {
                try {
                    Namespace namespace = load(dir);
                    namespaces.put(namespace.name(), namespace);
                } catch (IOException | RuntimeException e) {
                    if (e instanceof NamespaceException) {
                        throw e; // memory or count limits: the server's settings, not this namespace's files
                    }
                    damaged.failedToOpen(dir, e, kinds);
                }
            }
            if (!namespaces.containsKey(Namespace.DEFAULT)) {
                create(Namespace.DEFAULT, defaultSpec.kind(), defaultSpec.parameters());
            }
            expiry.start();
            if (namespaces.size() > maxNamespaces) {
                log.warn(
                        "{} holds {} namespaces, more than the limit of {}: none can be created until some are"
                                + " deleted",
                        dataDir,
                        namespaces.size(),
                        maxNamespaces);
            }
        } catch (IOException | RuntimeException e) {
            close(); // what was loaded before the failure
            throw e;
        }
    }

    /** The kinds this registry can create. */
    public StoreKinds kinds() {
        return kinds;
    }

    /**
     * Creates a namespace and persists its kind and parameters.
     *
     * @throws NamespaceException       when one with that name exists
     * @throws IllegalArgumentException when the name, kind or a parameter is invalid
     */
    public synchronized Namespace create(String name, String kind, Map<String, String> rawParameters) {
        Namespace.checkName(name);
        StoreKind storeKind = kinds.get(kind);
        Map<String, String> parameters = storeKind.parameters(rawParameters);
        storeKind.checkCreate(parameters);
        damaged.refuseIfDamaged(name);
        if (namespaces.containsKey(name)) {
            throw NamespaceException.exists(name);
        }
        // the default namespace is always created: a data dir without it opens whatever the limit
        if (namespaces.size() >= maxNamespaces && !name.equals(Namespace.DEFAULT)) {
            throw NamespaceException.tooMany(name, maxNamespaces);
        }
        reserve(name, storeKind, parameters, "namespace '" + name + "'");
        Path dir = dataDir.resolve(name);
        boolean existed = Files.exists(dir);
        Namespace namespace;
        try {
            Files.createDirectories(dir);
            new NamespaceMetadata(storeKind, parameters).write(dir, name);
            namespace = Namespace.open(name, storeKind, parameters, dir, durability);
        } catch (IOException | RuntimeException e) {
            release(name);
            throw removal.undoCreate(name, dir, existed, e);
        }
        namespaces.put(name, namespace);
        log.info("created namespace '{}' ({} {})", name, kind, parameters);
        return namespace;
    }

    /**
     * The namespace; never creates one.
     *
     * @throws NamespaceException       {@link NamespaceException.Problem#UNKNOWN} when it does not exist
     * @throws IllegalArgumentException for a name no namespace can have
     */
    public Namespace get(String name) {
        Namespace namespace = namespaces.get(name);
        if (namespace == null) {
            Namespace.checkName(name);
            damaged.refuseIfDamaged(name);
            throw NamespaceException.unknown(name, autoCreate);
        }
        return namespace;
    }

    /**
     * The namespace if it exists, else empty; never creates one.
     *
     * @throws IllegalArgumentException for a name no namespace can have
     */
    public Optional<Namespace> find(String name) {
        Namespace namespace = namespaces.get(name);
        if (namespace == null) {
            Namespace.checkName(name);
            damaged.refuseIfDamaged(name);
        }
        return Optional.ofNullable(namespace);
    }

    /** The namespace served under this name, or null: no check of the name, for a hot path that only asks. */
    public Namespace served(String name) {
        return namespaces.get(name);
    }

    /**
     * The namespace a call that only reads or removes keys addresses; never creates one, so that a check or a forget
     * with a mistyped name leaves no new namespace behind. When it does not exist: empty if auto-create is on, since
     * a write would create it empty and so it holds no key; refused, as {@link #get} refuses it, if auto-create is off.
     *
     * @throws NamespaceException       {@link NamespaceException.Problem#UNKNOWN} when it does not exist and
     *                                  auto-create is off
     * @throws IllegalArgumentException for a name no namespace can have
     */
    public Optional<Namespace> getOrEmpty(String name) {
        return autoCreate ? find(name) : Optional.of(get(name));
    }

    /**
     * The namespace, created with the default kind and parameters when missing and auto-create is on.
     *
     * @throws NamespaceException {@link NamespaceException.Problem#UNKNOWN} when it does not exist and auto-create is
     *                            off; as {@link #create} does when it cannot be created
     */
    public Namespace getOrCreate(String name) {
        return autoCreate ? getOrCreate(name, defaultSpec) : get(name);
    }

    /** The namespace, created from {@code spec} when missing whatever the auto-create setting (a configured name). */
    public Namespace getOrCreate(String name, NamespaceSpec spec) {
        Namespace namespace = namespaces.get(name);
        if (namespace != null) {
            return namespace;
        }
        synchronized (this) {
            namespace = namespaces.get(name);
            return namespace != null ? namespace : create(name, spec.kind(), spec.parameters());
        }
    }

    /** Every namespace, by name. */
    public List<Namespace> list() {
        List<Namespace> all = new ArrayList<>(namespaces.values());
        all.sort(Comparator.comparing(Namespace::name));
        return all;
    }

    /**
     * Deletes the namespace and its files.
     *
     * @throws IllegalArgumentException for {@code default}, which always exists ({@link NamespaceRemoval})
     */
    public synchronized void delete(String name) {
        if (damaged.contains(name)) {
            removal.checkDelete(name);
            damaged.delete(name);
            return;
        }
        Namespace namespace = get(name);
        removal.checkDelete(name);
        namespaces.remove(name);
        release(name);
        try {
            namespace.delete();
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "namespace '" + name + "' is deleted but some of its files could not be removed", e);
        }
        log.info("deleted namespace '{}'", name);
    }

    /**
     * Forgets every key of the namespace: its store's files are replaced by empty ones. Under the registry's lock, as
     * delete is, so that a clear never reopens a store in the directory a delete is removing.
     */
    public synchronized void clear(String name) {
        Namespace namespace = get(name);
        removal.checkReplace(name, "clear");
        try {
            namespace.clear();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot clear namespace '" + name + "': " + e.getMessage(), e);
        }
    }

    /**
     * Renames the namespace, as Redis's {@code RENAME} renames a key: its files move to the new name's directory and
     * it is opened there, its expiry kept. A namespace of the new name is deleted first when {@code replace}, else
     * nothing changes. Requests that reached the old name meanwhile are refused, having changed nothing.
     *
     * @return false when a namespace of the new name exists and {@code replace} is false
     * @throws IllegalArgumentException for {@code default} on either side, or a bad new name
     * @throws NamespaceException       {@link NamespaceException.Problem#UNKNOWN} when no namespace has the old name
     */
    public synchronized boolean rename(String from, String to, boolean replace) throws IOException {
        Namespace.checkName(to);
        if (from.equals(Namespace.DEFAULT) || to.equals(Namespace.DEFAULT)) {
            throw new IllegalArgumentException("namespace 'default' cannot be renamed nor replaced: it always exists");
        }
        Namespace source = get(from);
        damaged.refuseIfDamaged(to);
        if (from.equals(to)) {
            return true;
        }
        removal.checkDelete(from);
        if (namespaces.containsKey(to)) {
            if (!replace) {
                return false;
            }
            delete(to);
        }
        Path target = dataDir.resolve(to);
        namespaces.remove(from);
        release(from);
        source.closeForRename();
        try {
            Files.move(source.dir(), target, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            namespaces.put(from, load(source.dir())); // the files stayed where they were
            throw new UncheckedIOException("cannot rename namespace '" + from + "': " + e.getMessage(), e);
        }
        namespaces.put(to, load(target));
        log.info("renamed namespace '{}' to '{}'", from, to);
        return true;
    }

    /** The namespaces not served because they could not be opened, by name. */
    public List<DamagedNamespace> damaged() {
        return damaged.list();
    }

    /**
     * Brings a damaged namespace back into service, as {@code from} says, and serves it.
     *
     * @throws NamespaceException       {@link NamespaceException.Problem#UNKNOWN} when no namespace of that name is
     *                                  damaged; {@link NamespaceException.Problem#DAMAGED}, with the new reason, when
     *                                  it still cannot be opened
     * @throws IllegalArgumentException when it is served (only a damaged one is reset), or its metadata cannot be
     *                                  read (only deleting it helps then)
     */
    public synchronized Namespace reset(String name, ResetFrom from) throws IOException {
        Namespace.checkName(name);
        if (namespaces.containsKey(name)) {
            throw new IllegalArgumentException("namespace '" + name + "' is served: only a damaged one is reset");
        }
        if (!damaged.contains(name)) {
            throw NamespaceException.unknown(name, autoCreate);
        }
        Durability opening = from == ResetFrom.READABLE ? durability.fromReadableFiles() : durability;
        Namespace namespace = damaged.reset(name, from, kinds, dir -> load(dir, opening));
        namespaces.put(name, namespace);
        return namespace;
    }

    /**
     * Sets when the whole namespace is dropped ({@code EXPIRE} on its name), recorded in its metadata so that it
     * survives a restart; a time already past drops it now. {@link Namespace#NO_EXPIRY} removes the expiry.
     *
     * @return whether the namespace existed (a missing one gets no expiry)
     * @throws IllegalArgumentException for {@code default}, which is never dropped
     */
    public synchronized boolean expire(String name, long atMillis) throws IOException {
        Namespace namespace = namespaces.get(name);
        if (namespace == null) {
            damaged.refuseIfDamaged(name);
            return false;
        }
        if (!expiry.set(namespace, atMillis)) {
            delete(name); // a time already past
        }
        return true;
    }

    private synchronized void dropExpired(String name) {
        Namespace namespace = namespaces.get(name);
        if (namespace != null && NamespaceExpiry.expired(namespace, System.currentTimeMillis())) {
            delete(name);
        }
    }

    /** Snapshots one namespace in the background; completes at once when it has been deleted meanwhile. */
    public CompletableFuture<?> snapshot(String name) {
        Namespace namespace = namespaces.get(name);
        return namespace == null ? CompletableFuture.completedFuture(null) : namespace.snapshot();
    }

    /** Snapshots every namespace in the background; completes when all are written. */
    public CompletableFuture<?> snapshotAll() {
        return CompletableFuture.allOf(list().stream().map(Namespace::snapshot).toArray(CompletableFuture[]::new));
    }

    /**
     * Writes a dump of the namespace ({@link NamespaceDumps}), which {@link #loadDump} reads: the content of
     * {@code BF.SCANDUMP}.
     */
    public void writeDump(String name, OutputStream out) throws IOException {
        NamespaceDumps.write(get(name), out);
    }

    /**
     * Replaces the namespace's content with a dump written by {@link #writeDump}, creating the namespace with
     * the dump's kind and parameters when it does not exist; the new content is in a snapshot on disk when this
     * returns, and until then the old one is (see {@link JournaledStore#replace}).
     *
     * @throws IllegalArgumentException when the dump is malformed or its kind or parameters differ from an
     *                                  existing namespace's
     */
    public synchronized Namespace loadDump(String name, InputStream in) throws IOException {
        Namespace.checkName(name);
        DataInputStream data = new DataInputStream(in);
        NamespaceDumps.Header header = NamespaceDumps.readHeader(data, kinds);
        SnapshotKind kind = header.kind();
        Map<String, String> parameters = header.parameters();
        Namespace namespace = namespaces.get(name);
        if (namespace != null
                && (!namespace.kind().equals(kind) || !namespace.parameters().equals(parameters))) {
            throw new IllegalArgumentException("dump is of kind " + kind.name() + " " + parameters + " but namespace '"
                    + name + "' is " + namespace.kind().name() + " " + namespace.parameters());
        }
        if (namespace != null) {
            removal.checkReplace(name, "load a dump into");
        }
        // The dump is read into a new store while the namespace's store still serves: two copies until replaced.
        String copy = name + " (loading a dump)";
        memory.heap().reserve(copy, kind.memoryBytes(parameters), "loading a dump into namespace '" + name + "'");
        try {
            HashedSeenSet loaded = kind.readSnapshot(parameters, data);
            if (namespace == null) {
                memory.heap().release(copy); // the namespace's own reservation takes over
                namespace = create(name, kind.name(), parameters);
            }
            namespace.replace(loaded);
        } finally {
            memory.heap().release(copy);
        }
        return namespace;
    }

    /** Writes out every namespace's journal and a final snapshot; the registry must not be used afterwards. */
    @Override
    public synchronized void close() {
        closeAll();
    }

    /**
     * Closes like {@link #close()} and returns the names, sorted, of the journaled namespaces whose final snapshot
     * failed (each failure is logged with its cause). Their journal was written out before the snapshot was tried
     * and still holds every acknowledged write, with the earlier snapshots, so the next start replays them and
     * nothing is lost.
     */
    public synchronized List<String> closeAll() {
        expiry.stop();
        List<String> notSnapshotted = new ArrayList<>();
        for (Namespace namespace : namespaces.values()) {
            namespace.close();
            release(namespace.name());
            if (namespace.durableStore() instanceof JournaledStore journaled && journaled.finalSnapshotFailed()) {
                notSnapshotted.add(namespace.name());
            }
        }
        namespaces.clear();
        notSnapshotted.sort(null);
        return notSnapshotted;
    }

    private Namespace load(Path dir) throws IOException {
        return load(dir, durability);
    }

    private Namespace load(Path dir, Durability opening) throws IOException {
        String name = dir.getFileName().toString();
        NamespaceMetadata metadata = NamespaceMetadata.read(dir, kinds);
        reserve(name, metadata.kind(), metadata.parameters(), "namespace '" + name + "' (in " + dir + ")");
        try {
            Namespace namespace = Namespace.open(name, metadata.kind(), metadata.parameters(), dir, opening);
            namespace.expiresAtMillis(metadata.expiresAtMillis());
            return namespace;
        } catch (IOException | RuntimeException e) {
            release(name);
            throw e;
        }
    }

    private void reserve(String name, StoreKind kind, Map<String, String> parameters, String what) {
        memory.reserve(name, kind, parameters, what);
    }

    private void release(String name) {
        memory.release(name);
    }
}
