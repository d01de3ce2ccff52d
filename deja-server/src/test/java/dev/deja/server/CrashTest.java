package dev.deja.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.testing.FileSizeLimit;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server as a separate process: killed with SIGKILL under write load with {@code --fsync always}, it comes back
 * with every acknowledged add; the same with a torn journal tail; a write refused for a full disk is not recorded;
 * and SIGTERM stops it cleanly.
 */
class CrashTest {

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final String[] ARGS = {
        "--fsync", "always", "--default-kind", "recent", "--default-params", "keys=2000000", "--snapshot-interval", "1"
    };

    @TempDir
    Path dataDir;

    @Test
    void everyAcknowledgedAddSurvivesKillNine() throws Exception {
        List<String> acknowledged = Collections.synchronizedList(new ArrayList<>());
        try (ServerProcess server = ServerProcess.start(dataDir, ARGS)) {
            loadThen(server, acknowledged, "a", server::kill);
        }
        assertThat(acknowledged).hasSizeGreaterThanOrEqualTo(5_000);
        try (ServerProcess server = ServerProcess.start(dataDir, ARGS)) {
            assertAllPresent(server, acknowledged);
        }
    }

    @Test
    void aTornJournalTailIsCutAndAcknowledgedAddsSurvive() throws Exception {
        List<String> acknowledged = Collections.synchronizedList(new ArrayList<>());
        try (ServerProcess server = ServerProcess.start(dataDir, ARGS)) {
            loadThen(server, acknowledged, "b", server::kill);
        }
        Path segment = newestJournalSegment(dataDir.resolve("default"));
        try (FileChannel channel = FileChannel.open(segment, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
            // half a record's worth of garbage, as a write cut short by a power loss leaves it
            channel.write(ByteBuffer.wrap(new byte[] {0x13, 0x37, 0x00, 0x42, 0x7F, 0x01, 0x02}));
        }
        try (ServerProcess server = ServerProcess.start(dataDir, ARGS)) {
            assertThat(server.output()).as("the cut is reported").contains("namespace 'default' recovered from damage");
            assertAllPresent(server, acknowledged);
            HttpResponse<String> added = get(server, "/checkthenadd?e=after-the-tear");
            assertThat(added.body()).isEqualTo("MISSING\n");
        }
    }

    @Test
    void everyAcknowledgedAddToAnExactNamespaceSurvivesKillNineAndATornLogTail() throws Exception {
        String[] args = {"--fsync", "always", "--default-kind", "exact", "--default-params", "window=1h"};
        List<String> acknowledged = Collections.synchronizedList(new ArrayList<>());
        try (ServerProcess server = ServerProcess.start(dataDir, args)) {
            loadThen(server, acknowledged, "x", server::kill);
        }
        assertThat(acknowledged).hasSizeGreaterThanOrEqualTo(5_000);
        // RocksDB's write-ahead log, cut short as a power loss leaves it
        Path wal = newest(dataDir.resolve("default").resolve("db"), "\\d+\\.log");
        try (FileChannel channel = FileChannel.open(wal, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
            channel.write(ByteBuffer.wrap(new byte[] {0x13, 0x37, 0x00, 0x42, 0x7F, 0x01, 0x02}));
        }
        try (ServerProcess server = ServerProcess.start(dataDir, args)) {
            assertThat(get(server, "/namespaces/default").body()).contains("\"kind\":\"exact\"");
            assertAllPresent(server, acknowledged);
            assertThat(get(server, "/checkthenadd?e=x-after-restart").body()).isEqualTo("MISSING\n");
            assertThat(get(server, "/checkthenadd?e=" + acknowledged.get(0)).body())
                    .isEqualTo("PRESENT\n");
        }
    }

    /** The count of an exact namespace is not a counter kept in memory: a stop or a crash leaves it as it was. */
    @Test
    void anExactNamespacesCountSurvivesSigtermAndKillNine() throws Exception {
        String[] args = {"--fsync", "always", "--default-kind", "exact", "--default-params", "window=1h"};
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 5001; i++) {
            keys.add("counted-" + i);
        }
        try (ServerProcess server = ServerProcess.start(dataDir, args)) {
            assertThat(post(server, "/batch?op=add", String.join("\n", keys)).statusCode())
                    .isEqualTo(200);
            assertThat(get(server, "/namespaces/default").body()).contains("\"count\":5001");
            assertThat(server.terminate()).isEqualTo(143);
        }
        try (ServerProcess server = ServerProcess.start(dataDir, args)) {
            assertThat(get(server, "/namespaces/default").body())
                    .as("after SIGTERM")
                    .contains("\"count\":5001");
            assertThat(get(server, "/metrics").body())
                    .contains("deja_namespace_keys{kind=\"exact\",namespace=\"default\"} 5001.0");
            assertThat(get(server, "/add?e=one-more").body()).isEqualTo("ADDED\n");
            server.kill();
        }
        try (ServerProcess server = ServerProcess.start(dataDir, args)) {
            // without the filters a clean stop keeps, the count is RocksDB's estimate until they are read back
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            String info = get(server, "/namespaces/default").body();
            while (!info.contains("\"count\":5002") && System.nanoTime() < deadline) {
                Thread.sleep(50);
                info = get(server, "/namespaces/default").body();
            }
            assertThat(info).as("after kill -9").contains("\"count\":5002");
        }
    }

    @Test
    void sigtermStopsCleanlyAndKeepsEverything() throws Exception {
        // settings from the environment this time, as a container would pass them
        Map<String, String> environment = Map.of(
                "DEJA_FSYNC",
                "no",
                "DEJA_DEFAULT_KIND",
                "recent",
                "DEJA_DEFAULT_PARAMS",
                "keys=100000",
                "DEJA_SNAPSHOT_INTERVAL",
                "0");
        try (ServerProcess server = ServerProcess.start(dataDir, environment)) {
            assertThat(get(server, "/info").body()).contains("\"fsync\":\"no\"", "\"defaultKind\":\"recent\"");
            for (int i = 0; i < 100; i++) {
                assertThat(get(server, "/add?e=term-" + i).body()).isEqualTo("ADDED\n");
            }
            // a JVM ended by SIGTERM exits with 128 + 15 once its shutdown hook has run
            assertThat(server.terminate()).isEqualTo(143);
            assertThat(server.output()).contains("deja stopped");
        }
        try (ServerProcess server = ServerProcess.start(dataDir, environment)) {
            for (int i = 0; i < 100; i++) {
                assertThat(get(server, "/check?e=term-" + i).body()).isEqualTo("PRESENT\n");
            }
        }
    }

    @Test
    void sigusr1WritesASnapshotWhileServing() throws Exception {
        String[] args = {"--default-kind", "recent", "--default-params", "keys=100000", "--snapshot-interval", "0"};
        try (ServerProcess server = ServerProcess.start(dataDir, args)) {
            assertThat(get(server, "/add?e=before-usr1").body()).isEqualTo("ADDED\n");
            assertThat(snapshots(dataDir.resolve("default"))).isEmpty();
            server.signal("USR1");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (snapshots(dataDir.resolve("default")).isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(snapshots(dataDir.resolve("default"))).hasSize(1);
            assertThat(get(server, "/check?e=before-usr1").body()).isEqualTo("PRESENT\n");
        }
    }

    /**
     * SIGUSR1 while the namespaces load neither ends the process (the signal's default action, which applies until the
     * handler is installed) nor is lost: the snapshot is taken once the server serves. The default namespace here is a
     * 256 MiB filter, whose snapshot takes a while to load: the window the signal is sent in. A write journaled after
     * the last snapshot gives the signal's snapshot something to write.
     */
    @Test
    void sigusr1WhileTheNamespacesLoadIsTakenOnceTheServerServes() throws Exception {
        String[] args = {"--snapshot-interval", "0", "--default-params", "bits=2147483648,k=10"};
        try (ServerProcess first = ServerProcess.start(dataDir, args)) {
            assertThat(get(first, "/add?e=snapshotted").body()).isEqualTo("ADDED\n");
            assertThat(first.terminate()).isEqualTo(143);
        }
        try (ServerProcess second = ServerProcess.start(dataDir, args)) {
            assertThat(get(second, "/add?e=journaled").body()).isEqualTo("ADDED\n");
            second.kill();
        }
        Path namespace = dataDir.resolve("default");
        assertThat(snapshots(namespace)).hasSize(1);
        try (ServerProcess server = ServerProcess.launch(dataDir, args)) {
            server.awaitOutput("starting: loading the namespaces");
            server.signal("USR1");
            server.awaitOutput("HTTP on http://");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (snapshots(namespace).size() < 2 && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(snapshots(namespace))
                    .as("the snapshot the signal asked for")
                    .hasSize(2);
            assertThat(get(server, "/check?e=journaled").body()).isEqualTo("PRESENT\n");
        }
    }

    /**
     * A recent namespace never drops a message because of a full disk: the keys of a write answered 503 are not kept,
     * in memory or in the journal, so the client's retry is answered "new" (before, the keys stayed in memory and
     * reached the journal once the disk recovered, so the retry was answered PRESENT and the message was lost).
     */
    @Test
    void aWriteRefusedForAFullDiskIsNotRecordedSoItsRetryIsNew() throws Exception {
        String[] args = {
            "--fsync",
            "always",
            "--default-kind",
            "recent",
            "--default-params",
            "keys=100000",
            "--snapshot-interval",
            "0"
        };
        List<String> kept = new ArrayList<>();
        try (ServerProcess server = ServerProcess.start(dataDir, args)) {
            for (int i = 0; i < 100; i++) {
                kept.add("kept-" + i);
            }
            assertThat(post(server, "/batch?op=add", String.join("\n", kept)).statusCode())
                    .isEqualTo(200);
            Path segment = newestJournalSegment(dataDir.resolve("default"));
            FileSizeLimit.set(server.pid(), Long.toString(Files.size(segment))); // no file may grow: a full disk

            HttpResponse<String> refused = post(server, "/batch?op=checkthenadd", "lost-1\nlost-2\nkept-3");
            assertThat(refused.statusCode()).as(refused.body()).isEqualTo(503);
            assertThat(refused.body()).contains("File too large").contains("nothing this call added is kept");
            assertThat(post(server, "/batch?op=check", "lost-1\nlost-2\nkept-3").body())
                    .as("reads are served, and see nothing of the refused write")
                    .isEqualTo("MMP\n");

            FileSizeLimit.set(server.pid(), "unlimited");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            HttpResponse<String> retried = get(server, "/checkthenadd?e=lost-1");
            while (retried.statusCode() == 503 && System.nanoTime() < deadline) {
                Thread.sleep(100);
                retried = get(server, "/checkthenadd?e=lost-1");
            }
            assertThat(retried.body()).as("the retry of the refused write").isEqualTo("MISSING\n");
            kept.add("lost-1");
            server.kill();
        }
        try (ServerProcess server = ServerProcess.start(dataDir, args)) {
            assertAllPresent(server, kept);
            assertThat(get(server, "/check?e=lost-2").body())
                    .as("refused and never retried")
                    .isEqualTo("MISSING\n");
        }
    }

    /**
     * A server restarted while the disk is full comes up: bloom and recent namespaces recover and answer reads, and
     * refuse writes until a journal segment can be started; once the disk has room they take writes again.
     */
    @Test
    void aServerRestartedOnAFullDiskServesReadsAndTakesWritesOnceThereIsRoom() throws Exception {
        String[] args = {"--default-kind", "recent", "--default-params", "keys=100000"};
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            keys.add("before-" + i);
        }
        try (ServerProcess server = ServerProcess.start(dataDir, args)) {
            assertThat(put(server, "/namespaces/b", "{\"kind\":\"bloom\",\"params\":{\"capacity\":\"10000\"}}")
                            .statusCode())
                    .isEqualTo(201);
            assertThat(post(server, "/batch?op=add", String.join("\n", keys)).statusCode())
                    .isEqualTo(200);
            assertThat(post(server, "/batch?op=add&ns=b", String.join("\n", keys))
                            .statusCode())
                    .isEqualTo(200);
            assertThat(server.terminate()).as("SIGTERM exit status").isEqualTo(143);
        }
        try (ServerProcess server = ServerProcess.startOnAFullDisk(dataDir, args)) {
            assertAllPresent(server, keys);
            assertThat(post(server, "/batch?op=check&ns=b", String.join("\n", keys))
                            .body()
                            .strip())
                    .isEqualTo("P".repeat(keys.size()));
            for (String ns : List.of("default", "b")) {
                HttpResponse<String> refused = get(server, "/checkthenadd?e=after&ns=" + ns);
                assertThat(refused.statusCode()).as(refused.body()).isEqualTo(503);
                assertThat(refused.body()).contains("File too large").contains("reads continue");
            }
            assertThat(get(server, "/metrics").body())
                    .as("an operator sees it")
                    .contains("deja_namespace_writes_failing{kind=\"recent\",namespace=\"default\"} 1.0")
                    .contains("deja_namespace_writes_failing{kind=\"bloom\",namespace=\"b\"} 1.0");

            FileSizeLimit.set(server.pid(), "unlimited");
            for (String ns : List.of("default", "b")) {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                HttpResponse<String> added = get(server, "/checkthenadd?e=after&ns=" + ns);
                while (added.statusCode() == 503 && System.nanoTime() < deadline) {
                    Thread.sleep(100);
                    added = get(server, "/checkthenadd?e=after&ns=" + ns);
                }
                assertThat(added.body()).as(ns).isEqualTo("MISSING\n");
            }
            assertThat(get(server, "/metrics").body())
                    .contains("deja_namespace_writes_failing{kind=\"recent\",namespace=\"default\"} 0.0");
            server.kill();
        }
        keys.add("after");
        try (ServerProcess server = ServerProcess.start(dataDir, args)) {
            assertAllPresent(server, keys);
            assertThat(get(server, "/check?e=after&ns=b").body()).isEqualTo("PRESENT\n");
        }
    }

    private static List<Path> snapshots(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().matches("snapshot-\\d+\\.snap"))
                    .toList();
        }
    }

