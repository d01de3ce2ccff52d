package dev.deja.journal;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Thrown to a writer whose change could not be made durable, typically because the disk is full.
 *
 * <p>The change may already be visible in memory and may still reach the journal when the disk recovers; the
 * caller must treat it as not acknowledged. Reads keep working while writes fail.
 */
public final class JournalWriteException extends UncheckedIOException {

    private static final long serialVersionUID = 1L;

    JournalWriteException(String message, IOException cause) {
        super(message, cause);
    }
}
