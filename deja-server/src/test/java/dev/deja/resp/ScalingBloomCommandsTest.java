package dev.deja.resp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.testing.TestServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.bloom.BFInsertParams;
import redis.clients.jedis.bloom.BFReserveParams;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * Scaling bloom filters as RedisBloom users make them: {@code BF.RESERVE} grows by sub-filters (expansion 2 unless
 * given), {@code NONSCALING} refuses new items once full, {@code BF.INFO} reports the sub-filters, and a restart, a
 * {@code BF.SCANDUMP}/{@code BF.LOADCHUNK} copy and the memory limit all see every sub-filter.
 */
class ScalingBloomCommandsTest {

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @TempDir
    Path dataDir;

    @Test
    void aReservedFilterGrowsBySubFiltersAndInfoReportsThemAsRedisBloomDoes() throws Exception {
        try (TestServer server = TestServer.start(dataDir);
                RedisClient jedis = RedisClient.create("127.0.0.1", server.respPort())) {
            assertThat(jedis.bfReserve("grows", 0.01, 100)).isEqualTo("OK");
            assertThat(jedis.bfInfo("grows"))
                    .containsEntry("Capacity", 100L)
                    .containsEntry("Number of filters", 1L)
                    .containsEntry("Expansion rate", 2L);
            long added = addAll(jedis, "grows", 1000);
            // 100 + 200 + 400 = 700 items fill three sub-filters; the fourth (800) takes the rest
            assertThat(jedis.bfInfo("grows"))
                    .containsEntry("Capacity", 1500L)
                    .containsEntry("Number of filters", 4L)
                    .containsEntry("Number of items inserted", added)
                    .containsEntry("Expansion rate", 2L);
            assertThat(jedis.bfCard("grows")).isEqualTo(added);
            assertThat(added).isGreaterThan(990); // the rest were false positives, answered 0
            assertAllHeld(jedis, "grows", 1000);

            assertThat(jedis.bfReserve(
                            "by4", 0.01, 100, BFReserveParams.reserveParams().expansion(4)))
                    .isEqualTo("OK");
            addAll(jedis, "by4", 600);
            assertThat(jedis.bfInfo("by4"))
                    .containsEntry("Capacity", 2100L) // 100 + 400 + 1,600
                    .containsEntry("Number of filters", 3L)
                    .containsEntry("Expansion rate", 4L);

            assertThat(jedis.bfInsert("ins", new BFInsertParams().expansion(3), "a", "b"))
                    .containsExactly(true, true);
            assertThat(jedis.bfInfo("ins"))
                    .containsEntry("Capacity", 100L) // RedisBloom's default capacity for BF.INSERT
                    .containsEntry("Expansion rate", 3L);
        }
    }

