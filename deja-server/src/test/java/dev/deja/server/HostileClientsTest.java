package dev.deja.server;

import static dev.deja.testing.SocketReads.readAll;
import static dev.deja.testing.SocketReads.readLine;
import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.testing.TestServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Clients that try to exhaust the server, as an attacker who reaches the port would: large promises, slow bytes,
 * every connection slot. Each is refused or bounded on its own connection while a well-behaved client goes on.
 */
class HostileClientsTest {

    private static final byte[] ANNOUNCE_16_MIB =
            "*2\r\n$4\r\nECHO\r\n$16776000\r\n".getBytes(StandardCharsets.US_ASCII);

    @TempDir
    Path dataDir;

    /**
     * The attack of a client announcing a 16 MiB bulk string it never sends, on hundreds of connections: a server
     * that reserved what was announced would need gigabytes, this one runs in a 256 MiB heap (and exits on an
     * OutOfMemoryError, as {@code ./deja} runs it) and keeps answering a well-behaved client without a stall.
     */
    @Test
    void announcedRequestsReserveNothingAndUnauthenticatedOnesAreRefusedAtTheirHeader() throws Exception {
        List<String> jvm = new ArrayList<>(launcherOptions());
        jvm.addAll(List.of("-Xmx256m", "-Xmn32m"));
        try (ServerProcess server = ServerProcess.startWithResp(
                        jvm,
                        dataDir.resolve("data"),
                        "--password",
                        "secret",
                        "--max-resp-connections",
                        "2000",
                        "--max-http-connections",
                        "1000",
                        "--request-timeout",
                        "600",
                        "--default-params",
                        "capacity=100000,fpp=0.01");
                WellBehavedClient client = new WellBehavedClient(server.respPort(), "secret")) {
            client.start();
            // the same attack first: on a JVM that has not compiled their code paths yet, the compiler
            // competes with the network threads for this machine's cores
            attack(server, 400).forEach(HostileClientsTest::closeQuietly);
            client.resetSlowest();
            List<Socket> held = attack(server, 400);
            try {
                client.awaitRounds(500);
                String metrics = httpGet(server.httpPort(), "/metrics", "secret");
                assertThat(metric(metrics, "deja_request_memory_held_bytes"))
                        .as("nothing held: no bytes came")
                        .isZero();
                assertThat(server.isAlive()).isTrue();
            } finally {
                held.forEach(HostileClientsTest::closeQuietly);
            }
            client.stop();
            System.out.printf(
                    "well-behaved client during the attack: %d round trips, the slowest %d ms%n",
                    client.rounds(), client.slowestMillis());
            // served throughout: every call answered (none failed or timed out) while the attack held its
            // connections; how fast is a benchmark's business, not a test's (its slowest is printed above)
            assertThat(client.failure()).isNull();
            assertThat(client.rounds()).isGreaterThan(500);
            assertThat(server.isAlive()).isTrue();
        }
    }

