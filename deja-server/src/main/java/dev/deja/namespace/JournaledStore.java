package dev.deja.namespace;

import dev.deja.journal.JournaledSeenSet;
import dev.deja.journal.SnapshotCodec;
import dev.deja.seen.HashedSeenSet;
import dev.deja.seen.SeenSet;
import dev.deja.seen.SeenStats;
import dev.deja.seen.Verdict;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An in-memory store made durable by a journal and snapshots in the namespace's directory (docs/DESIGN.md section
 * 5). Besides the journaled writes it offers what only in-memory stores can: dumps, loading a dump, and merging (a
 * bulk union that bypasses the journal, made durable by a snapshot). Its kind gives it the store's {@link Content}.
 */
final class JournaledStore implements NamespaceStore {

    private static final Logger log = LoggerFactory.getLogger(JournaledStore.class);

    /**
     * What a journaled store needs of its kind, for the namespace's parameters: an empty store, the snapshot codec
     * of its content, and the union of two stores.
     */
    interface Content extends SnapshotCodec<HashedSeenSet> {

        /** A new, empty store. */
        HashedSeenSet empty();

        /** Adds every key of {@code source} into {@code target}. */
        void merge(HashedSeenSet target, HashedSeenSet source);
    }

    private final String namespace;
    private final Content content;
    private final Path dir;
    private final Durability durability;
    private volatile JournaledSeenSet<HashedSeenSet> store;
    /** The store inside the journal, needed for merges and dumps, which are not journaled key by key. */
    private volatile HashedSeenSet inner;

    private JournaledStore(String namespace, Content content, Path dir, Durability durability) {
        this.namespace = namespace;
        this.content = content;
        this.dir = dir;
        this.durability = durability;
    }

    /** Opens (recovering from the directory) or creates the journaled store. */
    static JournaledStore open(String namespace, Content content, Path dir, Durability durability) throws IOException {
        JournaledStore opened = new JournaledStore(namespace, content, dir, durability);
        opened.store = opened.openJournal(null);
        return opened;
    }

    /**
     * Opens the journal in the directory, recovering what it holds.
     *
     * @param written the content of the directory's only snapshot, just written from it ({@link #replace}), which
     *                recovery then takes as read rather than decoding a second copy of it; or null
     */
    private JournaledSeenSet<HashedSeenSet> openJournal(HashedSeenSet written) throws IOException {
        SnapshotCodec<HashedSeenSet> codec = new SnapshotCodec<>() {
            private HashedSeenSet unread = written;

            @Override
            public void write(HashedSeenSet store, OutputStream out) throws IOException {
                content.write(store, out);
            }

            @Override
            public HashedSeenSet capture(HashedSeenSet store) {
                return content.capture(store);
            }

            @Override
            public HashedSeenSet read(InputStream in) throws IOException {
                // recovery reads a snapshot once it has verified its checksum: the one just written is this content
                HashedSeenSet loaded = unread != null ? unread : content.read(in);
                unread = null;
                inner = loaded;
                return loaded;
            }
        };
        JournaledSeenSet<HashedSeenSet> opened = JournaledSeenSet.builder(dir, codec, () -> {
                    HashedSeenSet created = content.empty();
                    inner = created;
                    return created;
                })
                .fsync(durability.fsync())
                .snapshotInterval(durability.snapshotInterval())
                .fromWhatIsReadable(durability.fromWhatIsReadable())
                .open();
        if (!opened.recovery().clean()) {
            log.warn(
                    "namespace '{}' recovered from damage: {}",
                    namespace,
                    opened.recovery().summary());
        }
        return opened;
    }

    @Override
    public SeenSet reader() {
        return store;
    }

    @Override
    public CompletableFuture<Verdict[]> checkThenAdd(List<byte[]> keys, long[] owners) {
        return store.checkThenAddAllAsync(keys, owners);
    }

    @Override
    public CompletableFuture<boolean[]> forget(List<byte[]> keys, long[] owners) {
        return store.forgetAllAsync(keys, owners);
    }

    @Override
    public SeenStats stats() {
        return store.stats();
    }

    @Override
    public long addedCount() {
        return inner instanceof CountedAdds counted
                ? counted.added()
                : store.stats().insertions();
    }

    @Override
    public boolean writesFailing() {
        return store.writesFailing();
    }

    @Override
    public CompletableFuture<Path> snapshot() {
        return store.snapshotNow();
    }

    /** The content as one consistent state: a copy for a kind that captures one ({@link SnapshotKind#capture}). */
    @Override
    public void writeContent(OutputStream out) throws IOException {
        content.write(content.capture(inner), out);
    }

    /** The store inside the journal, for what only some kinds offer (a cuckoo filter's counts); reads only. */
    HashedSeenSet content() {
        return inner;
    }

    @Override
    public CompletableFuture<Path> mergeFrom(NamespaceStore source) {
        content.merge(inner, ((JournaledStore) source).inner);
        store.markChanged(); // no journal record says so: without this the snapshot would find nothing new
        return store.snapshotNow();
    }

    /**
     * Forgets every key, as a {@link #replace} with empty content: the empty content is written as a snapshot past
     * every record before the old files go, so a crash at any point of the clear recovers the old content whole or
     * nothing, never an old snapshot without the journal after it. The empty snapshot of a large filter is stored
     * sparse, so its time grows with the filter's size, not with what it held (docs/BENCHMARKS.md, section clearing
     * a namespace).
     */
    @Override
    public void clear() throws IOException {
        replace(content.empty());
    }

    /**
     * Replaces the content with {@code loaded}, durably before it returns. The new content is written as a snapshot
     * before the old files go ({@link JournaledSeenSet#replaceContent}), so that no crash loses both the old content,
     * acknowledged long before, and the new one. A request that fetched the old
     * store just before the swap is refused as closed rather than written to files about to be deleted
     * ({@link Namespace} makes it again on the new store). When the snapshot cannot be written, the old content is
     * opened again and keeps serving.
     */
    @Override
    public synchronized void replace(HashedSeenSet loaded) throws IOException {
        store.closeDiscarding();
        try {
            JournaledSeenSet.replaceContent(dir, content, loaded);
        } catch (IOException | RuntimeException e) {
            store = openJournal(null);
            throw e;
        }
        store = openJournal(loaded);
    }

    /** Synchronized with {@link #clear} and {@link #replace}, which swap the store: waiting is all it does. */
    @Override
    public synchronized void awaitSwap() {}

    @Override
    public void close() {
        store.close();
    }

    /** Whether {@link #close()} could not write the final snapshot; the journal then still holds every change. */
    boolean finalSnapshotFailed() {
        return store.finalSnapshotFailure().isPresent();
    }
}
