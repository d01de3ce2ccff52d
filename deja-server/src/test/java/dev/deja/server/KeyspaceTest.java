package dev.deja.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.testing.TestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.args.ExpiryOption;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * One keyspace, as in Redis: a filter is a key that DEL drops (with its files), EXISTS and TYPE see, KEYS and SCAN
 * list, and EXPIRE/TTL/PERSIST give a whole-filter expiry that survives a restart; the key-value keys share the same
 * commands.
 */
class KeyspaceTest {

    @TempDir
    Path dataDir;

    @Test
    void filtersAreKeysOfOneKeyspaceWithTheKeyValueKeys() throws Exception {
        try (TestServer server = TestServer.start(dataDir);
                RedisClient redis = RedisClient.create("127.0.0.1", server.respPort())) {
            redis.bfReserve("seen:2026-11-29", 0.001, 10_000);
            redis.bfAdd("seen:2026-11-29", "order-1");
            redis.set("lock:1", "worker-a");
            assertThat(redis.exists("seen:2026-11-29", "lock:1", "missing")).isEqualTo(2);
            assertThat(redis.type("seen:2026-11-29")).isEqualTo("MBbloom--");
            assertThat(redis.type("lock:1")).isEqualTo("string");
            assertThat(redis.type("missing")).isEqualTo("none");
            assertThat(redis.keys("seen:*")).containsExactly("seen:2026-11-29");
            assertThat(redis.keys("*")).contains("seen:2026-11-29").doesNotContain("default", "kv");

            assertThat(redis.del("seen:2026-11-29", "lock:1", "missing")).isEqualTo(2);
            assertThat(redis.exists("seen:2026-11-29", "lock:1")).isZero();
            assertThat(dataDir.resolve("seen:2026-11-29")).doesNotExist();
            assertThat(redis.bfExists("seen:2026-11-29", "order-1"))
                    .as("a new, empty filter")
                    .isFalse();
        }
    }

    @Test
    void flushDropsEveryNamespaceOnlyWhenTheServerAllowsIt() throws Exception {
        try (TestServer server = TestServer.start(dataDir);
                RedisClient redis = RedisClient.create("127.0.0.1", server.respPort())) {
            redis.bfAdd("orders", "x");
            assertThatThrownBy(redis::flushDB)
                    .hasMessage("ERR FLUSHDB is disabled: it would drop every namespace and its files; start deja serve"
                            + " with --allow-flush true to allow it");
            assertThatThrownBy(redis::flushAll).hasMessageContaining("FLUSHALL is disabled");
            assertThat(redis.exists("orders")).as("nothing was dropped").isTrue();
        }
        try (TestServer server = TestServer.start(dataDir, b -> b.allowFlush(/* allowFlush= */ true));
                RedisClient redis = RedisClient.create("127.0.0.1", server.respPort())) {
            redis.cfAdd("carts", "c");
            redis.set("lock:1", "a");
            redis.bfAdd("default", "in-default");
            assertThat(redis.flushDB()).isEqualTo("OK");
            assertThat(redis.keys("*")).isEmpty();
            assertThat(redis.exists("orders", "carts", "lock:1")).isZero();
            assertThat(redis.bfExists("default", "in-default"))
                    .as("default is emptied, not dropped")
                    .isFalse();
            assertThat(dataDir.resolve("orders")).doesNotExist();
            assertThat(dataDir.resolve("default")).exists();
            redis.bfAdd("orders", "y");
            assertThat(redis.flushAll()).isEqualTo("OK");
            assertThat(redis.keys("*")).isEmpty();
        }
    }

    @Test
    void aCommandOfOneFilterTypeOnTheOtherIsWrongType() throws Exception {
        try (TestServer server = TestServer.start(dataDir);
                RedisClient redis = RedisClient.create("127.0.0.1", server.respPort())) {
            redis.cfReserve("carts", 1000);
            redis.bfReserve("orders", 0.01, 1000);
            String wrongType = "WRONGTYPE Operation against a key holding the wrong kind of value";
            redis.set("lock:1", "worker-a");
            for (Runnable onAnotherType : List.<Runnable>of(
                    () -> redis.bfAdd("carts", "x"),
                    () -> redis.bfMAdd("carts", "x", "y"),
                    () -> redis.bfCard("carts"),
                    () -> redis.bfInfo("carts"),
                    () -> redis.bfReserve("carts", 0.01, 100),
                    () -> redis.bfAdd("lock:1", "x"),
                    () -> redis.bfReserve("lock:1", 0.01, 100),
                    () -> redis.bfInfo("lock:1"),
                    () -> redis.bfCard("lock:1"),
                    () -> redis.cfAdd("orders", "x"),
                    () -> redis.cfAdd("lock:1", "x"),
                    () -> redis.cfReserve("lock:1", 100),
                    () -> redis.cfInfo("lock:1"),
                    () -> redis.get("orders"),
                    () -> redis.set("orders", "v"),
                    () -> redis.executeCommand(new CommandArguments(Protocol.Command.SETNX).addObjects("carts", "v")),
                    () -> redis.executeCommand(
                            new CommandArguments(Protocol.Command.SETEX).addObjects("orders", "10", "v")))) {
                assertThatThrownBy(onAnotherType::run).hasMessage(wrongType);
            }
            // RedisBloom answers the membership tests 0 on a key of another type
            assertThat(redis.bfExists("carts", "x")).isFalse();
            assertThat(redis.bfExists("lock:1", "x")).isFalse();
            assertThat(redis.cfExists("lock:1", "x")).isFalse();
            assertThat(redis.cfExists("carts", "x"))
                    .as("nothing was added by the refused commands")
                    .isFalse();
            assertThat(redis.type("lock:1"))
                    .as("no filter was made of the value's name")
                    .isEqualTo("string");
            assertThat(redis.get("lock:1")).isEqualTo("worker-a");
            assertThat(redis.type("orders")).isEqualTo("MBbloom--");
        }
    }

