package dev.deja.redis;

import dev.deja.redis.node.Clients;
import dev.deja.redis.node.Node;
import dev.deja.seen.ErrorEstimate;
import dev.deja.seen.Guarantee;
import dev.deja.seen.SeenSet;
import dev.deja.seen.SeenStats;
import dev.deja.seen.StoreClosedException;
import dev.deja.seen.Verdict;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;

/**
 * A seen-set in Redis, after Tapjoy's Redis de-dup design: set-if-absent with the owner as the stored value, ids in
 * binary in Redis hashes of a few hundred entries grouped by time bucket and slice, one Lua script call per bucket per
 * batch that answers only the duplicates and retries, sharded over several instances (with a previous and a current
 * configuration around a cut-over) or over a Redis Cluster.
 *
 * <p><b>Timestamps.</b> The fast path takes each message's own timestamp ({@link #checkThenAddAll(List, long[],
 * long[])}): a message delivered again carries the same one, so its key is looked for in one bucket. The
 * {@link SeenSet} calls, which take none, use the clock's time and read the earlier buckets of the window too
 * ({@code window / bucketTime} more hash reads per key). A key recorded with a timestamp is found by calls with the
 * same timestamp or by calls without one inside the window.
 *
 * <p><b>What it may get wrong</b> ({@link #guarantee()}): with 16-byte ids (the default), nothing inside its window,
 * as long as Redis keeps its data ({@link #reliesOn()}). With 8-byte ids ({@link RedisSeenSetBuilder#idBytes(int)}),
 * a new key is answered as held (a {@code DUPLICATE}, or a {@code RETRY} if the other key has the same owner) when its
 * 64-bit fingerprint equals that of a key in a bucket it is looked for in: probability {@code m / 2^64} for {@code m}
 * entries there ({@link #falseDuplicateProbability()}); {@code forget} may so erase the other key. A key is held for at
 * least the window after its timestamp and at most a bucket time more.
 * Errors and timeouts are {@link RedisStoreException}s naming the instance; no key is answered {@code NEW} unless Redis
 * recorded it, and a batch that fails part way throws {@link BatchFailedException}, which says which keys were.
 */
public final class RedisSeenSet implements SeenSet {

    private final BucketLayout layout;
    private final Ids format;
    private final ShardPlan plan;
    private final Clients clients;
    private final BucketOps ops;
    private final InstantSource clock;
    private final LongAdder insertions = new LongAdder();
    private volatile boolean closed;

    RedisSeenSet(BucketLayout layout, Ids format, ShardPlan plan, Clients clients, InstantSource clock) {
        this.layout = layout;
        this.format = format;
        this.plan = plan;
        this.clients = clients;
        this.clock = clock;
        this.ops = new BucketOps(layout, clients.timeout());
    }

    /** A builder; {@link RedisSeenSetBuilder#shards(Shards)} is required. */
    public static RedisSeenSetBuilder builder() {
        return new RedisSeenSetBuilder();
    }

    @Override
    public boolean check(byte[] key) {
        return checkAll(List.of(key))[0];
    }

    @Override
    public void add(byte[] key, long owner) {
        checkThenAdd(key, owner);
    }

    @Override
    public Verdict checkThenAdd(byte[] key, long owner) {
        return checkThenAddAll(List.of(key), new long[] {owner})[0];
    }

    @Override
    public boolean forget(byte[] key, long owner) {
        return forgetAll(List.of(key), new long[] {owner})[0];
    }

    @Override
    public boolean[] checkAll(List<byte[]> keys) {
        return checkAll(keys, null);
    }

    @Override
    public void addAll(List<byte[]> keys) {
        checkThenAddAll(keys, null, null);
    }

    @Override
    public Verdict[] checkThenAddAll(List<byte[]> keys, long[] owners) {
        return checkThenAddAll(keys, owners, null);
    }

    @Override
    public boolean[] forgetAll(List<byte[]> keys, long[] owners) {
        return forgetAll(keys, owners, null);
    }

    /**
     * {@link #checkAll(List)} of keys with their messages' timestamps.
     *
     * @param timestamps one per key, milliseconds since the epoch; null for the clock's time
     */
    public boolean[] checkAll(List<byte[]> keys, long[] timestamps) {
        long now = open();
        return ops.check(BucketBatch.of(layout, format, plan, keys, null, timestamps, now));
    }

