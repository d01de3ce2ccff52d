package dev.deja.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.journal.FsyncPolicy;
import dev.deja.namespace.NamespaceSpec;
import dev.deja.testing.Race;
import dev.deja.testing.RawCommands;
import dev.deja.testing.TestServer;
import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.BooleanOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The Redis dedup idiom against deja, through Lettuce's own key-value methods as application code calls them:
 * {@code SET id value NX EX seconds}, GET, EXISTS, DEL, TTL, addressing the exact namespace {@code kv}.
 */
class KeyValueCommandsTest {

    @TempDir
    Path dataDir;

    private TestServer server;
    private RedisClient client;
    private StatefulRedisConnection<String, String> connection;
    private RedisCommands<String, String> redis;

    @BeforeEach
    void start() throws Exception {
        server = TestServer.start(dataDir);
        client = RedisClient.create(RedisURI.builder()
                .withHost("127.0.0.1")
                .withPort(server.respPort())
                .withTimeout(Duration.ofSeconds(10))
                .build());
        connection = client.connect();
        redis = connection.sync();
    }

    @AfterEach
    void stop() {
        connection.close();
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        server.close();
    }

    @Test
    void setNxExIsTheDedupIdiom() {
        assertThat(redis.get("msg-1")).as("before the namespace exists").isNull();
        assertThat(redis.exists("msg-1")).isZero();
        assertThat(redis.ttl("msg-1")).isEqualTo(-2);

        assertThat(redis.set("msg-1", "worker-a", SetArgs.Builder.nx().ex(3600)))
                .isEqualTo("OK");
        assertThat(redis.set("msg-1", "worker-b", SetArgs.Builder.nx().ex(3600)))
                .as("a duplicate")
                .isNull();
        assertThat(redis.get("msg-1")).isEqualTo("worker-a");
        assertThat(redis.exists("msg-1", "msg-2", "msg-1")).isEqualTo(2);
        assertThat(redis.ttl("msg-1")).isBetween(3590L, 3600L);
        assertThat(redis.pttl("msg-1")).isBetween(3_590_000L, 3_600_000L);
        // SETNX by name: Lettuce deprecates its method for it (Redis prefers SET's options); the server answers it
        RawCommands raw = new RawCommands(redis);
        assertThat(raw.integer("SETNX", "msg-1", "again")).isZero();
        assertThat(raw.integer("SETNX", "msg-2", "first")).isOne();
        assertThat(redis.ttl("msg-2"))
                .as("no expiry of its own: held for the 24h window")
                .isBetween(86_390L, 86_400L);

        assertThat(redis.del("msg-1", "msg-3")).isEqualTo(1);
        assertThat(redis.get("msg-1")).isNull();
        assertThat(redis.set("msg-1", "worker-c", SetArgs.Builder.nx().px(60_000)))
                .isEqualTo("OK");
        assertThat(redis.get("msg-1")).isEqualTo("worker-c");

        assertThat(raw.list("DJ.LIST")).contains("kv");
        assertThat(raw.list("DJ.INFO", "kv")).contains("exact");
    }

