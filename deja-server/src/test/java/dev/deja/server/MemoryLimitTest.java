package dev.deja.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.deja.testing.RawCommands;
import dev.deja.testing.TestServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The namespace memory limit seen from outside: a namespace too large for it is refused over RESP and HTTP with a
 * message saying what it needs, the server keeps serving, and INFO, /info and /metrics report the limit and what
 * is reserved.
 */
class MemoryLimitTest {

    private static final long LIMIT = 4L << 20;
    private static final long NATIVE_LIMIT = 100L << 20;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @TempDir
    Path dataDir;

    @Test
    void aNamespaceTooLargeForTheLimitIsRefusedAndTheServerKeepsServing() throws Exception {
        try (TestServer server =
                TestServer.start(dataDir, b -> b.memoryLimit(LIMIT).nativeMemoryLimit(NATIVE_LIMIT))) {
            RedisClient client = RedisClient.create(RedisURI.builder()
                    .withHost("127.0.0.1")
                    .withPort(server.respPort())
                    .withTimeout(Duration.ofSeconds(10))
                    .build());
            try (StatefulRedisConnection<String, String> connection = client.connect()) {
                RedisCommands<String, String> redis = connection.sync();
                RawCommands raw = new RawCommands(redis);
                long reservedAtStart = reserved(server); // the default namespace

                // 1e8 keys at 0.1%: about 180 MiB of bits
                assertThatThrownBy(() -> raw.status("BF.RESERVE", "huge", "0.001", "100000000"))
                        .isInstanceOf(RedisCommandExecutionException.class)
                        .hasMessageStartingWith("OOM namespace 'huge' needs ")
                        .hasMessageContaining("of the server's 4.0 MiB namespace memory limit is free");
                assertThat(redis.bfAdd("default", "still-served")).isTrue();
                assertThat(redis.info("memory"))
                        .contains("namespace_memory_limit:" + LIMIT)
                        .contains("namespace_memory_reserved:" + reservedAtStart)
                        .contains("namespace_native_memory_limit:" + NATIVE_LIMIT)
                        .contains("namespace_native_memory_reserved:0");

                // an exact namespace's RocksDB memory: a 128 MiB block cache does not fit in 100 MiB
                assertThatThrownBy(() -> raw.status("DJ.CREATE", "orders", "exact", "blockCache", "128m"))
                        .isInstanceOf(RedisCommandExecutionException.class)
                        .hasMessageStartingWith("OOM namespace 'orders' needs 176.0 MiB of native memory");
                assertThat(raw.status("DJ.CREATE", "orders", "exact", "blockCache", "32m"))
                        .isEqualTo("OK");
                assertThat(redis.info("memory")).contains("namespace_native_memory_reserved:" + (80L << 20));

                HttpResponse<String> refused = send(HttpRequest.newBuilder(uri(server, "/namespaces/huge"))
                        .header("Content-Type", "application/json")
                        .PUT(HttpRequest.BodyPublishers.ofString(
                                "{\"kind\":\"bloom\",\"params\":{\"capacity\":\"100000000\",\"fpp\":\"0.001\"}}")));
                assertThat(refused.statusCode()).isEqualTo(507);
                assertThat(JSON.readTree(refused.body()).get("error").asText()).startsWith("namespace 'huge' needs ");
                assertThat(reserved(server)).isEqualTo(reservedAtStart);

                // 2^20 bits = 128 KiB: fits, and is given back when deleted
                assertThat(raw.status("BF.RESERVE", "small", "0.01", "100000")).isEqualTo("OK");
                long withSmall = reserved(server);
                assertThat(withSmall).isGreaterThan(reservedAtStart).isLessThan(LIMIT);
                assertThat(get(server, "/metrics").body())
                        .contains("deja_namespace_memory_limit_bytes " + (double) LIMIT)
                        .contains("deja_namespace_memory_reserved_bytes " + (double) withSmall);
                assertThat(send(HttpRequest.newBuilder(uri(server, "/namespaces/small"))
                                        .DELETE())
                                .statusCode())
                        .isEqualTo(200);
                assertThat(reserved(server)).isEqualTo(reservedAtStart);
            } finally {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
        }
    }

    private static long reserved(TestServer server) throws Exception {
        JsonNode memory = JSON.readTree(get(server, "/info").body()).get("namespaceMemory");
        assertThat(memory.get("limitBytes").asLong()).isEqualTo(LIMIT);
        return memory.get("reservedBytes").asLong();
    }

    private static HttpResponse<String> get(TestServer server, String path) throws Exception {
        return send(HttpRequest.newBuilder(uri(server, path)).GET());
    }

    private static HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static URI uri(TestServer server, String path) {
        return URI.create("http://127.0.0.1:" + server.httpPort() + path);
    }
}
