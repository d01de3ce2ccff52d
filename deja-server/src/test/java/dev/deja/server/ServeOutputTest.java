package dev.deja.server;

import dev.deja.bloom.BloomFilter;
import io.netty.channel.epoll.Epoll;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What {@code deja serve} tells its operator as it starts. */
class ServeOutputTest {

    /** A default namespace that fits the test server's heap. */
    private static final String[] SMALL = {"--default-params", "capacity=1000"};

    @TempDir
    Path dataDir;

    @Test
    void theStartSaysWhichNetworkTransportRuns() throws Exception {
        try (ServerProcess server = ServerProcess.start(dataDir, SMALL)) {
            server.awaitOutput("network: " + (Epoll.isAvailable() ? "epoll" : "nio (epoll is not available here: "));
        }
    }

    @Test
    void theStartSaysWhetherBloomLookupsUseVectors() throws Exception {
        // started as ./deja starts it, with the Vector API module (as this test JVM is)
        try (ServerProcess server = ServerProcess.start(dataDir.resolve("with"), SMALL)) {
            server.awaitOutput(
                    BloomFilter.vectorLookups() ? "bloom lookups: 256-bit vectors" : "bloom lookups: scalar");
        }
        try (ServerProcess server = ServerProcess.start(
                dataDir.resolve("without"), Map.of("JDK_JAVA_OPTIONS", "-Ddeja.bloom.vector=false"), SMALL)) {
            server.awaitOutput("bloom lookups: scalar (a JVM started with --add-modules jdk.incubator.vector");
        }
    }
}
