package dev.deja.redis.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class FixtureTest {

    @Test
    void serverStartsOnFreePortRestartsEmptyAndCleansUp() {
        Path dir;
        try (RedisServer server = RedisServer.start()) {
            dir = server.dir();
            assertThat(server.cli("set", "k", "v")).isEqualTo("OK");
            assertThat(server.cli("config", "get", "save")).isEqualTo("save");
            server.restart();
            assertThat(server.cli("exists", "k")).isEqualTo("0");
        }
        assertThat(Files.exists(dir)).isFalse();
    }

    @Test
    void clusterServesEverySlot() {
        try (RedisClusterNodes cluster = RedisClusterNodes.start()) {
            assertThat(cluster.nodes()).hasSize(3);
            for (RedisServer node : cluster.nodes()) {
                assertThat(node.cli("cluster", "info")).contains("cluster_slots_assigned:16384");
            }
        }
    }
}