    /**
     * {@code n} connections announcing a 16 MiB bulk string before AUTH (each refused at the header, as Redis refuses
     * it), {@code n} announcing it after AUTH, and {@code n} announcing 16 MB HTTP bodies, half of them without the
     * password (each refused 401 before the body): the connections left open, their promises not kept. Connections
     * are opened 20 at a time, 400 a second, the way an attacker would gather them.
     */
    private static List<Socket> attack(ServerProcess server, int n) throws IOException, InterruptedException {
        List<Socket> refused = new ArrayList<>();
        List<Socket> open = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            pace(i);
            Socket socket = connect(server.respPort());
            refused.add(socket);
            socket.getOutputStream().write(ANNOUNCE_16_MIB);
        }
        for (Socket socket : refused) {
            assertThat(readAll(socket)).isEqualTo("-ERR Protocol error: unauthenticated bulk length\r\n");
            socket.close();
        }
        refused.clear();
        List<Socket> authenticated = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            pace(i);
            Socket socket = connect(server.respPort());
            authenticated.add(socket);
            socket.getOutputStream().write("AUTH secret\r\n".getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().write(ANNOUNCE_16_MIB);
        }
        open.addAll(authenticated);
        for (int i = 0; i < n; i++) {
            pace(i);
            Socket socket = connect(server.httpPort());
            boolean withPassword = i % 2 == 0;
            (withPassword ? open : refused).add(socket);
            socket.getOutputStream()
                    .write(("POST /batch?op=add HTTP/1.1\r\nHost: x\r\nContent-Length: 16000000\r\n"
                                    + (withPassword ? "Authorization: Bearer secret\r\n" : "") + "\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
        }
        for (Socket socket : refused) {
            assertThat(readAll(socket)).startsWith("HTTP/1.1 401");
            socket.close();
        }
        for (Socket socket : authenticated) {
            assertThat(readLine(socket.getInputStream()))
                    .as("AUTH answered; the ECHO waits for its bytes")
                    .isEqualTo("+OK");
        }
        return open;
    }

    private static void pace(int connection) throws InterruptedException {
        if (connection % 20 == 19) {
            TimeUnit.MILLISECONDS.sleep(50);
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // closing
        }
    }

    /**
     * Connections that send large requests slowly fill the request memory; the one whose bytes do not fit is
     * refused (RESP ERR, HTTP 503) and closed, the ones inside it and small requests elsewhere go on, and the memory
     * comes back when the connections go.
     */
    @Test
    void theRequestMemoryRefusesOnlyTheConnectionThatOverflowsIt() throws Exception {
        try (TestServer server = TestServer.start(
                dataDir, b -> b.maxBodyBytes(4 << 20).maxBatch(1000).requestMemory(16 << 20))) {
            RequestMemory memory = server.server().context().requestMemory();
            byte[] threeMiB = new byte[3 << 20];
            List<Socket> holders = new ArrayList<>();
            try {
                Socket overflowing = null;
                for (int i = 0; i < 8 && overflowing == null; i++) {
                    long before = memory.held();
                    Socket socket = connect(i % 2 == 0 ? server.respPort() : server.httpPort());
                    sendInBackground(
                            socket,
                            (i % 2 == 0
                                    ? "*2\r\n$4\r\nECHO\r\n$4000000\r\n"
                                    : "POST /batch?op=add HTTP/1.1\r\nHost: x\r\nContent-Length: 4000000\r\n\r\n"),
                            threeMiB);
                    long held = awaitSettled(memory::held, before);
                    if (held - before >= threeMiB.length - RequestMemory.PER_CONNECTION_ALLOWANCE) {
                        holders.add(socket);
                    } else {
                        overflowing = socket;
                    }
                }
                assertThat(holders).as("what fits in 16 MiB of request memory").hasSize(5);
                assertThat(overflowing).as("a connection beyond the memory").isNotNull();
                assertThat(readAll(overflowing))
                        .startsWith("HTTP/1.1 503")
                        .contains("Retry-After: 1")
                        .contains("server busy");
                overflowing.close();
                assertThat(memory.held()).isLessThanOrEqualTo(memory.limit());
                assertThat(server.respExchange("PING\r\nECHO hello\r\n", "hello\r\n"))
                        .as("small requests are served meanwhile")
                        .isEqualTo("+PONG\r\n$5\r\nhello\r\n");
                Socket next = connect(server.respPort());
                holders.add(next);
                sendInBackground(next, "*2\r\n$4\r\nECHO\r\n$4000000\r\n", threeMiB);
                assertThat(readAll(next))
                        .startsWith("-ERR server busy: the requests being received hold all of the"
                                + " server's request memory (--request-memory, 16777216 bytes)");
            } finally {
                for (Socket socket : holders) {
                    socket.close();
                }
            }
            assertThat(awaitSettled(memory::held, -1)).as("given back").isZero();
            byte[] value = new byte[3_900_000];
            java.util.Arrays.fill(value, (byte) 'v');
            try (Socket socket = connect(server.respPort())) {
                socket.getOutputStream().write("*2\r\n$4\r\nECHO\r\n$3900000\r\n".getBytes(StandardCharsets.US_ASCII));
                socket.getOutputStream().write(value);
                socket.getOutputStream().write("\r\n".getBytes(StandardCharsets.US_ASCII));
                assertThat(readLine(socket.getInputStream())).isEqualTo("$3900000");
            }
        }
    }

    /**
     * Requests refused as they are read (a body over --max-body-bytes, headers over 16 KiB, a malformed request, a
     * bulk string over the limit) are counted in deja_errors_total by front end and reason, as every other error is.
     */
    @Test
    void refusalsAsRequestsAreReadAreCountedByReason() throws Exception {
        try (TestServer server =
                TestServer.start(dataDir, b -> b.maxBodyBytes(1024).maxKeyBytes(100))) {
            assertThat(exchange(
                            server.httpPort(),
                            "POST /batch?op=add HTTP/1.1\r\nHost: x\r\nContent-Length: 2048\r\n\r\n"))
                    .startsWith("HTTP/1.1 413");
            assertThat(exchange(
                            server.httpPort(),
                            "GET /check?e=a HTTP/1.1\r\nHost: x\r\nX-Big: " + "b".repeat(17_000) + "\r\n\r\n"))
                    .startsWith("HTTP/1.1 431");
            assertThat(exchange(server.httpPort(), "GET /check?e=a HTTP/1.1\r\n\r\n"))
                    .as("no Host header")
                    .startsWith("HTTP/1.1 400");
            assertThat(exchange(server.respPort(), "*2\r\n$4\r\nECHO\r\n$2048\r\n"))
                    .startsWith("-ERR Protocol error: a bulk string may be at most 1024 bytes");
            assertThat(exchange(server.respPort(), "*1\r\n:5\r\n"))
                    .startsWith("-ERR Protocol error: expected an array of bulk strings");
            String metrics = httpGet(server.httpPort(), "/metrics", "none");
            assertThat(metrics)
                    .contains("deja_errors_total{frontend=\"http\",reason=\"Request Entity Too Large\"} 1.0")
                    .contains("deja_errors_total{frontend=\"http\",reason=\"Request Header Fields Too Large\"} 1.0")
                    .contains("deja_errors_total{frontend=\"http\",reason=\"Bad Request\"} 1.0")
                    .contains("deja_errors_total{frontend=\"resp\",reason=\"protocol\"} 2.0");
        }
    }

    /** Sends {@code request} on a new connection and reads until the server closes it. */
    private static String exchange(int port, String request) throws IOException {
        try (Socket socket = connect(port)) {
            socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
            return readAll(socket);
        }
    }

    /** Commands queued in a transaction stay counted in the request memory until EXEC or DISCARD. */
    @Test
    void aTransactionKeepsWhatItQueuedCountedUntilItIsDiscarded() throws Exception {
        try (TestServer server = TestServer.start(
                        dataDir, b -> b.maxBodyBytes(4 << 20).maxBatch(1000).requestMemory(16 << 20));
                Socket socket = connect(server.respPort())) {
            RequestMemory memory = server.server().context().requestMemory();
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            out.write("MULTI\r\n".getBytes(StandardCharsets.US_ASCII));
            assertThat(readLine(in)).isEqualTo("+OK");
            out.write("*2\r\n$4\r\nECHO\r\n$3000000\r\n".getBytes(StandardCharsets.US_ASCII));
            out.write(new byte[3_000_000]);
            out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
            assertThat(readLine(in)).isEqualTo("+QUEUED");
            assertThat(memory.held())
                    .as("the queued ECHO, beyond the connection's allowance")
                    .isGreaterThanOrEqualTo(3_000_000 - RequestMemory.PER_CONNECTION_ALLOWANCE);
            out.write("DISCARD\r\n".getBytes(StandardCharsets.US_ASCII));
            assertThat(readLine(in)).isEqualTo("+OK");
            assertThat(memory.held()).isZero();
        }
    }

    /**
     * A request trickled in a byte at a time keeps its connection busy, so the idle timeout never closes it: the
     * request timeout does (HTTP 408, RESP ERR), while requests each within the limit go on on one connection.
     */
    @Test
    void aTrickledRequestIsClosedAtTheRequestTimeoutHoweverOftenItsBytesCome() throws Exception {
        try (TestServer server = TestServer.start(
                dataDir, b -> b.requestTimeoutSeconds(2).idleTimeoutSeconds(60).respIdleTimeoutSeconds(60))) {
            try (Socket http = connect(server.httpPort())) {
                Trickle trickle = new Trickle(http, "GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: ", 'a');
                trickle.start();
                String reply = readAll(http);
                trickle.stop();
                assertThat(reply)
                        .startsWith("HTTP/1.1 408")
                        .contains("connection: close")
                        .contains("request timeout: a request must arrive whole within 2 seconds of its first byte");
                assertThat(trickle.sent())
                        .as("bytes it trickled before the timeout")
                        .isGreaterThan(2);
            }
            try (Socket resp = connect(server.respPort())) {
                Trickle trickle = new Trickle(resp, "*2\r\n$4\r\nECHO\r\n$1000000\r\n", 'a');
                trickle.start();
                String reply = readAll(resp);
                trickle.stop();
                assertThat(reply)
                        .isEqualTo("-ERR request timeout: a request must arrive whole within 2 seconds of"
                                + " its first byte (--request-timeout)\r\n");
            }
            // each request within the limit, slowly, one after another on one connection: all answered
            try (Socket resp = connect(server.respPort())) {
                for (int i = 0; i < 3; i++) {
                    for (byte b : "PING\r\n".getBytes(StandardCharsets.US_ASCII)) {
                        resp.getOutputStream().write(b);
                        TimeUnit.MILLISECONDS.sleep(200);
                    }
                    assertThat(readLine(resp.getInputStream())).isEqualTo("+PONG");
                }
            }
        }
    }

    /** Slow HTTP clients holding every HTTP connection leave the RESP front end its own connections. */
    @Test
    void slowHttpClientsHoldingEveryHttpSlotLeaveRespClientsAdmitted() throws Exception {
        try (TestServer server = TestServer.start(
                dataDir, b -> b.maxHttpConnections(20).maxRespConnections(20).requestTimeoutSeconds(0))) {
            List<Trickle> slow = new ArrayList<>();
            try {
                for (int i = 0; i < 20; i++) {
                    Socket socket = connect(server.httpPort());
                    // answered, so admitted, before it starts to trickle its next request
                    socket.getOutputStream()
                            .write("GET /health HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                    assertThat(readLine(socket.getInputStream())).startsWith("HTTP/1.1 200");
                    Trickle trickle = new Trickle(socket, "GET /health HTTP/1.1\r\nHost: x\r\nX: ", 'a');
                    trickle.start();
                    slow.add(trickle);
                }
                try (Socket refused = connect(server.httpPort())) {
                    assertThat(readAll(refused)).startsWith("HTTP/1.1 503").contains("too many connections");
                }
                assertThat(server.respExchange("PING\r\n", "\r\n")).isEqualTo("+PONG\r\n");
            } finally {
                for (Trickle trickle : slow) {
                    trickle.stop();
                    trickle.socket.close();
                }
            }
        }
    }

    /**
     * A JVM that runs out of heap ends at once, with the options {@code ./deja} starts it with, instead of living on
     * with dead threads: here a filter fills most of a small heap and large batches take the rest.
     */
    @Test
    void anOutOfMemoryErrorEndsTheProcess() throws Exception {
        List<String> jvm = new ArrayList<>(launcherOptions());
        jvm.addAll(List.of("-Xmx64m", "-Xmn16m"));
        try (ServerProcess server = ServerProcess.startWithResp(
                jvm, dataDir.resolve("data"), "--default-params", "capacity=1000,fpp=0.01")) {
            try (Socket admin = connect(server.respPort())) {
                admin.getOutputStream()
                        .write("BF.RESERVE big 0.01 38000000 NONSCALING\r\n".getBytes(StandardCharsets.US_ASCII));
                assertThat(readLine(admin.getInputStream())).isEqualTo("+OK");
            }
            List<Thread> senders = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int senderId = t;
                Thread sender = new Thread(() -> sendBatchesUntilClosed(server.respPort(), senderId));
                sender.start();
                senders.add(sender);
            }
            int status = server.awaitExit(120);
            for (Thread sender : senders) {
                sender.join(30_000);
            }
            assertThat(server.output()).contains("Terminating due to java.lang.OutOfMemoryError");
            assertThat(status)
                    .as("the JVM's exit status on an OutOfMemoryError")
                    .isEqualTo(3);
        }
    }

    /** The JVM options {@code ./deja} starts every command with (bin/jvm.options, a java argument file). */
    private static List<String> launcherOptions() throws IOException {
        Path options = Path.of("..", "bin", "jvm.options");
        assertThat(options).exists();
        return List.of("@" + options.toAbsolutePath().normalize());
    }

    /** Sends BF.MADD commands of 100,000 keys, one at a time, until the server goes away. */
    private static void sendBatchesUntilClosed(int port, int sender) {
        int keys = 100_000;
        StringBuilder batch = new StringBuilder("*" + (keys + 2) + "\r\n$7\r\nBF.MADD\r\n$3\r\nbig\r\n");
        for (int i = 0; i < keys; i++) {
            String key = String.format("k%d-%07d", sender, i);
            batch.append('$').append(key.length()).append("\r\n").append(key).append("\r\n");
        }
        byte[] command = batch.toString().getBytes(StandardCharsets.US_ASCII);
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            socket.setSoTimeout(30_000);
            for (int round = 0; round < 1_000; round++) {
                socket.getOutputStream().write(command);
                readLine(socket.getInputStream());
            }
        } catch (IOException e) {
            // the server ended
        }
    }