    @Test
    void aNonScalingFilterRefusesNewItemsOnceFullWithRedisBloomsError() throws Exception {
        try (TestServer server = TestServer.start(dataDir);
                RedisClient jedis = RedisClient.create("127.0.0.1", server.respPort())) {
            jedis.bfReserve("fixed", 0.01, 10, BFReserveParams.reserveParams().nonScaling());
            List<String> held = new ArrayList<>();
            JedisDataException full = null;
            for (int i = 0; i < 50 && full == null; i++) {
                try {
                    jedis.bfAdd("fixed", "item-" + i);
                    held.add("item-" + i);
                } catch (JedisDataException e) {
                    full = e;
                }
            }
            assertThat(full).isNotNull().hasMessage("ERR non scaling filter is full");
            assertThat(held.size()).isBetween(10, 12); // a false positive among them needs one more
            assertThat(jedis.bfAdd("fixed", held.get(0))).isFalse();
            assertThat(jedis.bfInfo("fixed"))
                    .containsEntry("Number of filters", 1L)
                    .containsEntry("Capacity", 10L)
                    .containsEntry("Expansion rate", null);
            // the reply ends at the first refused item, with the error in its place, as RedisBloom's does
            assertThat(server.respExchange(
                            "BF.MADD fixed " + held.get(1) + " never-added " + held.get(2) + "\r\n", "full\r\n"))
                    .isEqualTo("*2\r\n:0\r\n-ERR non scaling filter is full\r\n");
            assertThat(jedis.bfExists("fixed", "never-added")).isFalse();
            // over HTTP a key the filter could not take is answered RETRY, by /add too: it was not recorded
            for (String path : List.of("/checkthenadd", "/add")) {
                HttpResponse<String> response = HTTP.send(
                        HttpRequest.newBuilder(URI.create(
                                        "http://127.0.0.1:" + server.httpPort() + path + "?ns=fixed&e=never-added"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(response.body()).as(path).isEqualTo("RETRY\n");
            }
            assertThat(jedis.bfExists("fixed", "never-added")).isFalse();
            assertThat(server.respExchange("BF.INSERT made NONSCALING CAPACITY 2 ITEMS a b c d\r\n", "full\r\n"))
                    .startsWith("*3\r\n")
                    .endsWith("-ERR non scaling filter is full\r\n");
        }
    }

    @Test
    void everySubFilterSurvivesARestartAndADumpLoadedIntoAnotherKey() throws Exception {
        try (TestServer server = TestServer.start(dataDir);
                RedisClient jedis = RedisClient.create("127.0.0.1", server.respPort())) {
            jedis.bfReserve("kept", 0.001, 200, BFReserveParams.reserveParams().expansion(3));
            addAll(jedis, "kept", 3000);
        } // a clean stop writes the final snapshot
        try (TestServer server = TestServer.start(dataDir);
                RedisClient jedis = RedisClient.create("127.0.0.1", server.respPort())) {
            Map<String, Object> info = jedis.bfInfo("kept");
            assertThat(info)
                    .containsEntry("Number of filters", 4L) // 200 + 600 + 1,800 < 3,000 <= ... + 5,400
                    .containsEntry("Capacity", 8000L)
                    .containsEntry("Expansion rate", 3L);
            assertAllHeld(jedis, "kept", 3000);
            long iterator = 0;
            List<Map.Entry<Long, byte[]>> chunks = new ArrayList<>();
            while (true) {
                Map.Entry<Long, byte[]> chunk = jedis.bfScanDump("kept", iterator);
                if (chunk.getKey() == 0) {
                    break;
                }
                chunks.add(chunk);
                iterator = chunk.getKey();
            }
            for (Map.Entry<Long, byte[]> chunk : chunks) {
                assertThat(jedis.bfLoadChunk("copy", chunk.getKey(), chunk.getValue()))
                        .isEqualTo("OK");
            }
            assertThat(jedis.bfInfo("copy")).isEqualTo(jedis.bfInfo("kept"));
            assertAllHeld(jedis, "copy", 3000);
            addAll(jedis, "copy", 10_000); // keeps growing from where the original was
            assertThat(jedis.bfInfo("copy")).containsEntry("Number of filters", 5L);
        }
    }

    @Test
    void aFilterThatWouldGrowPastTheMemoryLimitRefusesTheItemAndTheServerKeepsServing() throws Exception {
        try (TestServer server = TestServer.start(dataDir, b -> b.memoryLimit(8L << 20));
                RedisClient jedis = RedisClient.create("127.0.0.1", server.respPort())) {
            // sub-filters of 1,000, 16,000 and 256,000 items fit; the fourth, 4,096,000 items, needs about 8 MiB
            long filters = growUntilRefused(jedis, "greedy");
            assertThat(filters).isEqualTo(3);
            assertThatThrownBy(() -> jedis.bfAdd("greedy", "one-more"))
                    .isInstanceOf(JedisDataException.class)
                    .hasMessageContaining("cannot grow")
                    .hasMessageContaining("namespace memory limit");
            assertThat(jedis.bfExists("greedy", "one-more")).isFalse();
            assertThat(jedis.bfAdd("default", "still-served")).isTrue();
            // dropping the filter gives its sub-filters' memory back: a new one grows as far again
            assertThat(jedis.del("greedy")).isEqualTo(1);
            assertThat(growUntilRefused(jedis, "greedy2")).isEqualTo(filters);
        }
    }

    /**
     * Reserves a filter of 1,000 items growing 16-fold and adds items until it refuses one: its sub-filters then.
     * Items go in batches while the filter's sub-filters have room for a whole batch, then one by one, so the refusal
     * is the error of one {@code BF.ADD}.
     */
    private static long growUntilRefused(RedisClient jedis, String key) {
        jedis.bfReserve(key, 0.01, 1000, BFReserveParams.reserveParams().expansion(16));
        int next = 0;
        while (next < 2_000_000) {
            Map<String, Object> info = jedis.bfInfo(key);
            long room = (Long) info.get("Capacity") - (Long) info.get("Number of items inserted");
            if (room > 1000) {
                addRange(jedis, key, next, 1000);
                next += 1000;
                continue;
            }
            try {
                jedis.bfAdd(key, "item-" + next++);
            } catch (JedisDataException e) {
                assertThat(e).hasMessageContaining("cannot grow").hasMessageContaining("namespace memory limit");
                break;
            }
        }
        return (Long) jedis.bfInfo(key).get("Number of filters");
    }

    /** Adds item-0 .. item-(n-1) in batches; returns how many were answered new. */
    private static long addAll(RedisClient jedis, String key, int n) {
        return addRange(jedis, key, 0, n);
    }

    private static long addRange(RedisClient jedis, String key, int from, int n) {
        long added = 0;
        for (int start = from; start < from + n; start += 500) {
            String[] items = new String[Math.min(500, from + n - start)];
            for (int i = 0; i < items.length; i++) {
                items[i] = "item-" + (start + i);
            }
            for (boolean b : jedis.bfMAdd(key, items)) {
                added += b ? 1 : 0;
            }
        }
        return added;
    }

    private static void assertAllHeld(RedisClient jedis, String key, int n) {
        for (int start = 0; start < n; start += 500) {
            String[] items = new String[Math.min(500, n - start)];
            for (int i = 0; i < items.length; i++) {
                items[i] = "item-" + (start + i);
            }
            assertThat(jedis.bfMExists(key, items)).as(key).doesNotContain(false);
        }
    }

    @Test
    void creationOptionsAreCheckedAsRedisBloomChecksThem() throws Exception {
        try (TestServer server = TestServer.start(dataDir);
                RedisClient jedis = RedisClient.create("127.0.0.1", server.respPort())) {
            assertThatThrownBy(() -> jedis.bfReserve(
                            "x", 0.01, 10, BFReserveParams.reserveParams().expansion(0)))
                    .hasMessage("ERR bad expansion");
            assertThatThrownBy(() -> jedis.bfInsert("x", new BFInsertParams().expansion(0), "a"))
                    .hasMessage("Bad argument received");
            assertThat(server.respExchange("DJ.CREATE djs bloom capacity 100 fpp 0.01 expansion 2\r\n", "\r\n"))
                    .isEqualTo("+OK\r\n");
            assertThat(jedis.bfInfo("djs")).containsEntry("Expansion rate", 2L);
            assertThat(server.respExchange("DJ.CREATE djx bloom capacity 100 expansion 2 window 1h\r\n", "\r\n"))
                    .startsWith("-ERR");
        }
    }
}