    /** What a test does to the server while it is under load. */
    private interface Blow {
        void strike();
    }

    /**
     * Four writers send batches of adds (the keys of a 200 reply are acknowledged); once 5,000 keys are acknowledged,
     * while they are still writing, {@code blow} strikes the server.
     */
    private static void loadThen(ServerProcess server, List<String> acknowledged, String prefix, Blow blow)
            throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService writers = Executors.newFixedThreadPool(4);
        for (int w = 0; w < 4; w++) {
            int writer = w;
            writers.execute(() -> {
                for (int batch = 0; !stop.get(); batch++) {
                    List<String> keys = new ArrayList<>();
                    for (int i = 0; i < 50; i++) {
                        keys.add(prefix + "-" + writer + "-" + batch + "-" + i);
                    }
                    try {
                        HttpResponse<String> reply = post(server, "/batch?op=add", String.join("\n", keys));
                        if (reply.statusCode() == 200) {
                            acknowledged.addAll(keys);
                        }
                    } catch (IOException | InterruptedException e) {
                        return;
                    }
                }
            });
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (acknowledged.size() < 5_000 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        blow.strike();
        stop.set(true);
        writers.shutdown();
        assertThat(writers.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    }

    private static void assertAllPresent(ServerProcess server, List<String> keys) throws Exception {
        for (int from = 0; from < keys.size(); from += 10_000) {
            List<String> chunk = keys.subList(from, Math.min(keys.size(), from + 10_000));
            String verdicts = post(server, "/batch?op=check", String.join("\n", chunk))
                    .body()
                    .strip();
            assertThat(verdicts).hasSize(chunk.size());
            int missing = verdicts.indexOf('M');
            assertThat(missing)
                    .as("acknowledged key %s is missing after the restart", missing < 0 ? "" : chunk.get(missing))
                    .isEqualTo(-1);
        }
    }

    private static Path newestJournalSegment(Path dir) throws IOException {
        return newest(dir, "journal-\\d+\\.log");
    }

    /** The last, by name, of the files under {@code dir} whose names match {@code pattern}. */
    private static Path newest(Path dir, String pattern) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile)
                    .filter(f -> f.getFileName().toString().matches(pattern))
                    .max(Comparator.comparing(Path::toString))
                    .orElseThrow(() -> new IllegalStateException("no file matching " + pattern + " in " + dir));
        }
    }

    private static HttpResponse<String> get(ServerProcess server, String path) throws Exception {
        return HTTP.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.httpPort() + path))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> put(ServerProcess server, String path, String body) throws Exception {
        return HTTP.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.httpPort() + path))
                        .timeout(Duration.ofSeconds(20))
                        .PUT(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> post(ServerProcess server, String path, String body)
            throws IOException, InterruptedException {
        return HTTP.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.httpPort() + path))
                        .timeout(Duration.ofSeconds(20))
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
