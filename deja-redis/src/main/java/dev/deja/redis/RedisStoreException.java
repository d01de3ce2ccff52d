package dev.deja.redis;

/**
 * A Redis call that failed or timed out, naming the instance it was sent to. Whatever it asked Redis to record may or
 * may not have been recorded.
 */
public class RedisStoreException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String instance;

    public RedisStoreException(String instance, String message, Throwable cause) {
        super(instance + ": " + message, cause);
        this.instance = instance;
    }

    /** The instance the failed call went to ({@code redis://host:port} or {@code redis-cluster://...}). */
    public String instance() {
        return instance;
    }
}
