package dev.deja.resp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.testing.TestServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.AbstractTransaction;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.Response;
import redis.clients.jedis.bloom.BFInsertParams;
import redis.clients.jedis.bloom.BFReserveParams;
import redis.clients.jedis.commands.ProtocolCommand;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.SetParams;
import redis.clients.jedis.util.KeyValue;
import redis.clients.jedis.util.SafeEncoder;

/**
 * Jedis, the other Java client RedisBloom users have, against the RESP front end: its bloom commands, the dedup
 * idiom, pipelining and deja's own commands, with a password as its users configure one. (The RESP tests mostly use
 * Lettuce; this one shows that what Jedis sends and expects, from its connection handshake on, works unchanged.)
 */
class JedisCompatibilityTest {

    @TempDir
    static Path dataDir;

    private static TestServer server;
    private static RedisClient jedis;

    @BeforeAll
    static void start() throws Exception {
        server = TestServer.start(dataDir, b -> b.password("s3cret"));
        jedis = RedisClient.create("127.0.0.1", server.respPort(), "default", "s3cret");
    }

    @AfterAll
    static void stop() {
        jedis.close();
        server.close();
    }

    /** A deja command Jedis does not know, sent by name ({@link #send}) as its users send module commands. */
    private enum Dj implements ProtocolCommand {
        CHECKTHENADD,
        MCHECKTHENADD,
        FORGET,
        CREATE;

        @Override
        public byte[] getRaw() {
            return SafeEncoder.encode("DJ." + name());
        }
    }

    /** Sends a command Jedis has no method for, with its arguments. */
    private static Object send(ProtocolCommand command, String... args) {
        return jedis.executeCommand(new CommandArguments(command).addObjects((Object[]) args));
    }

    @Test
    void bloomCommandsAsJedisCallsThem() {
        assertThat(jedis.bfReserve(
                        "j-a", 0.01, 1000, BFReserveParams.reserveParams().nonScaling()))
                .isEqualTo("OK");
        assertThat(jedis.bfAdd("j-a", "one")).isTrue();
        assertThat(jedis.bfAdd("j-a", "one")).isFalse();
        assertThat(jedis.bfMAdd("j-a", "two", "three", "two")).containsExactly(true, true, false);
        assertThat(jedis.bfExists("j-a", "two")).isTrue();
        assertThat(jedis.bfExists("j-a", "nine")).isFalse();
        assertThat(jedis.bfMExists("j-a", "one", "nine", "three")).containsExactly(true, false, true);
        assertThat(jedis.bfCard("j-a")).isEqualTo(3);
        assertThat(jedis.bfExists("j-missing", "x")).isFalse();

        Map<String, Object> info = jedis.bfInfo("j-a");
        assertThat(info)
                .containsEntry("Capacity", 1000L)
                .containsEntry("Number of filters", 1L)
                .containsEntry("Number of items inserted", 3L);

        assertThat(jedis.bfInsert("j-b", new BFInsertParams().capacity(500).error(0.001), "x", "y", "x"))
                .containsExactly(true, true, false);
        assertThat(jedis.bfInfo("j-b")).containsEntry("Capacity", 500L);
        assertThatThrownBy(() -> jedis.bfInsert("j-c", new BFInsertParams().noCreate(), "x"))
                .isInstanceOf(JedisDataException.class)
                .hasMessage("ERR not found");
        assertThatThrownBy(() -> jedis.bfReserve("j-a", 0.01, 1000)).hasMessage("ERR item exists");
        assertThatThrownBy(() -> jedis.bfReserve("j-d", 1.5, 100)).hasMessage("ERR (0 < error rate range < 1)");
    }

