package dev.deja.exact;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * A lookup RocksDB could not complete, such as one meeting a damaged table file. Unlike a refused write (a full disk),
 * it is not about persisting, and waiting does not help: the store must be restored from a copy.
 */
public final class StoreReadException extends UncheckedIOException {

    StoreReadException(String message, IOException cause) {
        super(message, cause);
    }
}
