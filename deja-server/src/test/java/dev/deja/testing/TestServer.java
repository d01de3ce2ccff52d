package dev.deja.testing;

import dev.deja.namespace.NamespaceSpec;
import dev.deja.server.DejaServer;
import dev.deja.server.ServerConfig;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.function.UnaryOperator;

/** Starts an in-process server on 127.0.0.1 with ephemeral ports, for tests; close it after the test. */
public final class TestServer implements AutoCloseable {

    private final DejaServer server;

    private TestServer(DejaServer server) {
        this.server = server;
    }

    /** A server over {@code dataDir} with test defaults, adjusted by {@code settings}. */
    public static TestServer start(Path dataDir, UnaryOperator<ServerConfig.Builder> settings)
            throws IOException, InterruptedException {
        ServerConfig.Builder builder = ServerConfig.builder()
                .dataDir(dataDir)
                .bind("127.0.0.1")
                .httpPort(0)
                .respPort(0)
                .ephemeralPorts(true)
                .defaultSpec(NamespaceSpec.parse("bloom", "capacity=100000,fpp=0.001"))
                .snapshotIntervalSeconds(0)
                .ioThreads(2);
        return new TestServer(DejaServer.start(settings.apply(builder).build()));
    }

    /** A server over {@code dataDir} with test defaults. */
    public static TestServer start(Path dataDir) throws IOException, InterruptedException {
        return start(dataDir, UnaryOperator.identity());
    }

    public int httpPort() {
        return server.httpPort();
    }

    public int respPort() {
        return server.respPort();
    }

    /**
     * Sends {@code raw} to the RESP port on a new connection and reads until the replies end with {@code end}, the
     * server closes the connection, or 5 s pass; what came is returned.
     */
    public String respExchange(String raw, String end) throws IOException {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), respPort())) {
            socket.setSoTimeout(5_000);
            socket.getOutputStream().write(raw.getBytes(StandardCharsets.UTF_8));
            socket.getOutputStream().flush();
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream replies = new ByteArrayOutputStream();
            byte[] buffer = new byte[8192];
            try {
                int n;
                while ((n = in.read(buffer)) > 0) {
                    replies.write(buffer, 0, n);
                    if (replies.toString(StandardCharsets.UTF_8).endsWith(end)) {
                        break;
                    }
                }
            } catch (SocketTimeoutException e) {
                // what came is what is compared
            }
            return replies.toString(StandardCharsets.UTF_8);
        }
    }

    public DejaServer server() {
        return server;
    }

    @Override
    public void close() {
        server.close();
    }
}
