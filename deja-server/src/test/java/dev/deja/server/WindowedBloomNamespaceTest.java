package dev.deja.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.testing.TestServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.commands.ProtocolCommand;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.util.SafeEncoder;

/**
 * Bloom namespaces with a window ({@code DJ.CREATE ns bloom capacity N fpp P window 1h}): a key ages out with its
 * generation, at least the window after it was recorded; over RESP's BF.* and DJ.* and over HTTP; kept across a
 * restart; refused where a window makes no sense.
 */
class WindowedBloomNamespaceTest {

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @TempDir
    Path dataDir;

    private enum Dj implements ProtocolCommand {
        CREATE,
        MERGE;

        @Override
        public byte[] getRaw() {
            return SafeEncoder.encode("DJ." + name());
        }
    }

    private static Object send(RedisClient redis, ProtocolCommand command, String... args) {
        return redis.executeCommand(new CommandArguments(command).addObjects((Object[]) args));
    }

    private static String http(TestServer server, String path) throws Exception {
        return HTTP.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.httpPort() + path))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
    }

    @Test
    void keysAgeOutWithTheirGenerationAndTheNamespaceSurvivesARestart() throws Exception {
        try (TestServer server = TestServer.start(dataDir);
                RedisClient redis = RedisClient.create("127.0.0.1", server.respPort())) {
            send(redis, Dj.CREATE, "daily", "bloom", "capacity", "10000", "fpp", "0.001", "window", "1h");
            send(
                    redis,
                    Dj.CREATE,
                    "brief",
                    "bloom",
                    "capacity",
                    "10000",
                    "fpp",
                    "0.001",
                    "window",
                    "1s",
                    "generations",
                    "2");
            assertThat(redis.bfAdd("daily", "order-1")).isTrue();
            assertThat(redis.bfAdd("daily", "order-1")).isFalse();
            assertThat(redis.bfExists("daily", "order-1")).isTrue();
            assertThat(http(server, "/checkthenadd?ns=daily&e=order-2")).isEqualTo("MISSING\n");
            assertThat(http(server, "/check?ns=daily&e=order-2")).isEqualTo("PRESENT\n");
            assertThat(http(server, "/namespaces/daily"))
                    .contains("\"window\":\"1h\"")
                    .contains("\"generations\":\"4\"")
                    .contains("\"capacity\":\"10000\"");

            assertThat(redis.bfAdd("brief", "k")).isTrue();
            assertThat(redis.bfExists("brief", "k")).as("held at once").isTrue();
            // two generations of a one-second window: a key is dropped within two spans of one second
            Thread.sleep(2_100);
            assertThat(redis.bfExists("brief", "k")).as("aged out").isFalse();
            assertThat(redis.bfAdd("brief", "k")).as("new again").isTrue();
        }
        try (TestServer server = TestServer.start(dataDir);
                RedisClient redis = RedisClient.create("127.0.0.1", server.respPort())) {
            assertThat(redis.bfExists("daily", "order-1")).as("after a restart").isTrue();
            assertThat(redis.bfExists("daily", "order-2")).isTrue();
            assertThat(redis.bfAdd("daily", "order-3")).isTrue();
        }
    }

    @Test
    void aWindowIsRefusedWhereItMakesNoSense() throws Exception {
        try (TestServer server = TestServer.start(dataDir);
                RedisClient redis = RedisClient.create("127.0.0.1", server.respPort())) {
            assertThatThrownBy(() -> send(redis, Dj.CREATE, "w", "bloom", "bits", "8192", "window", "1h"))
                    .isInstanceOf(JedisDataException.class)
                    .hasMessageContaining("a bloom namespace with a window takes capacity, fpp, window and generations"
                            + " (got 'bits')");
            assertThatThrownBy(() -> send(redis, Dj.CREATE, "w", "bloom", "window", "soon"))
                    .hasMessageContaining("window: ");
            assertThatThrownBy(() -> send(redis, Dj.CREATE, "w", "bloom", "window", "1h", "generations", "1"))
                    .hasMessageContaining("generations");
            assertThatThrownBy(() -> send(redis, Dj.CREATE, "w", "bloom", "window", "2ms", "generations", "8"))
                    .hasMessageContaining("window must be at least 7 ms for 8 generations");
            send(redis, Dj.CREATE, "a", "bloom", "capacity", "1000", "window", "1h");
            send(redis, Dj.CREATE, "b", "bloom", "capacity", "1000", "window", "1h");
            assertThatThrownBy(() -> send(redis, Dj.MERGE, "a", "b"))
                    .hasMessageContaining("bloom namespaces with a window cannot be merged");
        }
    }
}
