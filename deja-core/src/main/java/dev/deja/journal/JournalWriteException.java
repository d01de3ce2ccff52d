package dev.deja.journal;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Thrown to a writer whose change could not be made durable, typically because the disk is full.
 *
 * <p>The caller must treat the change as not acknowledged. A store that never calls a new key seen has taken the
 * keys of a failed add back before this is thrown; in a bloom filter, which cannot forget, the add stays visible
 * and reaches the journal when the disk recovers (see {@link JournaledSeenSet}). Reads keep working while writes
 * fail.
 */
public final class JournalWriteException extends UncheckedIOException {

    private static final long serialVersionUID = 1L;

    JournalWriteException(String message, IOException cause) {
        super(message, cause);
    }
}
