package dev.deja.seen;

/**
 * A call refused because the store is closed. A server that swaps a namespace's store (a clear, a loaded dump) closes
 * the old one while requests may still hold it; this type lets it tell that case from a defect and try the call again
 * on the new store.
 */
public class StoreClosedException extends IllegalStateException {

    public StoreClosedException(String message) {
        super(message);
    }
}
