package dev.deja.server;

import static dev.deja.testing.SocketReads.readLine;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.testing.RawCommands;
import dev.deja.testing.TestServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Whole-server behaviour: restarts, auto-create off, passwords, connection and idle limits. */
class ServerBehaviourTest {

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @TempDir
    Path dataDir;

    @Test
    void keysAddedBeforeAStopArePresentAfterARestart() throws Exception {
        try (TestServer server = TestServer.start(dataDir)) {
            assertThat(get(server, "/add?e=survivor", null).body()).isEqualTo("ADDED\n");
            assertThat(get(server, "/add?e=other&ns=second", null).body()).isEqualTo("ADDED\n");
        }
        try (TestServer server = TestServer.start(dataDir)) {
            assertThat(get(server, "/check?e=survivor", null).body()).isEqualTo("PRESENT\n");
            assertThat(get(server, "/check?e=other&ns=second", null).body()).isEqualTo("PRESENT\n");
            assertThat(get(server, "/check?e=never", null).body()).isEqualTo("MISSING\n");
        }
    }

    @Test
    void unknownNamespaceWithAutoCreateOffIsAClearError() throws Exception {
        try (TestServer server = TestServer.start(dataDir, b -> b.autoCreate(false))) {
            HttpResponse<String> response = get(server, "/add?e=k&ns=nope", null);
            assertThat(response.statusCode()).isEqualTo(404);
            assertThat(response.body())
                    .contains("namespace 'nope' does not exist (create it first, or start the"
                            + " server with auto-create on)");
            assertThat(get(server, "/check?e=k&ns=nope", null).statusCode()).isEqualTo(404);
            assertThat(get(server, "/add?e=k", null).body())
                    .as("default always exists")
                    .isEqualTo("ADDED\n");
            RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", server.respPort()));
            try (StatefulRedisConnection<String, String> c = client.connect()) {
                assertThatThrownBy(() -> c.sync().bfAdd("nope", "k")).hasMessage("ERR not found");
            } finally {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
        }
    }

    @Test
    void readsAndForgetsNeverCreateANamespace() throws Exception {
        // the default kind is bloom (1 GiB): a mistyped name in a check or forget must not create one
        try (TestServer server = TestServer.start(dataDir, b -> b)) {
            assertThat(get(server, "/forget?e=k&ns=ghost1", null).body()).isEqualTo("MISSING\n");
            assertThat(get(server, "/check?e=k&ns=ghost2", null).body()).isEqualTo("MISSING\n");
            RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", server.respPort()));
            try (StatefulRedisConnection<String, String> c = client.connect()) {
                RawCommands raw = new RawCommands(c.sync());
                assertThat(raw.integer("DJ.FORGET", "ghost3", "k")).isZero();
                assertThat(raw.list("DJ.MFORGET", "ghost4", "k", "l")).containsExactly(0L, 0L);
                assertThat(raw.integer("DJ.CHECK", "ghost5", "k")).isZero();
                assertThat(c.sync().bfExists("ghost6", "k")).isFalse();
                assertThat(raw.list("DJ.LIST")).containsExactly("default");
            } finally {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
            assertThat(get(server, "/namespaces/ghost1", null).statusCode()).isEqualTo(404);
        }
        try (TestServer server = TestServer.start(dataDir, b -> b.autoCreate(false))) {
            assertThat(get(server, "/forget?e=k&ns=ghost1", null).statusCode())
                    .as("auto-create off")
                    .isEqualTo(404);
        }
    }

    @Test
    void theDefaultNamespaceCannotBeDeletedOnlyCleared() throws Exception {
        String refusal = "namespace 'default' cannot be deleted: it always exists (requests naming no namespace use"
                + " it); clear it instead (POST /namespaces/default/clear, DJ.CLEAR default)";
        try (TestServer server = TestServer.start(dataDir, b -> b.autoCreate(false))) {
            assertThat(get(server, "/add?e=k", null).body()).isEqualTo("ADDED\n");
            HttpResponse<String> deleted = HTTP.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.httpPort() + "/namespaces/default"))
                            .DELETE()
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(deleted.statusCode()).isEqualTo(400);
            assertThat(deleted.body()).contains(refusal);
            RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", server.respPort()));
            try (StatefulRedisConnection<String, String> c = client.connect()) {
                assertThatThrownBy(() -> new RawCommands(c.sync()).status("DJ.DROP", "default"))
                        .hasMessage("ERR " + refusal);
            } finally {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
            assertThat(get(server, "/check?e=k", null).body())
                    .as("still there, keys and all")
                    .isEqualTo("PRESENT\n");
        }
        assertThat(dataDir.resolve("default").resolve("namespace.properties")).exists();
    }

    @Test
    void passwordGuardsBothFrontEnds() throws Exception {
        try (TestServer server = TestServer.start(dataDir, b -> b.password("s3cret"))) {
            HttpResponse<String> refused = get(server, "/check?e=k", null);
            assertThat(refused.statusCode()).isEqualTo(401);
            assertThat(refused.headers().firstValue("www-authenticate")).hasValue("Bearer realm=\"deja\"");
            HttpResponse<String> wrong = get(server, "/check?e=k", "Bearer wrong");
            assertThat(wrong.statusCode()).isEqualTo(401);
            assertThat(wrong.headers().firstValue("www-authenticate"))
                    .hasValue("Bearer realm=\"deja\", error=\"invalid_token\"");
            assertThat(wrong.body()).contains("the bearer token is not this server's password");
            assertThat(get(server, "/check?e=k", "Basic czNjcmV0").headers().firstValue("www-authenticate"))
                    .as("not a bearer token: the challenge alone")
                    .hasValue("Bearer realm=\"deja\"");
            assertThat(get(server, "/check?e=k", "Bearer s3cret").body()).isEqualTo("MISSING\n");
            assertThat(get(server, "/health", null).statusCode()).isEqualTo(200);

            assertThat(resp(server, "PING\r\n")).isEqualTo("-NOAUTH Authentication required.\r\n");
            // as Redis 7 does, a malformed command is refused as such before authentication is asked for
            assertThat(resp(server, "GET\r\n")).isEqualTo("-ERR wrong number of arguments for 'get' command\r\n");
            assertThat(resp(server, "GET k\r\n")).isEqualTo("-NOAUTH Authentication required.\r\n");
            assertThat(resp(server, "AUTH nope\r\n"))
                    .isEqualTo("-WRONGPASS invalid username-password pair or user is disabled.\r\n");

            RedisClient client = RedisClient.create(RedisURI.builder()
                    .withHost("127.0.0.1")
                    .withPort(server.respPort())
                    .withPassword("s3cret".toCharArray())
                    .build());
            try (StatefulRedisConnection<String, String> c = client.connect()) {
                assertThat(c.sync().bfAdd("guarded", "k")).isTrue();
            } finally {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
        }
    }

    @Test
    void respConnectionsBeyondTheirLimitAreRefusedWithAReasonWhileHttpOnesAreAdmitted() throws Exception {
        try (TestServer server = TestServer.start(dataDir, b -> b.maxRespConnections(1));
                Socket first = new Socket(InetAddress.getLoopbackAddress(), server.respPort())) {
            first.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            assertThat(readLine(first.getInputStream())).isEqualTo("+PONG");
            try (Socket second = new Socket(InetAddress.getLoopbackAddress(), server.respPort())) {
                second.setSoTimeout(5_000);
                String reply = new String(second.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
                assertThat(reply).isEqualTo("-ERR max number of clients reached\r\n");
            }
            assertThat(http(server, "/health")).startsWith("HTTP/1.1 200");
        }
    }

    @Test
    void httpConnectionsBeyondTheirLimitAreRefusedWithAReasonWhileRespOnesAreAdmitted() throws Exception {
        try (TestServer server = TestServer.start(dataDir, b -> b.maxHttpConnections(1));
                Socket first = new Socket(InetAddress.getLoopbackAddress(), server.httpPort())) {
            first.getOutputStream()
                    .write("GET /health HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            assertThat(readLine(first.getInputStream())).startsWith("HTTP/1.1 200");
            assertThat(http(server, "/health")).startsWith("HTTP/1.1 503").contains("too many connections");
            assertThat(resp(server, "PING\r\n")).isEqualTo("+PONG\r\n");
        }
    }

    /** A GET on a new HTTP connection that asks to close it: the whole response. */
    private static String http(TestServer server, String path) throws Exception {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.httpPort())) {
            socket.setSoTimeout(5_000);
            socket.getOutputStream()
                    .write(("GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
        }
    }

    @Test
    void idleConnectionsAreClosed() throws Exception {
        try (TestServer server =
                        TestServer.start(dataDir, b -> b.idleTimeoutSeconds(1).respIdleTimeoutSeconds(1));
                Socket idleResp = new Socket(InetAddress.getLoopbackAddress(), server.respPort());
                Socket idleHttp = new Socket(InetAddress.getLoopbackAddress(), server.httpPort())) {
            idleResp.setSoTimeout(10_000);
            idleHttp.setSoTimeout(10_000);
            assertThat(idleResp.getInputStream().read())
                    .as("closed by the server")
                    .isEqualTo(-1);
            assertThat(idleHttp.getInputStream().read())
                    .as("closed by the server")
                    .isEqualTo(-1);
        }
    }

    @Test
    void byDefaultAnIdleRespConnectionStaysOpenAsInRedisAndAnIdleHttpOneIsClosed() throws Exception {
        try (TestServer server = TestServer.start(dataDir, b -> b.idleTimeoutSeconds(1));
                Socket idleResp = new Socket(InetAddress.getLoopbackAddress(), server.respPort());
                Socket idleHttp = new Socket(InetAddress.getLoopbackAddress(), server.httpPort())) {
            assertThat(server.server().context().config().respIdleTimeoutSeconds())
                    .as("the default")
                    .isZero();
            idleHttp.setSoTimeout(10_000);
            assertThat(idleHttp.getInputStream().read())
                    .as("closed by the server")
                    .isEqualTo(-1);
            // the HTTP connection's second has passed; the RESP one still answers
            idleResp.setSoTimeout(10_000);
            idleResp.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            assertThat(readLine(idleResp.getInputStream())).isEqualTo("+PONG");
        }
    }

    private static String resp(TestServer server, String command) throws Exception {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.respPort())) {
            socket.setSoTimeout(5_000);
            OutputStream out = socket.getOutputStream();
            out.write(command.getBytes(StandardCharsets.US_ASCII));
            return readLine(socket.getInputStream()) + "\r\n";
        }
    }

    private static HttpResponse<String> get(TestServer server, String path, String authorization) throws Exception {
        HttpRequest.Builder request =
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.httpPort() + path));
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}
