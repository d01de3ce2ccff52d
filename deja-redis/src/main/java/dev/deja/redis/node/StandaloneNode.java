package dev.deja.redis.node;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import java.util.concurrent.CompletableFuture;

/**
 * A standalone Redis instance over one Lettuce connection, shared by every thread (Lettuce pipelines their commands).
 *
 * <p>The client does not reconnect by itself ({@link Clients}: at most once), so a command in flight when the
 * connection drops fails rather than being sent again after an unknown outcome; the next call opens a new connection.
 */
final class StandaloneNode implements Node {

    private final RedisClient client;
    private final RedisURI uri;
    private final String name;
    private volatile StatefulRedisConnection<byte[], byte[]> connection;

    StandaloneNode(RedisClient client, RedisURI uri) {
        this.client = client;
        this.uri = uri;
        this.name = "redis://" + uri.getHost() + ":" + uri.getPort();
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public RedisClusterAsyncCommands<byte[], byte[]> commands() {
        return open().async();
    }

    @Override
    public CompletableFuture<Long> usedMemory() {
        return open().async().info("memory").toCompletableFuture().thenApply(Node::usedMemory);
    }

    private StatefulRedisConnection<byte[], byte[]> open() {
        StatefulRedisConnection<byte[], byte[]> c = connection;
        if (c != null && c.isOpen()) {
            return c;
        }
        synchronized (this) {
            c = connection;
            if (c == null || !c.isOpen()) {
                if (c != null) {
                    c.close();
                }
                c = client.connect(ByteArrayCodec.INSTANCE, uri);
                connection = c;
            }
            return c;
        }
    }

    @Override
    public synchronized void close() {
        if (connection != null) {
            connection.close();
            connection = null;
        }
    }
}
