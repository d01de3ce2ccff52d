package dev.deja.namespace;

import dev.deja.seen.HashedSeenSet;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.Map;

/**
 * A kind held in memory and made durable by a journal of its changes plus snapshots of its whole content
 * (docs/DESIGN.md section 5): bloom, recent and cuckoo. Its content can also be dumped and loaded
 * ({@code BF.SCANDUMP}/{@code BF.LOADCHUNK}).
 */
public interface SnapshotKind extends StoreKind {

    /** A new, empty store built from canonical parameters. */
    HashedSeenSet create(Map<String, String> parameters);

    /** Writes the store's whole content; the store keeps serving while this runs. */
    void writeSnapshot(HashedSeenSet store, OutputStream out) throws IOException;

    /**
     * What a snapshot or a dump writes of the store, taken under the store's write lock at the snapshot's journal
     * position ({@link dev.deja.journal.SnapshotCodec#capture}): the live store by default; a copy for a kind whose
     * journal records are not idempotent (cuckoo).
     */
    default HashedSeenSet capture(HashedSeenSet store) {
        return store;
    }

    /** Reads a store written by {@link #writeSnapshot} for the same canonical parameters. */
    HashedSeenSet readSnapshot(Map<String, String> parameters, InputStream in) throws IOException;

    /**
     * Adds every key of {@code source} into {@code target}; both were built from equal parameters. Called only for
     * a kind that says it is {@link #mergeable()}.
     *
     * @throws UnsupportedOperationException when stores of this kind cannot be merged
     */
    default void merge(HashedSeenSet target, HashedSeenSet source) {
        throw Namespace.notMergeable(name());
    }

    /** Opens the store journaled in the namespace's directory, snapshots holding this kind's content. */
    @Override
    default NamespaceStore open(String namespace, Map<String, String> parameters, Path dir, Durability durability)
            throws IOException {
        return JournaledStore.open(namespace, content(parameters), dir, durability);
    }

    /** This kind's content for the parameters, as the journaled store uses it. */
    private JournaledStore.Content content(Map<String, String> parameters) {
        return new JournaledStore.Content() {
            @Override
            public HashedSeenSet empty() {
                return create(parameters);
            }

            @Override
            public void write(HashedSeenSet store, OutputStream out) throws IOException {
                writeSnapshot(store, out);
            }

            @Override
            public HashedSeenSet capture(HashedSeenSet store) {
                return SnapshotKind.this.capture(store);
            }

            @Override
            public HashedSeenSet read(InputStream in) throws IOException {
                return readSnapshot(parameters, in);
            }

            @Override
            public void merge(HashedSeenSet target, HashedSeenSet source) {
                SnapshotKind.this.merge(target, source);
            }
        };
    }
}