    private static Socket connect(int port) throws IOException {
        Socket socket = new Socket(InetAddress.getLoopbackAddress(), port);
        socket.setSoTimeout(20_000);
        return socket;
    }

    /**
     * Waits up to 10 s for a value to move from {@code before} and then hold still for 300 ms (a request's bytes
     * arrive in many reads); the value then.
     */
    private static long awaitSettled(LongSupplier value, long before) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        long last = value.getAsLong();
        long stillSince = System.nanoTime();
        while (System.nanoTime() < deadline) {
            TimeUnit.MILLISECONDS.sleep(20);
            long now = value.getAsLong();
            if (now != last) {
                last = now;
                stillSince = System.nanoTime();
            } else if (now != before && System.nanoTime() - stillSince > TimeUnit.MILLISECONDS.toNanos(300)) {
                break;
            }
        }
        return last;
    }

    /** Writes a request's head and then {@code body} from another thread, which ends if the server closes. */
    private static void sendInBackground(Socket socket, String head, byte[] body) {
        Thread writer = new Thread(() -> {
            try {
                OutputStream out = socket.getOutputStream();
                out.write(head.getBytes(StandardCharsets.US_ASCII));
                out.write(body);
            } catch (IOException closedByTheServer) {
                // a refused connection
            }
        });
        writer.setDaemon(true);
        writer.start();
    }

    /** A GET with the bearer token on a connection that closes after it: the response's body. */
    private static String httpGet(int port, String path, String password) throws IOException {
        try (Socket socket = connect(port)) {
            socket.getOutputStream()
                    .write(("GET " + path + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + password
                                    + "\r\nConnection: close\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
            String response = readAll(socket);
            return response.substring(response.indexOf("\r\n\r\n") + 4);
        }
    }

    private static double metric(String exposition, String name) {
        return exposition
                .lines()
                .filter(line -> line.startsWith(name + " "))
                .mapToDouble(line -> Double.parseDouble(line.substring(name.length() + 1)))
                .findFirst()
                .orElseThrow();
    }

    /** Sends {@code head}, then one byte every 100 ms until stopped or the connection fails. */
    private static final class Trickle {
        final Socket socket;
        private final String head;
        private final char filler;
        private final AtomicBoolean stopped = new AtomicBoolean();
        private final AtomicLong sent = new AtomicLong();
        private Thread thread;

        Trickle(Socket socket, String head, char filler) {
            this.socket = socket;
            this.head = head;
            this.filler = filler;
        }

        void start() {
            thread = new Thread(() -> {
                try {
                    OutputStream out = socket.getOutputStream();
                    out.write(head.getBytes(StandardCharsets.US_ASCII));
                    while (!stopped.get()) {
                        out.write(filler);
                        sent.incrementAndGet();
                        TimeUnit.MILLISECONDS.sleep(100);
                    }
                } catch (IOException | InterruptedException e) {
                    // closed by the server, or stopped
                }
            });
            thread.setDaemon(true);
            thread.start();
        }

        long sent() {
            return sent.get();
        }

        void stop() throws InterruptedException {
            stopped.set(true);
            thread.join(5_000);
        }
    }

    /**
     * A client that authenticates, then adds a key and pings, one round trip at a time, as fast as it is answered,
     * keeping its slowest round trip after a warm-up.
     */
    private static final class WellBehavedClient implements AutoCloseable {
        private final Socket socket;
        private final String password;
        private final AtomicBoolean stopped = new AtomicBoolean();
        private final AtomicLong rounds = new AtomicLong();
        private final AtomicLong slowestNanos = new AtomicLong();
        private final AtomicReference<Throwable> failure = new AtomicReference<>();
        private Thread thread;

        WellBehavedClient(int port, String password) throws IOException {
            this.socket = connect(port);
            this.password = password;
        }

        void start() throws IOException {
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            out.write(("AUTH " + password + "\r\n").getBytes(StandardCharsets.US_ASCII));
            assertThat(readLine(in)).isEqualTo("+OK");
            for (int i = 0; i < 2_000; i++) {
                roundTrip(out, in, "warm-" + i);
            }
            thread = new Thread(() -> {
                try {
                    for (long i = 0; !stopped.get(); i++) {
                        long start = System.nanoTime();
                        roundTrip(out, in, "key-" + i);
                        long took = System.nanoTime() - start;
                        slowestNanos.accumulateAndGet(took, Math::max);
                        rounds.incrementAndGet();
                        TimeUnit.MILLISECONDS.sleep(1);
                    }
                } catch (Throwable e) {
                    failure.set(e);
                }
            });
            thread.start();
        }

        private static void roundTrip(OutputStream out, InputStream in, String key) throws IOException {
            out.write(("BF.ADD default " + key + "\r\nPING\r\n").getBytes(StandardCharsets.US_ASCII));
            String added = readLine(in);
            String pong = readLine(in);
            if ((!added.equals(":1") && !added.equals(":0")) || !pong.equals("+PONG")) {
                throw new IOException("unexpected replies: " + added + ", " + pong);
            }
        }

        /** Forgets the slowest round trip so far. */
        void resetSlowest() {
            slowestNanos.set(0);
        }

        void awaitRounds(long count) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (rounds.get() < count && failure.get() == null && System.nanoTime() < deadline) {
                TimeUnit.MILLISECONDS.sleep(10);
            }
        }

        void stop() throws InterruptedException {
            stopped.set(true);
            thread.join(10_000);
        }

        long rounds() {
            return rounds.get();
        }

        long slowestMillis() {
            return TimeUnit.NANOSECONDS.toMillis(slowestNanos.get());
        }

        Throwable failure() {
            return failure.get();
        }

        @Override
        public void close() throws IOException {
            stopped.set(true);
            socket.close();
        }
    }
}
