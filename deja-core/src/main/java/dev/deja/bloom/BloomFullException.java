package dev.deja.bloom;

/**
 * A {@link ScalingBloomFilter} could not record a new key: it may not grow and is full, or its next sub-filter was
 * refused (by its {@link ScalingBloomFilter.MemoryGate}, or because it would exceed the largest filter). The key was
 * not recorded and the filter is unchanged (RedisBloom answers "non scaling filter is full" for the first case).
 */
public final class BloomFullException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    public BloomFullException(String message) {
        super(message);
    }

    public BloomFullException(String message, Throwable cause) {
        super(message, cause);
    }
}
