package dev.deja.resp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.testing.TestServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.bloom.CFInsertParams;
import redis.clients.jedis.bloom.CFReserveParams;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * RedisBloom's {@code CF.*} commands as Jedis calls them (RESP2), as they are on the wire under RESP2 and RESP3 (raw
 * exchanges, so the exact reply types are compared), as redis-cli shows them, with every error path, and their
 * content kept across a restart.
 */
class CuckooCommandsTest {

    @TempDir
    static Path dataDir;

    private static TestServer server;
    private static RedisClient jedis;

    @BeforeAll
    static void start() throws Exception {
        server = TestServer.start(dataDir);
        jedis = RedisClient.create("127.0.0.1", server.respPort());
    }

    @AfterAll
    static void stop() {
        jedis.close();
        server.close();
    }

    /** The command in RESP's array form. */
    private static String command(String... args) {
        StringBuilder b = new StringBuilder("*").append(args.length).append("\r\n");
        for (String arg : args) {
            b.append('$')
                    .append(arg.getBytes(StandardCharsets.UTF_8).length)
                    .append("\r\n")
                    .append(arg)
                    .append("\r\n");
        }
        return b.toString();
    }

    /** The replies to the commands under RESP2. */
    private static String resp2(String expectedEnd, String[]... commands) throws IOException {
        StringBuilder raw = new StringBuilder();
        for (String[] c : commands) {
            raw.append(command(c));
        }
        return server.respExchange(raw.toString(), expectedEnd);
    }

    /** The replies to the commands under RESP3, after HELLO's and a PING's (cut off). */
    private static String resp3(String expectedEnd, String[]... commands) throws IOException {
        StringBuilder raw = new StringBuilder(command("HELLO", "3")).append(command("PING"));
        for (String[] c : commands) {
            raw.append(command(c));
        }
        String all = server.respExchange(raw.toString(), expectedEnd);
        return all.substring(all.indexOf("+PONG\r\n") + "+PONG\r\n".length());
    }

    private static String[] c(String... args) {
        return args;
    }

    @Test
    void everyCommandAsJedisCallsIt() {
        assertThat(jedis.cfReserve(
                        "j-cf",
                        1000,
                        CFReserveParams.reserveParams()
                                .bucketSize(4)
                                .maxIterations(30)
                                .expansion(2)))
                .isEqualTo("OK");
        assertThat(jedis.cfAdd("j-cf", "a")).isTrue();
        assertThat(jedis.cfAdd("j-cf", "a")).isTrue(); // a second copy
        assertThat(jedis.cfAddNx("j-cf", "a")).isFalse();
        assertThat(jedis.cfAddNx("j-cf", "b")).isTrue();
        assertThat(jedis.cfInsert("j-cf", "c", "c")).containsExactly(true, true);
        assertThat(jedis.cfInsertNx("j-cf", "c", "d")).containsExactly(false, true);
        assertThat(jedis.cfInsert("j-new", CFInsertParams.insertParams().capacity(5000), "x"))
                .containsExactly(true);
        assertThat(jedis.cfExists("j-cf", "a")).isTrue();
        assertThat(jedis.cfExists("j-cf", "zz")).isFalse();
        assertThat(jedis.cfExists("j-missing", "a")).isFalse();
        assertThat(jedis.cfMExists("j-cf", "a", "zz", "d")).containsExactly(true, false, true);
        assertThat(jedis.cfCount("j-cf", "a")).isEqualTo(2);
        assertThat(jedis.cfCount("j-cf", "zz")).isZero();
        assertThat(jedis.cfDel("j-cf", "a")).isTrue();
        assertThat(jedis.cfCount("j-cf", "a")).isEqualTo(1);
        assertThat(jedis.cfDel("j-cf", "zz")).isFalse();

        Map<String, Object> info = jedis.cfInfo("j-cf");
        assertThat(info)
                .containsEntry("Size", 2L * 256 * 4)
                .containsEntry("Number of buckets", 256L)
                .containsEntry("Number of filters", 1L)
                .containsEntry("Number of items inserted", 5L) // copies held: added less deleted, as RedisBloom counts
                .containsEntry("Number of items deleted", 1L)
                .containsEntry("Bucket size", 4L)
                .containsEntry("Expansion rate", 2L)
                .containsEntry("Max iterations", 30L);
        assertThat(jedis.cfInfo("j-new")).containsEntry("Number of buckets", 4096L); // 5000 / 2 rounded up to 2^n
    }

