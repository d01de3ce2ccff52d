package dev.deja.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.testing.TestServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.commands.ProtocolCommand;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.util.SafeEncoder;

/**
 * A namespace whose snapshots are all damaged (and so cannot be rebuilt whole) is not served, as Redis refuses a
 * damaged file, while the server serves every other namespace; it is reported by every command on it, by
 * {@code /health} and by a metric, until an operator resets it from what is readable or empty, or drops it.
 */
class DamagedNamespaceTest {

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @TempDir
    Path dataDir;

    private enum Dj implements ProtocolCommand {
        RESET,
        DROP;

        @Override
        public byte[] getRaw() {
            return SafeEncoder.encode("DJ." + name());
        }
    }

    private static Object send(RedisClient redis, ProtocolCommand command, String... args) {
        return redis.executeCommand(new CommandArguments(command).addObjects((Object[]) args));
    }

    /** Writes keys 0 to 99 to "bad" and to "good", stops the server (which snapshots both), damages bad's snapshots. */
    private void writeThenDamage() throws Exception {
        try (TestServer server = TestServer.start(dataDir);
                RedisClient redis = RedisClient.create("127.0.0.1", server.respPort())) {
            for (int i = 0; i < 100; i++) {
                redis.bfAdd("bad", "k" + i);
                redis.bfAdd("good", "k" + i);
            }
        }
        List<Path> snapshots = snapshots(dataDir.resolve("bad"));
        assertThat(snapshots).isNotEmpty();
        for (Path snapshot : snapshots) {
            byte[] bytes = Files.readAllBytes(snapshot);
            bytes[bytes.length / 2] ^= 0x40;
            Files.write(snapshot, bytes);
        }
    }

    private static List<Path> snapshots(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().startsWith("snapshot-"))
                    .toList();
        }
    }

    private static HttpResponse<String> http(TestServer server, String method, String path) throws Exception {
        return HTTP.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.httpPort() + path))
                        .method(method, HttpRequest.BodyPublishers.noBody())
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aDamagedNamespaceIsNotServedButReportedUntilResetFromWhatIsReadable() throws Exception {
        writeThenDamage();
        String snapshotName =
                snapshots(dataDir.resolve("bad")).getFirst().getFileName().toString();
        try (TestServer server = TestServer.start(dataDir);
                RedisClient redis = RedisClient.create("127.0.0.1", server.respPort())) {
            assertThat(redis.bfExists("good", "k7")).isTrue();
            assertThat(redis.bfAdd("good", "new")).isTrue();
            for (Runnable command : List.<Runnable>of(
                    () -> redis.bfExists("bad", "k7"), () -> redis.bfAdd("bad", "k7"), () -> redis.bfCard("bad"))) {
                assertThatThrownBy(command::run)
                        .isInstanceOf(JedisDataException.class)
                        .hasMessageContaining("namespace 'bad' is not served")
                        .hasMessageContaining(snapshotName)
                        .hasMessageContaining("DJ.RESET bad READABLE");
            }
            HttpResponse<String> health = http(server, "GET", "/health");
            assertThat(health.statusCode()).isEqualTo(200);
            assertThat(health.body()).contains("\"status\":\"DEGRADED\"").contains("\"damagedNamespaces\":[\"bad\"]");
            assertThat(http(server, "GET", "/metrics").body()).contains("deja_namespaces_damaged 1.0");
            assertThat(http(server, "GET", "/namespaces").body())
                    .contains("\"damaged\":[{\"name\":\"bad\",\"reason\":")
                    .contains(snapshotName);
            HttpResponse<String> check = http(server, "GET", "/check?ns=bad&e=k7");
            assertThat(check.statusCode()).isEqualTo(500);
            assertThat(check.body()).contains("namespace 'bad' is not served");

            assertThatThrownBy(() -> send(redis, Dj.RESET, "bad", "LATER"))
                    .hasMessageContaining("DJ.RESET takes READABLE or EMPTY");
            assertThatThrownBy(() -> send(redis, Dj.RESET, "good", "READABLE"))
                    .hasMessageContaining("namespace 'good' is served");
            assertThat(SafeEncoder.encode((byte[]) send(redis, Dj.RESET, "bad", "READABLE")))
                    .isEqualTo("OK");
            // the journal held every add: nothing is lost
            for (int i = 0; i < 100; i++) {
                assertThat(redis.bfExists("bad", "k" + i)).as("k" + i).isTrue();
            }
            assertThat(http(server, "GET", "/health").body()).contains("\"status\":\"UP\"");
            assertThat(http(server, "GET", "/metrics").body()).contains("deja_namespaces_damaged 0.0");
        }
        try (TestServer server = TestServer.start(dataDir);
                RedisClient redis = RedisClient.create("127.0.0.1", server.respPort())) {
            assertThat(redis.bfExists("bad", "k99"))
                    .as("served again after a restart")
                    .isTrue();
        }
    }

    @Test
    void aResetToEmptyKeepsTheFilesAsideAndADropDeletesADamagedNamespace() throws Exception {
        writeThenDamage();
        try (TestServer server = TestServer.start(dataDir);
                RedisClient redis = RedisClient.create("127.0.0.1", server.respPort())) {
            assertThat(http(server, "POST", "/namespaces/bad/reset?from=sometime")
                            .statusCode())
                    .isEqualTo(400);
            HttpResponse<String> reset = http(server, "POST", "/namespaces/bad/reset?from=empty");
            assertThat(reset.statusCode()).as(reset.body()).isEqualTo(200);
            assertThat(redis.bfExists("bad", "k7")).isFalse();
            try (Stream<Path> files = Files.list(dataDir.resolve("bad"))) {
                Path aside = files.filter(f -> f.getFileName().toString().startsWith("set-aside-"))
                        .findFirst()
                        .orElseThrow();
                assertThat(snapshots(aside)).isNotEmpty();
            }
            assertThat(http(server, "POST", "/namespaces/bad/reset?from=empty").statusCode())
                    .as("only a damaged namespace is reset")
                    .isEqualTo(400);
        }
        writeThenDamage();
        try (TestServer server = TestServer.start(dataDir);
                RedisClient redis = RedisClient.create("127.0.0.1", server.respPort())) {
            assertThat(SafeEncoder.encode((byte[]) send(redis, Dj.DROP, "bad"))).isEqualTo("OK");
            assertThat(Files.exists(dataDir.resolve("bad"))).isFalse();
            assertThat(http(server, "GET", "/health").body()).contains("\"status\":\"UP\"");
            assertThat(redis.bfAdd("bad", "k7"))
                    .as("a new namespace of that name")
                    .isTrue();
        }
    }
}