    /**
     * {@link #checkThenAddAll(List, long[])} of keys with their messages' timestamps: each key is recorded in, and
     * looked for in, the bucket of its timestamp only. A message delivered again must carry the same timestamp.
     *
     * @param owners     one per key, or null for none
     * @param timestamps one per key, milliseconds since the epoch; null for the clock's time (and a look in the
     *                   earlier buckets of the window)
     * @throws BatchFailedException when some bucket calls failed: it holds the answers of the keys that were recorded
     */
    public Verdict[] checkThenAddAll(List<byte[]> keys, long[] owners, long[] timestamps) {
        long now = open();
        Verdict[] out = ops.checkThenAdd(BucketBatch.of(layout, format, plan, keys, owners, timestamps, now), now);
        for (Verdict v : out) {
            if (v == Verdict.NEW) {
                insertions.increment();
            }
        }
        return out;
    }

    /**
     * {@link #forgetAll(List, long[])} of keys recorded with these timestamps.
     *
     * @param timestamps one per key, milliseconds since the epoch; null to look in every bucket of the window
     */
    public boolean[] forgetAll(List<byte[]> keys, long[] owners, long[] timestamps) {
        long now = open();
        return ops.forget(BucketBatch.of(layout, format, plan, keys, owners, timestamps, now));
    }

    /**
     * With 16-byte ids {@link Guarantee#EXACT_WITHIN_WINDOW}; with 8-byte ids {@link Guarantee#NEVER_FALSE_NEW}, a
     * new key answered as held with probability at most {@link #falseDuplicateProbability()}. Both as long as Redis
     * keeps what it acknowledged ({@link #reliesOn()}).
     */
    @Override
    public Guarantee guarantee() {
        return format.bytes() == 16 ? Guarantee.EXACT_WITHIN_WINDOW : Guarantee.NEVER_FALSE_NEW;
    }

    /**
     * A bound on the probability that a new key recorded with its timestamp is answered as held although it never
     * was: 0 for 16-byte ids (for keys other than UUIDs, unless two share their 128-bit hash); for 8-byte ids {@code
     * m / 2^64}, {@code m} the larger of the entries a bucket holds at the expected rate and 512, the entries Redis
     * keeps compact by default (a call without a timestamp looks in every bucket of the window: times their number).
     */
    public double falseDuplicateProbability() {
        return format.bytes() == 16 ? 0 : Math.max(layout.expectedEntries(), 512) / 0x1p64;
    }

    /** What Redis must keep for {@link #guarantee()} to hold, in plain words. */
    public String reliesOn() {
        return "Redis keeping every key it acknowledged for the window: a Redis restart without persistence forgets"
                + " everything (keys then answer NEW again); with appendonly yes and appendfsync always nothing"
                + " acknowledged is lost, with appendfsync everysec up to a second of writes, with RDB snapshots only"
                + " the writes since the last save; a failover to a replica loses writes not yet replicated; and"
                + " maxmemory with an eviction policy other than noeviction drops buckets before their window ends";
    }

    /** Insertions made through this client, Redis's {@code used_memory} over every instance, the window. */
    @Override
    public SeenStats stats() {
        open();
        long memory = 0;
        for (Node node : plan.all()) {
            try {
                memory += node.usedMemory().get(clients.timeout().toMillis() + 1000, TimeUnit.MILLISECONDS);
            } catch (ExecutionException | TimeoutException | RuntimeException e) {
                throw new RedisStoreException(node.name(), "INFO memory failed", e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new RedisStoreException(node.name(), "INFO memory interrupted", e);
            }
        }
        return new SeenStats(
                "redis",
                guarantee(),
                insertions.sum(),
                memory,
                new ErrorEstimate.Exact(Duration.ofMillis(layout.windowMillis())));
    }

    /** Loads the scripts on every instance, so that calls find them by SHA1 from the first. */
    void preloadScripts() {
        for (Node node : plan.all()) {
            for (var script : BucketOps.SCRIPTS) {
                try {
                    script.preload(node).join();
                } catch (RuntimeException e) {
                    throw new RedisStoreException(node.name(), "cannot load " + script.name(), e);
                }
            }
        }
    }

    private long open() {
        if (closed) {
            throw new StoreClosedException("this RedisSeenSet is closed");
        }
        return clock.millis();
    }

    /** Closes the connections. */
    @Override
    public void close() {
        closed = true;
        plan.close();
        clients.close();
    }
}