    @ParameterizedTest // under always the replies also wait for the log's sync
    @EnumSource(
            value = FsyncPolicy.class,
            names = {"EVERYSEC", "ALWAYS"})
    void pipelinedSetNxTakeEffectInTheOrderSent(FsyncPolicy fsync, @TempDir Path other) throws Exception {
        try (TestServer s = TestServer.start(other, b -> b.fsync(fsync))) {
            RedisClient c = RedisClient.create(RedisURI.create("127.0.0.1", s.respPort()));
            try {
                pipelineInOrder(c, c.connect().sync());
            } finally {
                c.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
        }
    }

    private static void pipelineInOrder(RedisClient client, RedisCommands<String, String> redis) throws Exception {
        try (StatefulRedisConnection<String, String> pipelined = client.connect()) {
            pipelined.setAutoFlushCommands(false);
            RedisAsyncCommands<String, String> async = pipelined.async();
            // gathered SET NX commands run as one store call, but never after a later command of the batch
            RedisFuture<String> first =
                    async.set("p-a", "first", SetArgs.Builder.nx().ex(60));
            RedisFuture<String> second = async.set("p-a", "second", SetArgs.Builder.nx());
            RedisFuture<String> read = async.get("p-a");
            RedisFuture<Long> deleted = async.del("p-a");
            RedisFuture<String> third = async.set("p-a", "third", SetArgs.Builder.nx());
            RedisFuture<Boolean> setnx = async.dispatch( // SETNX by name: Lettuce's setnx is deprecated
                    CommandType.SETNX,
                    new BooleanOutput<>(StringCodec.UTF8),
                    new CommandArgs<>(StringCodec.UTF8).addKey("p-b").addValue("x"));
            RedisFuture<String> tooLong =
                    async.set("p-c", "v", SetArgs.Builder.nx().ex(10 * 86_400));
            RedisFuture<String> last = async.set("p-d", "v", SetArgs.Builder.nx());
            RedisFuture<Long> held = async.exists("p-a", "p-b", "p-c", "p-d");
            // the same exact namespace written by SET NX and by BF.ADD: each kind is gathered apart, in order
            RedisFuture<String> setFirst = async.set("p-x", "x", SetArgs.Builder.nx());
            RedisFuture<Boolean> addAfter = async.bfAdd("kv", "p-x");
            RedisFuture<Boolean> addFirst = async.bfAdd("kv", "p-y");
            RedisFuture<String> setAfter = async.set("p-y", "y", SetArgs.Builder.nx());
            RedisFuture<String> setAgain = async.set("p-e", "e", SetArgs.Builder.nx());
            RedisFuture<String> readAgain = async.get("p-e");
            List<RedisFuture<String>> many = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                many.add(async.set(
                        "p-many-" + (i % 500), "v" + i, SetArgs.Builder.nx().ex(3600)));
            }
            pipelined.flushCommands();
            assertThat(LettuceFutures.awaitAll(10, TimeUnit.SECONDS, many.toArray(RedisFuture[]::new)))
                    .isTrue();

            assertThat(first.get()).isEqualTo("OK");
            assertThat(second.get()).as("a duplicate within the batch").isNull();
            assertThat(read.get()).isEqualTo("first");
            assertThat(deleted.get()).isEqualTo(1);
            assertThat(third.get()).isEqualTo("OK");
            assertThat(setnx.get()).isTrue();
            assertThatThrownBy(tooLong::get).hasMessageContaining("window");
            assertThat(last.get())
                    .as("a refused command does not stop the others")
                    .isEqualTo("OK");
            assertThat(held.get()).isEqualTo(3);
            assertThat(setFirst.get()).isEqualTo("OK");
            assertThat(addAfter.get()).as("BF.ADD after SET NX of the same key").isFalse();
            assertThat(addFirst.get()).isTrue();
            assertThat(setAfter.get()).as("SET NX after BF.ADD of the same key").isNull();
            assertThat(setAgain.get()).isEqualTo("OK");
            assertThat(readAgain.get())
                    .as("a read sees the write sent before it")
                    .isEqualTo("e");
            for (int i = 0; i < 1000; i++) {
                assertThat(many.get(i).get()).as("SET NX #%d", i).isEqualTo(i < 500 ? "OK" : null);
            }
            assertThat(redis.get("p-many-7")).isEqualTo("v7");
            assertThat(redis.get("p-a")).isEqualTo("third");
        }
    }

    @Test
    void connectionsRacingOnTheSameKeysGetExactlyOneOkPerKey() throws Exception {
        // the SET NX of many connections served in one turn of an event loop run as one store call
        int connections = 8;
        int keys = 300;
        List<List<String>> replies = Race.run(
                client,
                connections,
                keys,
                (r, c, k) -> r.set("race-" + k, "c" + c, SetArgs.Builder.nx().ex(3600)));
        for (int k = 0; k < keys; k++) {
            List<Integer> winners = new ArrayList<>();
            for (int c = 0; c < connections; c++) {
                if ("OK".equals(replies.get(c).get(k))) {
                    winners.add(c);
                }
            }
            assertThat(winners).as("connections told OK for race-%d", k).hasSize(1);
            assertThat(redis.get("race-" + k)).isEqualTo("c" + winners.getFirst());
        }
    }

    @Test
    void anExpiredKeyIsGoneForEveryCommand() throws Exception {
        assertThat(redis.set("short", "1", SetArgs.Builder.nx().px(200))).isEqualTo("OK");
        assertThat(redis.set("short", "2", SetArgs.Builder.nx().px(200))).isNull();
        Thread.sleep(600);
        assertThat(redis.get("short")).isNull();
        assertThat(redis.exists("short")).isZero();
        assertThat(redis.ttl("short")).isEqualTo(-2);
        assertThat(redis.set("short", "3", SetArgs.Builder.nx().ex(60)))
                .as("new again once expired")
                .isEqualTo("OK");
        assertThat(redis.get("short")).isEqualTo("3");
    }