    @Test
    void scanDumpAndLoadChunkCopyAFilter() {
        jedis.bfReserve("j-src", 0.01, 1000);
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            keys.add("key-" + i);
        }
        jedis.bfMAdd("j-src", keys.toArray(String[]::new));
        long cursor = 0;
        while (true) {
            Map.Entry<Long, byte[]> chunk = jedis.bfScanDump("j-src", cursor);
            cursor = chunk.getKey();
            if (cursor == 0) {
                break;
            }
            assertThat(jedis.bfLoadChunk("j-copy", cursor, chunk.getValue())).isEqualTo("OK");
        }
        assertThat(jedis.bfMExists("j-copy", keys.toArray(String[]::new))).containsOnly(true);
        assertThat(jedis.bfCard("j-copy")).isEqualTo(300);
    }

    @Test
    void theDedupIdiomAndDejaCommands() {
        assertThat(jedis.set("j-msg-1", "worker-3", SetParams.setParams().nx().ex(3600)))
                .isEqualTo("OK");
        assertThat(jedis.set("j-msg-1", "worker-5", SetParams.setParams().nx().ex(3600)))
                .isNull();
        assertThat(jedis.get("j-msg-1")).isEqualTo("worker-3");
        assertThat(jedis.ttl("j-msg-1")).isBetween(3590L, 3600L);

        assertThat(send(Dj.CREATE, "j-orders", "recent", "keys", "10000")).isEqualTo(bytes("OK"));
        assertThat(send(Dj.CHECKTHENADD, "j-orders", "order-17", "4711")).isEqualTo(bytes("NEW"));
        assertThat(send(Dj.CHECKTHENADD, "j-orders", "order-17", "4711")).isEqualTo(bytes("RETRY"));
        assertThat(send(Dj.CHECKTHENADD, "j-orders", "order-17")).isEqualTo(bytes("DUPLICATE"));
        assertThat(send(Dj.FORGET, "j-orders", "order-17", "4711")).isEqualTo(1L);
        assertThat(send(Dj.MCHECKTHENADD, "j-orders", "order-17", "order-18"))
                .asInstanceOf(InstanceOfAssertFactories.LIST)
                .containsExactly(bytes("NEW"), bytes("NEW"));
    }

    @Test
    void pipelinedCommandsAreAnsweredInOrder() {
        List<Response<Boolean>> added = new ArrayList<>();
        try (Pipeline pipeline = jedis.pipelined()) {
            for (int i = 0; i < 500; i++) {
                added.add(pipeline.bfAdd("j-pipe", "k-" + (i % 250)));
            }
            pipeline.sync();
        }
        for (int i = 0; i < 500; i++) {
            assertThat(added.get(i).get()).as("reply %d", i).isEqualTo(i < 250);
        }
    }

    @Test
    void transactionsAsJedisRunsThem() {
        List<Object> results;
        Response<Boolean> added;
        Response<String> value;
        try (AbstractTransaction transaction = jedis.multi()) {
            added = transaction.bfAdd("j-tx", "one");
            transaction.bfAdd("j-tx", "one");
            transaction.set("j-tx-kv", "v", SetParams.setParams().nx().ex(3600));
            value = transaction.get("j-tx-kv");
            transaction.bfReserve("j-tx", 0.01, 100);
            results = transaction.exec();
        }
        assertThat(results).hasSize(5);
        assertThat(results.subList(0, 4)).containsExactly(true, false, "OK", "v");
        assertThat(results.get(4)).isInstanceOf(JedisDataException.class);
        assertThat(added.get()).isTrue();
        assertThat(value.get()).isEqualTo("v");

        try (AbstractTransaction transaction = jedis.multi()) {
            transaction.bfAdd("j-tx", "two");
            assertThat(transaction.discard()).isEqualTo("OK");
        }
        assertThat(jedis.bfExists("j-tx", "two")).isFalse();
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void clientsThatLookForTheBloomModuleFindIt() {
        List<?> modules = (List<?>) send(Protocol.Command.MODULE, "LIST");
        assertThat(modules).hasSize(1);
        Map<String, Object> bf = new HashMap<>();
        for (Object field : (List<?>) modules.get(0)) { // RESP3: a map, which Jedis reads as key-value pairs
            KeyValue<?, ?> pair = (KeyValue<?, ?>) field;
            bf.put(SafeEncoder.encode((byte[]) pair.getKey()), pair.getValue());
        }
        assertThat(SafeEncoder.encode((byte[]) bf.get("name"))).isEqualTo("bf");
        assertThat(bf.get("ver")).isEqualTo(20612L);

        assertThat(jedis.info("server")).contains("arch_bits:64");
        assertThat(jedis.info("cluster")).contains("cluster_enabled:0");
        assertThat(jedis.info("modules")).contains("module:name=bf,ver=20612,");
        assertThat(jedis.info()).contains("# Modules", "# Cluster");

        assertThatThrownBy(() -> send(Protocol.Command.MODULE, "LOAD", "/tmp/redisbloom.so"))
                .isInstanceOf(JedisDataException.class)
                .hasMessage("ERR Error loading the extension. Please check the server logs.");
        assertThatThrownBy(() -> send(Protocol.Command.MODULE, "UNLOAD", "bf"))
                .isInstanceOf(JedisDataException.class)
                .hasMessage("ERR Error unloading module: no such module with that name");
        assertThatThrownBy(() -> send(Protocol.Command.MODULE, "NOPE"))
                .isInstanceOf(JedisDataException.class)
                .hasMessage("ERR unknown subcommand 'NOPE'. Try MODULE HELP.");
    }
}
