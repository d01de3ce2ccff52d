package dev.deja.redis;

import dev.deja.checks.Require;
import dev.deja.redis.node.Clients;
import dev.deja.redis.node.Node;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;

/**
 * Builds a {@link RedisSeenSet}: where its buckets live, how long keys are held and how the keys are spread so that
 * each bucket keeps a few hundred entries (Redis keeps a hash in its compact listpack encoding up to
 * {@code hash-max-listpack-entries}, 512 by default, and values up to {@code hash-max-listpack-value} bytes, 64).
 */
public final class RedisSeenSetBuilder {

    private Shards current;
    private Shards previous;
    private Instant cutOver;
    private Duration window = Duration.ofHours(24);
    private Duration bucketTime;
    private long expectedKeysPerSecond = 1000;
    private int entriesPerBucket = 100;
    private int slices;
    private String prefix = "deja";
    private Ids format = Ids.EXACT;
    private Duration timeout = Duration.ofSeconds(5);
    private InstantSource clock = InstantSource.system();

    RedisSeenSetBuilder() {}

    /** Where buckets live (the current configuration, for buckets from the cut-over on). */
    public RedisSeenSetBuilder shards(Shards shards) {
        this.current = Require.nonNull("shards", shards);
        return this;
    }

    /** One standalone instance. */
    public RedisSeenSetBuilder redis(RedisURI uri) {
        return shards(Shards.standalone(uri));
    }

    /**
     * Resharding without losing history: buckets whose time starts before {@code at} stay in {@code previous}, later
     * ones go to the configuration given to {@link #shards(Shards)}.
     */
    public RedisSeenSetBuilder previous(Shards previous, Instant at) {
        this.previous = Require.nonNull("previous", previous);
        this.cutOver = Require.nonNull("at", at);
        return this;
    }

    /** How long a key is held at least (default 24 hours). */
    public RedisSeenSetBuilder window(Duration window) {
        Require.positive("window in ms", Require.nonNull("window", window).toMillis());
        this.window = window;
        return this;
    }

    /** The length of a time bucket (default a quarter of the window); a key is held at most this much longer. */
    public RedisSeenSetBuilder bucketTime(Duration bucketTime) {
        Require.positive(
                "bucketTime in ms", Require.nonNull("bucketTime", bucketTime).toMillis());
        this.bucketTime = bucketTime;
        return this;
    }

    /** The expected rate of new keys (default 1,000 a second), which sets the number of slices. */
    public RedisSeenSetBuilder expectedKeysPerSecond(long rate) {
        this.expectedKeysPerSecond = Require.positive("expectedKeysPerSecond", rate);
        return this;
    }

    /** The entries a bucket should hold at the expected rate (default 100; well under Redis's listpack limit). */
    public RedisSeenSetBuilder entriesPerBucket(int entries) {
        this.entriesPerBucket = (int) Require.positive("entriesPerBucket", entries);
        return this;
    }

    /** The number of slices per time bucket, in place of computing it from the expected rate. */
    public RedisSeenSetBuilder slices(int slices) {
        this.slices = (int) Require.positive("slices", slices);
        return this;
    }

    /**
     * How many bytes a key is stored under (default 16): 16 keeps a UUID's own bytes, or another key's 128-bit hash,
     * and answers exactly within the window; 8 keeps a 64-bit fingerprint of the key's hash, which Redis stores as an
     * integer in 9 bytes instead of 17, and answers a new key as held with probability {@code m / 2^64} for {@code m}
     * entries in its bucket ({@link RedisSeenSet#falseDuplicateProbability()}). Both read only what they wrote: give
     * a new {@link #prefix(String)} when changing it.
     */
    public RedisSeenSetBuilder idBytes(int bytes) {
        this.format = new Ids(bytes);
        return this;
    }

    /** The first part of every bucket's name (default {@code deja}): one prefix per seen-set sharing a Redis. */
    public RedisSeenSetBuilder prefix(String prefix) {
        if (Require.nonNull("prefix", prefix).isEmpty() || prefix.contains("{") || prefix.contains("}")) {
            throw new IllegalArgumentException("prefix must be non-empty and hold no braces (got \"" + prefix + "\")");
        }
        this.prefix = prefix;
        return this;
    }

    /** How long a Redis call may take before it fails (default 5 seconds). */
    public RedisSeenSetBuilder timeout(Duration timeout) {
        Require.positive("timeout in ms", Require.nonNull("timeout", timeout).toMillis());
        this.timeout = timeout;
        return this;
    }

    /** The clock of calls without timestamps, and of bucket expiry (default the system's). */
    public RedisSeenSetBuilder clock(InstantSource clock) {
        this.clock = Require.nonNull("clock", clock);
        return this;
    }

    /** The number of slices the settings give. */
    int slicesToUse(long bucketMillis) {
        if (slices > 0) {
            return slices;
        }
        double perBucket = (double) expectedKeysPerSecond * bucketMillis / 1000.0;
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, Math.ceil(perBucket / entriesPerBucket)));
    }

    /**
     * Connects to every instance and loads the scripts.
     *
     * @throws RedisStoreException naming the instance that cannot be reached
     */
    public RedisSeenSet build() {
        Require.nonNull("shards", current);
        long bucketMillis = bucketTime != null ? bucketTime.toMillis() : Math.max(1, window.toMillis() / 4);
        int sliceCount = slicesToUse(bucketMillis);
        long expectedEntries = (long) Math.ceil((double) expectedKeysPerSecond * bucketMillis / 1000.0 / sliceCount);
        BucketLayout layout = new BucketLayout(prefix, bucketMillis, window.toMillis(), sliceCount, expectedEntries);
        Clients clients = new Clients(timeout);
        try {
            List<Node> now = open(clients, current);
            List<Node> before = previous == null ? now : open(clients, previous);
            long at = cutOver == null ? Long.MIN_VALUE : cutOver.toEpochMilli();
            RedisSeenSet set = new RedisSeenSet(layout, format, new ShardPlan(before, at, now), clients, clock);
            set.preloadScripts();
            return set;
        } catch (RuntimeException e) {
            clients.close();
            throw e;
        }
    }

    private static List<Node> open(Clients clients, Shards shards) {
        if (shards.isCluster()) {
            try {
                return List.of(clients.cluster(shards.uris()));
            } catch (RuntimeException e) {
                throw new RedisStoreException("redis-cluster://" + shards.uris(), "cannot connect", e);
            }
        }
        return shards.uris().stream().map(clients::standalone).toList();
    }
}