    @Test
    void xxKeepTtlSetexAndOverwrites() {
        assertThat(redis.set("k", "v1", SetArgs.Builder.xx()))
                .as("XX on an absent key")
                .isNull();
        RawCommands raw = new RawCommands(redis); // SETEX and PSETEX by name: Lettuce deprecates its methods for them
        assertThat(raw.status("SETEX", "k", "100", "v1")).isEqualTo("OK");
        assertThat(redis.set("k", "v2", SetArgs.Builder.xx().keepttl())).isEqualTo("OK");
        assertThat(redis.get("k")).isEqualTo("v2");
        assertThat(redis.ttl("k")).as("KEEPTTL kept the 100 s").isBetween(95L, 100L);
        assertThat(redis.set("k", "v3")).isEqualTo("OK");
        assertThat(redis.ttl("k")).as("a plain SET drops the key's own expiry").isGreaterThan(86_000L);
        assertThat(raw.status("PSETEX", "p", "5000", "x")).isEqualTo("OK");
        assertThat(redis.pttl("p")).isBetween(4_000L, 5_000L);
    }

    @Test
    void badArgumentsAreRedisStyleErrorsThatChangeNothing() {
        assertThatThrownBy(() -> redis.set("k", "v", SetArgs.Builder.nx().ex(0)))
                .hasMessageContaining("invalid expire time in 'set' command");
        for (int i = 0; i < 20; i++) { // the same words every time, whatever the clock's millisecond
            assertThatThrownBy(() -> redis.set("k", "v", SetArgs.Builder.nx().ex(2 * 86_400)))
                    .hasMessage("ERR expiry is 172800 s away but the store's window is 86400 s; create the namespace"
                            + " with a longer window");
        }
        assertThatThrownBy(() -> new RawCommands(redis).status("SET", "k", "v", "NX", "XX"))
                .hasMessageContaining("syntax error");
        assertThatThrownBy(() -> new RawCommands(redis).status("SET", "k", "v", "EX", "ten"))
                .hasMessageContaining("not an integer");
        assertThatThrownBy(() -> redis.set("k", "v".repeat(513))).hasMessageContaining("512");
        assertThat(redis.exists("k")).isZero();
        assertThatThrownBy(() -> new RawCommands(redis).status("GET")).hasMessageContaining("wrong number");
    }

    @Test
    void theKeyValueNamespaceIsConfigurableAndMustBeExact(@TempDir Path other) throws Exception {
        try (TestServer s = TestServer.start(
                other, b -> b.kvNamespace("dedup").kvSpec(NamespaceSpec.parse("exact", "window=1h,values=true")))) {
            RedisClient c = RedisClient.create(RedisURI.create("127.0.0.1", s.respPort()));
            try (StatefulRedisConnection<String, String> conn = c.connect()) {
                RedisCommands<String, String> r = conn.sync();
                assertThat(r.set("id", "1", SetArgs.Builder.nx().ex(60))).isEqualTo("OK");
                assertThatThrownBy(() -> r.set("id2", "1", SetArgs.Builder.nx().ex(7200)))
                        .hasMessageContaining("window");
                RawCommands raw = new RawCommands(r);
                assertThat(raw.list("DJ.LIST")).contains("dedup").doesNotContain("kv");
                assertThat(raw.integer("DJ.CHECK", "dedup", "id")).isOne();
            } finally {
                c.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
        }
        assertThatThrownBy(() -> TestServer.start(other, b -> b.kvSpec(NamespaceSpec.parse("bloom", ""))))
                .hasMessageContaining("must be of kind exact");
        RawCommands raw = new RawCommands(redis);
        raw.status("DJ.CREATE", "kv", "exact", "window", "1h");
        assertThatThrownBy(() -> redis.set("a", "1")).hasMessageContaining("exact namespace without values");
        assertThatThrownBy(() -> redis.get("a")).hasMessageContaining("exact namespace without values");
        raw.status("DJ.DROP", "kv");
        raw.status("DJ.CREATE", "kv", "recent", "keys", "1000");
        assertThatThrownBy(() -> redis.set("a", "1")).hasMessageContaining("is of kind recent");
    }

    @Test
    void valuesSurviveARestart() throws Exception {
        assertThat(redis.set("durable", "yes", SetArgs.Builder.nx().ex(3600))).isEqualTo("OK");
        stop();
        start();
        assertThat(redis.get("durable")).isEqualTo("yes");
        assertThat(redis.ttl("durable")).isBetween(3500L, 3600L);
        HttpResponse<String> check = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(
                                        URI.create("http://127.0.0.1:" + server.httpPort() + "/check?ns=kv&e=durable"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(check.body()).isEqualTo("PRESENT\n");
    }
}
