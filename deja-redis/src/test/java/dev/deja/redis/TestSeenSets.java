package dev.deja.redis;

import io.lettuce.core.RedisURI;
import java.time.Duration;

/**
 * How the single-server tests ({@link RedisSeenSetTest}, {@link IdBytesTest}) build most of their seen sets: on one
 * server, under a prefix of their own, in one-minute buckets. The settings each test is about (window, slices, id
 * width, clock) stay at the call.
 */
final class TestSeenSets {

    private TestSeenSets() {}

    /**
     * A builder for a seen set on the server at {@code redis}, its keys under {@code prefix}, held for
     * {@code window} in one-minute buckets; the caller sets the slices and anything else its test needs, then builds.
     */
    static RedisSeenSetBuilder minuteBuckets(RedisURI redis, String prefix, Duration window) {
        return RedisSeenSet.builder().redis(redis).prefix(prefix).window(window).bucketTime(Duration.ofMinutes(1));
    }
}
