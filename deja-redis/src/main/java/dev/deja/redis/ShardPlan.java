package dev.deja.redis;

import dev.deja.redis.node.Node;
import java.util.List;

/**
 * The Redis instance of each bucket: the previous shard configuration for buckets that start before the cut-over,
 * the current one for the others (Tapjoy's resharding without losing history). In a configuration of several
 * instances a bucket lives on instance {@code slice mod n}; a Redis Cluster is one node that routes by hash tag.
 */
final class ShardPlan implements AutoCloseable {

    private final List<Node> previous;
    private final long cutOverMillis;
    private final List<Node> current;

    ShardPlan(List<Node> previous, long cutOverMillis, List<Node> current) {
        this.previous = List.copyOf(previous);
        this.cutOverMillis = cutOverMillis;
        this.current = List.copyOf(current);
    }

    /** The node of a bucket that starts at {@code bucketStartMillis}. */
    Node node(long bucketStartMillis, int slice) {
        List<Node> nodes = bucketStartMillis < cutOverMillis ? previous : current;
        return nodes.get(slice % nodes.size());
    }

    /** Every node of both configurations. */
    List<Node> all() {
        return java.util.stream.Stream.concat(previous.stream(), current.stream())
                .distinct()
                .toList();
    }

    @Override
    public void close() {
        all().forEach(Node::close);
    }
}
