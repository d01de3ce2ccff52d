package dev.deja.redis.node;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Opens {@link Node}s, all sharing one set of Lettuce resources (event loops) with few threads, each command bounded
 * by one timeout. Standalone connections do not reconnect by themselves: a command whose connection dropped fails
 * instead of being replayed on a new one, so a script never runs twice unknown to the caller.
 */
public final class Clients implements AutoCloseable {

    private final ClientResources resources;
    private final RedisClient standalone;
    private final Duration timeout;
    private final List<Node> opened = new ArrayList<>();

    /** Lettuce resources for nodes whose commands each time out after {@code timeout}. */
    public Clients(Duration timeout) {
        this.timeout = timeout;
        this.resources = DefaultClientResources.builder()
                .ioThreadPoolSize(2)
                .computationThreadPoolSize(2)
                .build();
        this.standalone = RedisClient.create(resources);
        standalone.setOptions(ClientOptions.builder()
                .autoReconnect(false)
                .timeoutOptions(TimeoutOptions.enabled(timeout))
                .build());
    }

    /** A standalone instance. */
    public synchronized Node standalone(RedisURI uri) {
        RedisURI copy = RedisURI.builder(uri).withTimeout(timeout).build();
        return remember(new StandaloneNode(standalone, copy));
    }

    /** A Redis Cluster reached through any of its nodes. */
    public synchronized Node cluster(List<RedisURI> seeds) {
        RedisClusterClient client = RedisClusterClient.create(resources, seeds);
        client.setOptions(ClusterClientOptions.builder()
                .timeoutOptions(TimeoutOptions.enabled(timeout))
                .build());
        String name = "redis-cluster://"
                + seeds.stream().map(u -> u.getHost() + ":" + u.getPort()).collect(Collectors.joining(","));
        return remember(new ClusterNode(client, name));
    }

    private Node remember(Node node) {
        opened.add(node);
        return node;
    }

    /** The timeout of each command. */
    public Duration timeout() {
        return timeout;
    }

    /** Closes every node opened here, then the clients and their threads. */
    @Override
    public synchronized void close() {
        opened.forEach(Node::close);
        opened.clear();
        standalone.shutdown();
        resources.shutdown(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
    }
}
