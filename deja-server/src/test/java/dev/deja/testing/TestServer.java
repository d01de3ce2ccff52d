package dev.deja.testing;

import dev.deja.namespace.NamespaceSpec;
import dev.deja.server.DejaServer;
import dev.deja.server.ServerConfig;
import java.io.IOException;
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

    public DejaServer server() {
        return server;
    }

    @Override
    public void close() {
        server.close();
    }
}
