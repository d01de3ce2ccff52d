package dev.deja.server;

/**
 * Why {@link RequestGuard} stopped reading a connection, passed down its pipeline as a user event: the front end's
 * handler answers it in its turn, after the requests received before it, and closes the connection.
 *
 * @param reason  what limit the connection crossed
 * @param message what happened and which setting governs it, protocol-neutral
 */
public record RequestRefusal(Reason reason, String message) {

    /** The limit crossed. */
    public enum Reason {
        /** The request being received is larger than a connection may hold. */
        TOO_LARGE,
        /** The bytes would not fit in the server's request memory, which other connections hold. */
        MEMORY_FULL,
        /** The request did not arrive whole within the request timeout. */
        TIMEOUT
    }
}
