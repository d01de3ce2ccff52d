package dev.deja.redis;

import dev.deja.hash.Hash128;
import java.nio.charset.StandardCharsets;

/**
 * Which Redis hash (bucket) holds a key, and until when: Tapjoy's Redis design groups ids by the time bucket of the
 * message's timestamp and by a slice of the key's hash, so that each bucket holds a few hundred ids and Redis keeps it
 * in its compact listpack encoding. A bucket is named {@code <prefix>:{<slice>}:<bucket>}: the hash tag is the slice,
 * so on a Redis Cluster a slice's buckets of every time share one slot and one script may read several of them. A
 * bucket expires when the window has passed over its end (docs/FORMAT.md section 7).
 *
 * @param prefix       the first part of every bucket's name
 * @param bucketMillis the length of a time bucket
 * @param windowMillis how long a key is held at least
 * @param slices       the number of buckets each time bucket is split into
 * @param expectedEntries the entries a bucket holds at the expected rate
 */
record BucketLayout(String prefix, long bucketMillis, long windowMillis, int slices, long expectedEntries) {

    /** The time bucket of a timestamp (milliseconds since the epoch). */
    long bucket(long timestampMillis) {
        return Math.floorDiv(timestampMillis, bucketMillis);
    }

    /** The slice of a key's hash. */
    int slice(Hash128 hash) {
        return (int) Hash128.reduce(hash.low(), slices);
    }

    /** How many earlier buckets a call without a timestamp reads, so that it sees every key of the window. */
    int lookback() {
        return (int) ((windowMillis + bucketMillis - 1) / bucketMillis);
    }

    /** The start of a time bucket, in milliseconds since the epoch. */
    long start(long bucket) {
        return bucket * bucketMillis;
    }

    /** When a bucket expires: the window after its end, or a second from now for a bucket already that old. */
    long expireAt(long bucket, long nowMillis) {
        return Math.max(start(bucket) + bucketMillis + windowMillis, nowMillis + 1000);
    }

    /** The bucket's Redis key. */
    byte[] key(long bucket, int slice) {
        return (prefix + ":{" + slice + "}:" + bucket).getBytes(StandardCharsets.UTF_8);
    }
}
