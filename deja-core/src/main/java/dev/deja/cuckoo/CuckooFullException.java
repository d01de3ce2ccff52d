package dev.deja.cuckoo;

/**
 * A cuckoo filter that may not grow has no room for a key: the key was not recorded and the filter is unchanged
 * (RedisBloom answers "Filter is full" here).
 */
public final class CuckooFullException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    public CuckooFullException(String message) {
        super(message);
    }
}
