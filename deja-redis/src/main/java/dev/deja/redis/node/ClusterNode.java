package dev.deja.redis.node;

import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.ByteArrayCodec;
import java.util.concurrent.CompletableFuture;

/**
 * A Redis Cluster through Lettuce's cluster connection, which routes each command to the master of its key's slot and
 * follows the cluster's topology. Keys that must meet in one script share a hash tag.
 */
final class ClusterNode implements Node {

    private final RedisClusterClient client;
    private final StatefulRedisClusterConnection<byte[], byte[]> connection;
    private final String name;

    ClusterNode(RedisClusterClient client, String name) {
        this.client = client;
        this.name = name;
        this.connection = client.connect(ByteArrayCodec.INSTANCE);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public RedisClusterAsyncCommands<byte[], byte[]> commands() {
        return connection.async();
    }

    @Override
    public CompletableFuture<Long> usedMemory() {
        CompletableFuture<Long> sum = CompletableFuture.completedFuture(0L);
        for (RedisClusterNode node : connection.getPartitions()) {
            if (node.is(RedisClusterNode.NodeFlag.UPSTREAM)) {
                CompletableFuture<Long> used = connection
                        .getConnection(node.getNodeId())
                        .async()
                        .info("memory")
                        .toCompletableFuture()
                        .thenApply(Node::usedMemory);
                sum = sum.thenCombine(used, Long::sum);
            }
        }
        return sum;
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown();
    }
}
