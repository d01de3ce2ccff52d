package dev.deja.redis.testing;

import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A real Redis Cluster of three masters and no replicas on loopback: three {@code redis-server} processes started with
 * {@code --cluster-enabled yes}, joined by {@code redis-cli --cluster create}; ready once every node reports
 * {@code cluster_state:ok}.
 */
public final class RedisClusterNodes implements AutoCloseable {

    private static final Duration READY_TIMEOUT = Duration.ofSeconds(30);

    private final List<RedisServer> nodes;

    private RedisClusterNodes(List<RedisServer> nodes) {
        this.nodes = nodes;
    }

    /** Starts three nodes, creates the cluster and waits until every node serves all 16384 slots. */
    public static RedisClusterNodes start() {
        List<RedisServer> nodes = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                nodes.add(RedisServer.start(
                        "--cluster-enabled",
                        "yes",
                        "--cluster-config-file",
                        "nodes.conf",
                        "--cluster-node-timeout",
                        "5000"));
            }
            List<String> create = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
            nodes.forEach(n -> create.add("127.0.0.1:" + n.port()));
            create.addAll(List.of("--cluster-replicas", "0", "--cluster-yes"));
            Processes.output(create);
            awaitOk(nodes);
            return new RedisClusterNodes(List.copyOf(nodes));
        } catch (RuntimeException e) {
            nodes.forEach(RedisServer::close);
            throw e;
        }
    }

    private static void awaitOk(List<RedisServer> nodes) {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        for (RedisServer node : nodes) {
            while (!node.cli("cluster", "info").contains("cluster_state:ok")) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("cluster not ok after " + READY_TIMEOUT + ": port " + node.port());
                }
                Processes.pause(Duration.ofMillis(50));
            }
        }
    }

    /** The nodes' addresses, the seeds a cluster client starts from. */
    public List<RedisURI> uris() {
        return nodes.stream().map(RedisServer::uri).toList();
    }

    /** The nodes themselves. */
    public List<RedisServer> nodes() {
        return nodes;
    }

    @Override
    public void close() {
        nodes.forEach(RedisServer::close);
    }
}