    @Test
    void aDumpLoadedUnderAnotherNameAnswersTheSame() {
        for (int i = 0; i < 500; i++) {
            jedis.cfAdd("dump-src", "k" + i);
        }
        jedis.cfAdd("dump-src", "k1");
        List<Map.Entry<Long, byte[]>> chunks = new ArrayList<>();
        long iterator = 0;
        do {
            Map.Entry<Long, byte[]> chunk = jedis.cfScanDump("dump-src", iterator);
            iterator = chunk.getKey();
            if (iterator != 0) {
                chunks.add(chunk);
            } else {
                assertThat(chunk.getValue()).isNull(); // RedisBloom ends a cuckoo dump with a null chunk
            }
        } while (iterator != 0);
        for (Map.Entry<Long, byte[]> chunk : chunks) {
            assertThat(jedis.cfLoadChunk("dump-dst", chunk.getKey(), chunk.getValue()))
                    .isEqualTo("OK");
        }
        assertThat(jedis.cfCount("dump-dst", "k1")).isEqualTo(2);
        assertThat(jedis.cfMExists("dump-dst", "k0", "k499", "nope")).containsExactly(true, true, false);
        assertThat(jedis.cfInfo("dump-dst")).containsEntry("Number of items inserted", 501L);

        jedis.cfReserve("dump-empty", 100);
        Map.Entry<Long, byte[]> empty = jedis.cfScanDump("dump-empty", 0);
        assertThat(empty.getKey()).isZero();
        assertThat(empty.getValue()).isNull();
    }

    @Test
    void repliesOnTheWireUnderResp2AndResp3() throws IOException {
        resp2("+OK\r\n", c("CF.RESERVE", "w", "100"));
        String[][] calls = {
            c("CF.ADD", "w", "a"),
            c("CF.ADDNX", "w", "a"),
            c("CF.INSERT", "w", "ITEMS", "a", "b"),
            c("CF.INSERTNX", "w", "ITEMS", "a", "c"),
            c("CF.EXISTS", "w", "a"),
            c("CF.MEXISTS", "w", "a", "zz"),
            c("CF.COUNT", "w", "a"),
            c("CF.DEL", "w", "zz"),
        };
        assertThat(resp2(":0\r\n", calls))
                .isEqualTo(":1\r\n:0\r\n*2\r\n:1\r\n:1\r\n*2\r\n:0\r\n:1\r\n:1\r\n*2\r\n:1\r\n:0\r\n:2\r\n:0\r\n");
        assertThat(resp3("#f\r\n", calls))
                .isEqualTo("#t\r\n#f\r\n*2\r\n:1\r\n:1\r\n*2\r\n:0\r\n:0\r\n#t\r\n*2\r\n#t\r\n#f\r\n:4\r\n#f\r\n");
        assertThat(resp2(":100000\r\n", c("CF.INFO", "w")))
                .startsWith("*16\r\n$4\r\nSize\r\n:256\r\n$17\r\nNumber of buckets\r\n:64\r\n")
                .endsWith("$14\r\nMax iterations\r\n:20\r\n");
        assertThat(resp3(":20\r\n", c("CF.INFO", "w")))
                .startsWith("%8\r\n$4\r\nSize\r\n:256\r\n")
                .endsWith("$14\r\nMax iterations\r\n:20\r\n");
        assertThat(resp3("_\r\n", c("CF.RESERVE", "w-empty", "100"), c("CF.SCANDUMP", "w-empty", "0")))
                .isEqualTo("+OK\r\n*2\r\n:0\r\n_\r\n");
    }

