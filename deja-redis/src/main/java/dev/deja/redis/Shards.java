package dev.deja.redis;

import dev.deja.checks.Require;
import io.lettuce.core.RedisURI;
import java.util.List;

/**
 * Where a {@link RedisSeenSet} keeps its buckets: several standalone Redis instances, each bucket on the instance its
 * slice picks ({@code slice mod instances}), or one Redis Cluster, each bucket in the slot of its hash tag.
 */
public final class Shards {

    private final List<RedisURI> uris;
    private final boolean cluster;

    private Shards(List<RedisURI> uris, boolean cluster) {
        Require.nonNull("uris", uris);
        if (uris.isEmpty()) {
            throw new IllegalArgumentException("shards need at least one Redis address");
        }
        uris.forEach(u -> Require.nonNull("uri", u));
        this.uris = List.copyOf(uris);
        this.cluster = cluster;
    }

    /** Standalone instances; the order matters: a bucket's instance is its slice modulo their number. */
    public static Shards standalone(List<RedisURI> uris) {
        return new Shards(uris, /* cluster= */ false);
    }

    /** Standalone instances, in the order that places buckets ({@link #standalone(List)}). */
    public static Shards standalone(RedisURI... uris) {
        return standalone(List.of(uris));
    }

    /**
     * One Redis Cluster, reached through any of these of its nodes. Lettuce's cluster connection reconnects by itself
     * and may send a call again whose reply was lost: a key so recorded twice answers {@code RETRY} when it carries an
     * owner, {@code DUPLICATE} when it does not, so give owners on a cluster.
     */
    public static Shards cluster(List<RedisURI> seeds) {
        return new Shards(seeds, /* cluster= */ true);
    }

    /** The addresses given. */
    public List<RedisURI> uris() {
        return uris;
    }

    /** Whether they are the seeds of one Redis Cluster rather than standalone instances. */
    public boolean isCluster() {
        return cluster;
    }
}
