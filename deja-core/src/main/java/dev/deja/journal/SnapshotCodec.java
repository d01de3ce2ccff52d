package dev.deja.journal;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * Writes a store's whole state to a stream and reads it back; each store kind (bloom, recent) provides one.
 *
 * <p>{@link #write} is called while other threads keep changing the store, so it must stream the live structure
 * (never copy it whole) and read each slot atomically; the journal replay after recovery brings a snapshot taken
 * that way up to date (see {@link JournaledSeenSet}). The stream carries only the store's own bytes: the
 * snapshot file around them adds the journal position, the length and a checksum.
 *
 * <p>A store whose journal records are not idempotent (a cuckoo filter's records insert one more copy of a key, so
 * replaying one the snapshot already holds would add a second) cannot be brought up to date from a fuzzy snapshot.
 * Its codec overrides {@link #capture}, which runs under the store's write lock at the moment the journal position
 * is read, and returns a copy of the store: the snapshot then holds exactly the records before its position, and
 * replay applies each later record once.
 *
 * @param <S> the store type
 */
public interface SnapshotCodec<S> {

    /** Writes the store's state; does not close the stream. */
    void write(S store, OutputStream out) throws IOException;

    /**
     * What {@link #write} writes for a snapshot taken now: called under the store's write lock, when the snapshot's
     * journal position is read. The live store by default (a fuzzy snapshot); a copy for a store that needs the
     * snapshot to match its position exactly (see the class comment).
     */
    default S capture(S store) {
        return store;
    }

    /** Reads a state written by {@link #write}; does not close the stream. */
    S read(InputStream in) throws IOException;
}
