package dev.deja.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.testing.TestServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.RedisClient;

/**
 * {@code BF.CARD} and {@code BF.INFO}'s "Number of items inserted" count the adds that answered 1, as RedisBloom's do
 * (not the fill-based estimate, which stays in {@code DJ.INFO} and {@code /namespaces}); the count survives a restart
 * and travels with {@code BF.SCANDUMP}/{@code BF.LOADCHUNK}.
 */
class BloomCountTest {

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @TempDir
    Path dataDir;

    @Test
    void theCountIsOfAddsThatAnsweredOne() throws Exception {
        try (TestServer server = TestServer.start(dataDir);
                RedisClient redis = RedisClient.create("127.0.0.1", server.respPort())) {
            redis.bfReserve("orders", 0.001, 100_000);
            int added = 0;
            for (int i = 0; i < 20_000; i++) {
                if (redis.bfAdd("orders", "order-" + (i % 15_000))) {
                    added++;
                }
            }
            assertThat(added).isBetween(14_900, 15_000); // at fpp 0.001 a few new ones may answer 0
            assertThat(redis.bfCard("orders")).isEqualTo(added);
            Map<String, Object> info = redis.bfInfo("orders");
            assertThat(info).containsEntry("Number of items inserted", (long) added);
            assertThat(redis.bfMAdd("orders", "x", "x", "y")).containsExactly(true, false, true);
            added += 2;
            assertThat(redis.bfCard("orders")).isEqualTo(added);
            String namespace = HTTP.send(
                            HttpRequest.newBuilder(
                                            URI.create("http://127.0.0.1:" + server.httpPort() + "/namespaces/orders"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString())
                    .body();
            assertThat(namespace)
                    .as("the fill-based estimate stays in the namespace's info")
                    .contains("\"count\":");

            long cursor = 0;
            while (true) {
                Map.Entry<Long, byte[]> chunk = redis.bfScanDump("orders", cursor);
                cursor = chunk.getKey();
                if (cursor == 0) {
                    break;
                }
                redis.bfLoadChunk("copy", cursor, chunk.getValue());
            }
            assertThat(redis.bfCard("copy")).as("carried by the dump").isEqualTo(added);
        }
        try (TestServer server = TestServer.start(dataDir);
                RedisClient redis = RedisClient.create("127.0.0.1", server.respPort())) {
            long expected = redis.bfCard("copy");
            assertThat(redis.bfCard("orders")).as("after a restart").isEqualTo(expected);
            assertThat(redis.bfAdd("orders", "z")).isTrue();
            assertThat(redis.bfCard("orders")).isEqualTo(expected + 1);
        }
    }
}