    @Test
    void errorsAreRedisBloomsWords() throws IOException {
        resp2("+OK\r\n", c("CF.RESERVE", "e", "4", "BUCKETSIZE", "2", "EXPANSION", "0"));
        resp2("+OK\r\n", c("BF.RESERVE", "e-bloom", "0.01", "100"));
        String[][][] cases = {
            {c("CF.RESERVE", "e2"), c("-ERR wrong number of arguments for 'cf.reserve' command")},
            {c("CF.RESERVE", "e2", "10", "BUCKETSIZE"), c("-ERR wrong number of arguments for 'cf.reserve' command")},
            {c("CF.RESERVE", "e2", "x"), c("-Bad capacity")},
            {c("CF.RESERVE", "e2", "10", "MAXITERATIONS", "x"), c("-Couldn't parse MAXITERATIONS")},
            {
                c("CF.RESERVE", "e2", "10", "MAXITERATIONS", "0"),
                c("-MAXITERATIONS parameter needs to be a positive integer")
            },
            {c("CF.RESERVE", "e2", "10", "BUCKETSIZE", "x"), c("-Couldn't parse BUCKETSIZE")},
            {c("CF.RESERVE", "e2", "10", "BUCKETSIZE", "0"), c("-BUCKETSIZE parameter needs to be a positive integer")},
            {c("CF.RESERVE", "e2", "10", "EXPANSION", "x"), c("-Couldn't parse EXPANSION")},
            {
                c("CF.RESERVE", "e2", "10", "EXPANSION", "-1"),
                c("-EXPANSION parameter needs to be a non-negative integer")
            },
            {c("CF.RESERVE", "e2", "3"), c("-Capacity must be at least (BucketSize * 2)")},
            {c("CF.RESERVE", "e2", "1000", "BUCKETSIZE", "256"), c("-ERR BUCKETSIZE must be at most 255 (got 256)")},
            {c("CF.RESERVE", "e", "100"), c("-ERR item exists")},
            {c("CF.RESERVE", "e-bloom", "100"), c("-" + RespError.WRONGTYPE)},
            {c("CF.ADD", "e-bloom", "a"), c("-" + RespError.WRONGTYPE)},
            {c("CF.ADD", "e", ""), c("-ERR key must be a non-empty string")},
            {c("CF.INSERT", "e", "ITEMS"), c("-ERR wrong number of arguments for 'cf.insert' command")},
            {c("CF.INSERT", "e", "CAPACITY"), c("-ERR wrong number of arguments for 'cf.insert' command")},
            {c("CF.INSERT", "e", "NOCREATE", "ITEMS"), c("-ERR wrong number of arguments for 'cf.insert' command")},
            {c("CF.INSERT", "e", "NOCREATE", "x"), c("-Unknown argument received")},
            {c("CF.INSERT", "e", "CAPACITY", "x", "ITEMS", "a"), c("-Bad capacity")},
            {c("CF.INSERT", "e", "CAPACITY", "3", "ITEMS", "a"), c("-Capacity must be at least (BucketSize * 2)")},
            {c("CF.INSERT", "e", "BOGUS", "ITEMS", "a"), c("-Unknown argument received")},
            {c("CF.INSERT", "e-none", "NOCREATE", "ITEMS", "a"), c("-ERR not found")},
            {c("CF.INSERTNX", "e-bloom", "ITEMS", "a"), c("-" + RespError.WRONGTYPE)},
            {c("CF.EXISTS", "e-bloom", "a"), c(":0")},
            {c("CF.DEL", "e-none", "a"), c("-Not found")},
            {c("CF.DEL", "e-bloom", "a"), c("-Not found")},
            {c("CF.INFO", "e-none"), c("-ERR not found")},
            {c("CF.INFO", "e-bloom"), c("-" + RespError.WRONGTYPE)},
            {c("CF.INFO", "e", "x"), c("-ERR wrong number of arguments for 'cf.info' command")},
            {c("CF.SCANDUMP", "e", "x"), c("-Invalid position")},
            {c("CF.SCANDUMP", "e-none", "0"), c("-ERR not found")},
            {c("CF.LOADCHUNK", "e", "0", "x"), c("-Invalid position")},
            {c("CF.LOADCHUNK", "e-bloom", "1", "x"), c("-" + RespError.WRONGTYPE)},
            {c("CF.COUNT", "e"), c("-ERR wrong number of arguments for 'cf.count' command")},
        };
        for (String[][] kase : cases) {
            assertThat(resp2("\r\n", kase[0])).as(String.join(" ", kase[0])).isEqualTo(kase[1][0] + "\r\n");
        }
        // a filter that may not grow: the copies of one key fill its buckets (here one bucket of two slots)
        assertThat(resp2(":-1\r\n:-1\r\n:-1\r\n", c("CF.INSERT", "e", "ITEMS", "1", "1", "1", "1", "1")))
                .isEqualTo("*5\r\n:1\r\n:1\r\n:-1\r\n:-1\r\n:-1\r\n");
        assertThat(resp2("\r\n", c("CF.ADD", "e", "1"))).isEqualTo("-Filter is full\r\n");
        assertThat(resp3("\r\n", c("CF.ADD", "e", "1"))).isEqualTo("-Filter is full\r\n");
    }

    @Test
    void aBadChunkIsRefusedAndChangesNothing() {
        jedis.cfAdd("bad-src", "x");
        Map.Entry<Long, byte[]> first = jedis.cfScanDump("bad-src", 0);
        byte[] damaged = first.getValue().clone();
        damaged[damaged.length - 3] ^= 1; // a bit of the table checksum
        assertThatThrownBy(() -> jedis.cfLoadChunk("bad-dst", first.getKey(), damaged))
                .isInstanceOf(JedisDataException.class)
                .hasMessageContaining("ERR received bad data")
                .hasMessageContaining("checksum mismatch");
        assertThat(jedis.exists("bad-dst")).isFalse();
        assertThat(jedis.cfExists("bad-dst", "x")).isFalse();
    }

    @Test
    void redisCliSeesTheRepliesAsRedisBloomGivesThem() throws Exception {
        assertThat(redisCli("CF.ADD", "cli", "one")).isEqualTo("(integer) 1");
        assertThat(redisCli("CF.INSERT", "cli", "ITEMS", "one", "two")).isEqualTo("1) (integer) 1\n2) (integer) 1");
        assertThat(redisCli("CF.COUNT", "cli", "one")).isEqualTo("(integer) 2");
        assertThat(redisCli("-3", "CF.EXISTS", "cli", "two")).isEqualTo("(true)");
        assertThat(redisCli("-3", "CF.DEL", "cli", "none")).isEqualTo("(false)");
        assertThat(redisCli("CF.DEL", "cli-none", "x")).isEqualTo("(error) Not found");
    }

    private static String redisCli(String... args) throws Exception {
        List<String> command =
                new ArrayList<>(List.of("redis-cli", "--no-raw", "-p", Integer.toString(server.respPort())));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        assertThat(process.waitFor(10, TimeUnit.SECONDS)).isTrue();
        return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    }
}
