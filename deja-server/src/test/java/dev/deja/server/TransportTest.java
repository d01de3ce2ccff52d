package dev.deja.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.testing.SocketReads;
import dev.deja.testing.TestServer;
import io.netty.channel.epoll.Epoll;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The network layer: the server on each socket layer this machine has, chosen as configured and serving both
 * protocols alike, and its number of event loops.
 */
class TransportTest {

    @TempDir
    Path dataDir;

    /** NIO everywhere, epoll where its library loads. */
    static List<Transport> runnableHere() {
        List<Transport> transports = new ArrayList<>(List.of(Transport.NIO));
        if (Epoll.isAvailable()) {
            transports.add(Transport.EPOLL);
        }
        return transports;
    }

    @Test
    void autoTakesEpollWhereItsLibraryLoadsAndNioElsewhere() throws Exception {
        if (linuxOnX86()) {
            // the native library is a dependency of the server: on the machines it ships for, it must load
            assertThat(Epoll.isAvailable())
                    .as("epoll unavailable: %s", Transport.epollUnavailability())
                    .isTrue();
        }
        try (TestServer server = TestServer.start(dataDir)) {
            assertThat(server.server().transport()).isEqualTo(Epoll.isAvailable() ? Transport.EPOLL : Transport.NIO);
            assertThat(server.respExchange("PING\r\n", "\r\n")).isEqualTo("+PONG\r\n");
        }
    }

    @Test
    void epollAskedForRunsWhereAvailableAndIsRefusedWithItsReasonElsewhere() throws Exception {
        if (Epoll.isAvailable()) {
            try (TestServer server = TestServer.start(dataDir, b -> b.transport(Transport.EPOLL))) {
                assertThat(server.server().transport()).isEqualTo(Transport.EPOLL);
            }
        } else {
            assertThatThrownBy(() -> TestServer.start(dataDir, b -> b.transport(Transport.EPOLL)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("the epoll transport is not available here");
        }
    }

    @Test
    void theEventLoopsLeaveACoreToTheRestOfTheMachine() {
        assertThat(DejaServer.defaultIoThreads(1)).isEqualTo(1);
        assertThat(DejaServer.defaultIoThreads(2)).isEqualTo(1);
        assertThat(DejaServer.defaultIoThreads(8)).isEqualTo(7);
    }

    @Test
    void transportsAreNamedAsTheCommandLineNamesThem() {
        assertThat(Transport.parse("EPOLL")).isEqualTo(Transport.EPOLL);
        assertThat(Transport.parse(" nio ")).isEqualTo(Transport.NIO);
        assertThat(Transport.AUTO).hasToString("auto");
        assertThatThrownBy(() -> Transport.parse("io_uring"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("transport must be one of auto|epoll|nio (got \"io_uring\")");
    }

    @ParameterizedTest
    @MethodSource("runnableHere")
    void aLargePipelineInOneWriteIsAnsweredWholeAndInOrder(Transport transport) throws Exception {
        // ECHO, answered at once, and BF.ADD, answered once its journal record is written, interleaved: the replies
        // of one read go out together, and must still be those of the requests in the order they were sent
        int commands = 5_000;
        StringBuilder pipeline = new StringBuilder();
        StringBuilder expected = new StringBuilder();
        for (int i = 0; i < commands; i++) {
            String word = "w" + i;
            if (i % 2 == 0) {
                pipeline.append(command("ECHO", word));
                expected.append('$')
                        .append(word.length())
                        .append("\r\n")
                        .append(word)
                        .append("\r\n");
            } else {
                pipeline.append(command("BF.ADD", "order", "k" + (i / 4)));
                expected.append(i % 4 == 1 ? ":1\r\n" : ":0\r\n"); // each key twice: new, then seen
            }
        }
        try (TestServer server = TestServer.start(dataDir, b -> b.transport(transport));
                Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.respPort())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(pipeline.toString().getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            byte[] replies = socket.getInputStream().readNBytes(expected.length());
            assertThat(new String(replies, StandardCharsets.US_ASCII)).isEqualTo(expected.toString());
        }
    }

    @ParameterizedTest
    @MethodSource("runnableHere")
    void anHttpConnectionIsKeptAliveAcrossRequests(Transport transport) throws Exception {
        try (TestServer server = TestServer.start(dataDir, b -> b.transport(transport));
                Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.httpPort())) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            // one request at a time, each answered before the next is sent, as wrk and most clients do
            for (String expected : List.of("MISSING", "PRESENT", "PRESENT")) {
                out.write("GET /checkthenadd?e=alive HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                assertThat(readResponse(in)).startsWith("HTTP/1.1 200 OK").endsWith(expected + "\n");
            }
            out.write("GET /check?e=alive HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            assertThat(SocketReads.readAll(socket))
                    .startsWith("HTTP/1.1 200 OK")
                    .endsWith("PRESENT\n");
        }
    }

    private static String command(String... args) {
        StringBuilder c = new StringBuilder("*").append(args.length).append("\r\n");
        for (String a : args) {
            c.append('$').append(a.length()).append("\r\n").append(a).append("\r\n");
        }
        return c.toString();
    }

    /** One response: its head up to the blank line, then as many body bytes as its Content-Length says. */
    private static String readResponse(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        int length = 0;
        for (String line = SocketReads.readLine(in); !line.isEmpty(); line = SocketReads.readLine(in)) {
            head.append(line).append("\r\n");
            if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                length = Integer.parseInt(
                        line.substring("content-length:".length()).trim());
            }
        }
        return head + "\r\n" + new String(in.readNBytes(length), StandardCharsets.US_ASCII);
    }

    private static boolean linuxOnX86() {
        return System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("linux")
                && System.getProperty("os.arch").equals("amd64");
    }
}
