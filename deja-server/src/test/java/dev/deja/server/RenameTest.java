package dev.deja.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.testing.TestServer;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.params.SetParams;

/**
 * {@code RENAME} and {@code RENAMENX} over the one keyspace: a filter moves with its items, files and expiry to the
 * new name, which it replaces (or, with RENAMENX, does not); a key-value key moves with its value and expiry; the
 * rename survives a restart.
 */
class RenameTest {

    @TempDir
    Path dataDir;

    @Test
    void aFilterMovesToItsNewNameWithItsItemsFilesAndExpiry() throws Exception {
        try (TestServer server = TestServer.start(dataDir);
                RedisClient redis = RedisClient.create("127.0.0.1", server.respPort())) {
            redis.bfReserve("today", 0.001, 10_000);
            redis.bfMAdd("today", "a", "b", "c");
            redis.expire("today", 3600);
            assertThat(redis.rename("today", "yesterday")).isEqualTo("OK");
            assertThat(redis.exists("today")).isFalse();
            assertThat(redis.bfMExists("yesterday", "a", "b", "c")).containsExactly(true, true, true);
            assertThat(redis.bfCard("yesterday")).isEqualTo(3);
            assertThat(redis.ttl("yesterday")).isBetween(3590L, 3600L);
            assertThat(dataDir.resolve("today")).doesNotExist();
            assertThat(dataDir.resolve("yesterday")).isDirectory();

            // RENAME replaces a key of the new name, of either type; RENAMENX leaves it
            redis.cfAdd("other", "z");
            assertThat(redis.renamenx("yesterday", "other")).isZero();
            assertThat(redis.type("other")).isEqualTo("MBbloomCF");
            assertThat(redis.rename("yesterday", "other")).isEqualTo("OK");
            assertThat(redis.type("other")).isEqualTo("MBbloom--");
            assertThat(redis.bfExists("other", "a")).isTrue();
            redis.set("lock:1", "v");
            assertThat(redis.renamenx("other", "lock:1")).isZero();
            assertThat(redis.rename("other", "lock:1")).isEqualTo("OK");
            assertThat(redis.type("lock:1")).isEqualTo("MBbloom--");
            assertThat(redis.renamenx("lock:1", "fresh")).isEqualTo(1);
            assertThat(redis.rename("fresh", "fresh")).isEqualTo("OK");
        }
        try (TestServer server = TestServer.start(dataDir);
                RedisClient redis = RedisClient.create("127.0.0.1", server.respPort())) {
            assertThat(redis.bfMExists("fresh", "a", "b", "c")).containsExactly(true, true, true);
            assertThat(redis.ttl("fresh"))
                    .as("the expiry moved with the filter")
                    .isPositive();
            assertThat(redis.exists("today", "yesterday", "other", "lock:1")).isZero();
        }
    }

    @Test
    void aKeyValueKeyMovesWithItsValueAndExpiry() throws Exception {
        try (TestServer server = TestServer.start(dataDir);
                RedisClient redis = RedisClient.create("127.0.0.1", server.respPort())) {
            redis.set("job:1", "worker-a", SetParams.setParams().ex(600));
            assertThat(redis.rename("job:1", "job:2")).isEqualTo("OK");
            assertThat(redis.get("job:1")).isNull();
            assertThat(redis.get("job:2")).isEqualTo("worker-a");
            assertThat(redis.ttl("job:2")).isBetween(590L, 600L);
            redis.set("job:3", "worker-b");
            assertThat(redis.renamenx("job:2", "job:3")).isZero();
            assertThat(redis.get("job:3")).isEqualTo("worker-b");
            redis.bfAdd("seen", "x");
            assertThat(redis.rename("job:2", "seen")).isEqualTo("OK");
            assertThat(redis.type("seen"))
                    .as("the filter was replaced by the value")
                    .isEqualTo("string");
            assertThat(redis.get("seen")).isEqualTo("worker-a");
        }
    }

    @Test
    void refusalsChangeNothing() throws Exception {
        try (TestServer server = TestServer.start(dataDir);
                RedisClient redis = RedisClient.create("127.0.0.1", server.respPort())) {
            assertThatThrownBy(() -> redis.rename("missing", "x")).hasMessage("ERR no such key");
            redis.bfAdd("f", "x");
            assertThatThrownBy(() -> redis.rename("f", "bad name")).hasMessageStartingWith("ERR a namespace cannot");
            assertThatThrownBy(() -> redis.rename("f", "default")).hasMessageContaining("'default' cannot be renamed");
            assertThatThrownBy(() -> redis.rename("default", "g")).hasMessage("ERR no such key");
            assertThat(redis.bfExists("f", "x")).isTrue();
        }
    }
}