    @Test
    void scanReturnsEveryNamespaceThatLivesThroughTheScanExactlyOnce() throws Exception {
        try (TestServer server = TestServer.start(dataDir);
                RedisClient redis = RedisClient.create("127.0.0.1", server.respPort())) {
            for (int i = 0; i < 25; i++) {
                redis.bfAdd("f" + i, "x");
            }
            Map<String, Integer> seen = new HashMap<>();
            String cursor = ScanParams.SCAN_POINTER_START;
            int pages = 0;
            do {
                ScanResult<String> page = redis.scan(cursor, new ScanParams().count(7));
                page.getResult().forEach(k -> seen.merge(k, 1, Integer::sum));
                cursor = page.getCursor();
                if (pages++ == 1) {
                    redis.del("f24"); // dropped and created during the scan: each may or may not be returned
                    redis.bfAdd("g-new", "x");
                }
            } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
            for (int i = 0; i < 24; i++) {
                assertThat(seen).as("f" + i).containsEntry("f" + i, 1);
            }
            assertThat(seen.values()).allMatch(n -> n == 1);
            assertThat(pages).isGreaterThan(3);

            List<String> matched = new ArrayList<>();
            cursor = ScanParams.SCAN_POINTER_START;
            do {
                ScanResult<String> page =
                        redis.scan(cursor, new ScanParams().match("f1*").count(100), "MBbloom--");
                matched.addAll(page.getResult());
                cursor = page.getCursor();
            } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
            assertThat(matched)
                    .containsExactlyInAnyOrder(
                            "f1", "f10", "f11", "f12", "f13", "f14", "f15", "f16", "f17", "f18", "f19");
        }
    }

    @Test
    void aFilterExpiresWholeAndItsExpirySurvivesARestart() throws Exception {
        try (TestServer server = TestServer.start(dataDir);
                RedisClient redis = RedisClient.create("127.0.0.1", server.respPort())) {
            redis.bfAdd("daily", "a");
            assertThat(redis.ttl("daily")).isEqualTo(-1);
            assertThat(redis.expire("daily", 100)).isEqualTo(1);
            assertThat(redis.ttl("daily")).isBetween(99L, 100L);
            assertThat(redis.expire("daily", 50, ExpiryOption.GT)).isZero();
            assertThat(redis.expire("daily", 50, ExpiryOption.LT)).isEqualTo(1);
            assertThat(redis.expire("daily", 500, ExpiryOption.NX)).isZero();
            assertThat(redis.persist("daily")).isEqualTo(1);
            assertThat(redis.persist("daily")).isZero();
            assertThat(redis.ttl("daily")).isEqualTo(-1);
            assertThat(redis.pexpire("daily", 3_000)).isEqualTo(1);
            assertThat(redis.ttl("missing")).isEqualTo(-2);
            assertThat(redis.expire("missing", 10)).isZero();
            assertThat(redis.expire("default", 10))
                    .as("the default namespace is not a key")
                    .isZero();
            assertThat(redis.exists("default")).isFalse();
        }
        try (TestServer server = TestServer.start(dataDir);
                RedisClient redis = RedisClient.create("127.0.0.1", server.respPort())) {
            assertThat(redis.pttl("daily")).as("kept across the restart").isBetween(1L, 3_000L);
            assertThat(redis.bfExists("daily", "a")).isTrue();
            long deadline = System.nanoTime() + 15_000_000_000L;
            while (redis.exists("daily") && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            assertThat(redis.exists("daily")).as("dropped once expired").isFalse();
            assertThat(Files.exists(dataDir.resolve("daily"))).isFalse();
            redis.bfAdd("gone-now", "a");
            assertThat(redis.pexpireAt("gone-now", 1))
                    .as("a time already past drops it")
                    .isEqualTo(1);
            assertThat(redis.exists("gone-now")).isFalse();
        }
    }

    @Test
    void keyValueKeysTakeTheSameExpiryCommands() throws Exception {
        try (TestServer server = TestServer.start(dataDir);
                RedisClient redis = RedisClient.create("127.0.0.1", server.respPort())) {
            redis.set("job:7", "claimed");
            assertThat(redis.expire("job:7", 100)).isEqualTo(1);
            assertThat(redis.ttl("job:7")).isBetween(99L, 100L);
            assertThat(redis.get("job:7")).isEqualTo("claimed");
            assertThat(redis.persist("job:7")).isEqualTo(1);
            assertThat(redis.ttl("job:7")).as("held for the namespace's window").isGreaterThan(100);
            assertThat(redis.pexpire("job:7", 1)).isEqualTo(1);
            Thread.sleep(20);
            assertThat(redis.get("job:7")).isNull();
            assertThat(redis.expire("job:8", 10)).isZero();
        }
    }
}
