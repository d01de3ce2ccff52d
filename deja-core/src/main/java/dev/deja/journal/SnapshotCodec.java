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
 * @param <S> the store type
 */
public interface SnapshotCodec<S> {

    /** Writes the store's state; does not close the stream. */
    void write(S store, OutputStream out) throws IOException;

    /** Reads a state written by {@link #write}; does not close the stream. */
    S read(InputStream in) throws IOException;
}
