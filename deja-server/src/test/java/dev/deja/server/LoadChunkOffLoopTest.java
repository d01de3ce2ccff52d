package dev.deja.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.testing.TestServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.RedisClient;

/**
 * The last {@code BF.LOADCHUNK} of a large dump reads the whole filter and writes it as a snapshot: it runs off the
 * network thread, so another connection served by the same (only) event loop is answered while it runs.
 */
class LoadChunkOffLoopTest {

    @TempDir
    Path dataDir;

    @Test
    void anotherConnectionOnTheSameEventLoopIsAnsweredWhileTheLastChunkLoads() throws Exception {
        try (TestServer server = TestServer.start(dataDir, b -> b.ioThreads(1));
                RedisClient redis = RedisClient.create("127.0.0.1", server.respPort())) {
            // 2^30 bits: 128 MiB that the last chunk reads into a new filter and writes out as its snapshot
            redis.executeCommand(new CommandArguments(() -> "DJ.CREATE".getBytes(StandardCharsets.UTF_8))
                    .addObjects("big", "bloom", "bits", "1073741824", "k", "7"));
            for (int i = 0; i < 20_000; i++) {
                redis.bfAdd("big", "item-" + i);
            }
            List<Map.Entry<Long, byte[]>> chunks = new ArrayList<>();
            for (long cursor = 0; ; ) {
                Map.Entry<Long, byte[]> chunk = redis.bfScanDump("big", cursor);
                if (chunk.getKey() == 0) {
                    break;
                }
                chunks.add(chunk);
                cursor = chunk.getKey();
            }
            for (Map.Entry<Long, byte[]> chunk : chunks.subList(0, chunks.size() - 1)) {
                redis.bfLoadChunk("copy", chunk.getKey(), chunk.getValue());
            }
            Map.Entry<Long, byte[]> last = chunks.get(chunks.size() - 1);
            try (Socket loading = connect(server);
                    Socket other = connect(server)) {
                send(loading, "BF.LOADCHUNK", "copy", Long.toString(last.getKey()), last.getValue());
                send(other, "PING");
                assertThat(read(other)).isEqualTo("+PONG\r\n");
                assertThat(loading.getInputStream().available())
                        .as("the PING was answered before the last chunk's load finished")
                        .isZero();
                assertThat(read(loading)).isEqualTo("+OK\r\n");
            }
            assertThat(redis.bfExists("copy", "item-19999")).isTrue();
        }
    }

    private static Socket connect(TestServer server) throws IOException {
        Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.respPort());
        socket.setSoTimeout(120_000);
        return socket;
    }

    private static void send(Socket socket, Object... args) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
        for (Object arg : args) {
            byte[] bytes = arg instanceof byte[] b ? b : arg.toString().getBytes(StandardCharsets.UTF_8);
            out.write(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(bytes);
            out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
        }
        OutputStream stream = socket.getOutputStream();
        out.writeTo(stream);
        stream.flush();
    }

    /** One line-long reply. */
    private static String read(Socket socket) throws IOException {
        InputStream in = socket.getInputStream();
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) >= 0) {
            line.write(b);
            if (b == '\n') {
                break;
            }
        }
        return line.toString(StandardCharsets.UTF_8);
    }
}
