package dev.deja.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.testing.RawCommands;
import dev.deja.testing.TestServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Exact namespaces served over RESP and HTTP: created with parameters, owners, errors, restarts and checkpoints. */
class ExactNamespaceTest {

    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final String ID = "3b241101-e2bb-4255-8caf-4136c566a962";
    private static final String OTHER = "1f0e6c1a-7d2b-4c3e-9a8f-0123456789ab";

    @TempDir
    Path dataDir;

    @Test
    void checkThenAddWithOwnersOverRespAndHttp() throws Exception {
        try (TestServer server = TestServer.start(dataDir);
                Client c = new Client(server)) {
            assertThat(c.raw.status(
                            "DJ.CREATE", "ev", "exact", "window", "1h", "idFormat", "uuid", "countDuplicates", "true"))
                    .isEqualTo("OK");
            assertThat(c.raw.status("DJ.CHECKTHENADD", "ev", ID, "7")).isEqualTo("NEW");
            assertThat(c.raw.status("DJ.CHECKTHENADD", "ev", ID, "7"))
                    .as("same owner again")
                    .isEqualTo("RETRY");
            assertThat(c.raw.status("DJ.CHECKTHENADD", "ev", ID, "8")).isEqualTo("DUPLICATE");
            assertThat(c.raw.status("DJ.CHECKTHENADD", "ev", ID.toUpperCase(Locale.ROOT)))
                    .as("UUIDs are case-blind")
                    .isEqualTo("DUPLICATE");
            assertThat(c.raw.list("DJ.MCHECKTHENADD", "ev", OTHER, ID, OTHER))
                    .containsExactly("NEW", "DUPLICATE", "DUPLICATE");
            assertThat(c.raw.list("DJ.KEYINFO", "ev", ID))
                    .containsSubsequence("owner", 7L)
                    .containsSubsequence("duplicates", 3L);
            assertThat(c.raw.status("DJ.KEYINFO", "ev", "00000000-0000-4000-8000-000000000000"))
                    .isNull();

            assertThat(http(server, "/checkthenadd?ns=ev&e=" + ID).body()).isEqualTo("PRESENT\n");
            assertThat(http(server, "/check?ns=ev&e=" + OTHER).body()).isEqualTo("PRESENT\n");
            String third = "c0ffee00-0000-4000-8000-000000000001";
            assertThat(http(server, "/checkthenadd?ns=ev&e=" + third).body()).isEqualTo("MISSING\n");
            assertThat(http(server, "/checkthenadd?ns=ev&e=" + third).body()).isEqualTo("PRESENT\n");

            assertThat(c.raw.integer("DJ.FORGET", "ev", OTHER, "99"))
                    .as("not ours")
                    .isZero();
            assertThat(c.raw.integer("DJ.FORGET", "ev", OTHER)).isOne();
            assertThat(c.raw.integer("DJ.CHECK", "ev", OTHER)).isZero();

            String info = http(server, "/namespaces/ev").body();
            assertThat(info)
                    .contains(
                            "\"kind\":\"exact\"",
                            "\"window\":\"1h\"",
                            "\"idFormat\":\"uuid\"",
                            "EXACT_WITHIN_WINDOW",
                            "effectiveWindowSeconds");
        }
    }

    @Test
    void badParametersAndKeysAreClearErrorsThatChangeNothing() throws Exception {
        try (TestServer server = TestServer.start(dataDir);
                Client c = new Client(server)) {
            assertThatThrownBy(() -> c.raw.status("DJ.CREATE", "e1", "exact", "window", "1x"))
                    .hasMessageContaining("window: '1x' is not a duration");
            // zero is out of range, named with the range, as a window under a second is
            assertThatThrownBy(() -> c.raw.status("DJ.CREATE", "e1", "exact", "window", "0s"))
                    .hasMessageContaining("window must be at least 1s, or none with a maxBytes (got 0s)");
            assertThatThrownBy(() -> c.raw.status("DJ.CREATE", "e1", "exact", "minWindow", "PT-1S"))
                    .hasMessageContaining("minWindow must be at least 1ms, or none (got PT-1S)");
            assertThatThrownBy(() -> c.raw.status("DJ.CREATE", "e1", "exact", "window", "none"))
                    .hasMessageContaining("exact needs a window, a maxBytes, or both");
            assertThatThrownBy(() -> c.raw.status("DJ.CREATE", "e1", "exact", "idFormat", "base64"))
                    .hasMessageContaining("idFormat must be one of raw, hex, uuid");
            assertThatThrownBy(() -> c.raw.status("DJ.CREATE", "e1", "exact", "colour", "blue"))
                    .hasMessageContaining("unknown parameter 'colour' for kind exact");
            assertThat(c.raw.list("DJ.LIST")).doesNotContain("e1");

            assertThat(c.raw.status("DJ.CREATE", "e2", "exact", "idFormat", "hex"))
                    .isEqualTo("OK");
            assertThatThrownBy(() -> c.raw.status("DJ.CHECKTHENADD", "e2", "xyz"))
                    .hasMessageContaining("hex");
            assertThat(c.raw.integer("DJ.CHECK", "e2", "abcd")).isZero();
            assertThat(http(server, "/checkthenadd?ns=e2&e=nothex").statusCode())
                    .isEqualTo(400);

            assertThat(c.raw.status("DJ.CREATE", "e3", "exact", "idFormat", "hex"))
                    .isEqualTo("OK");
            assertThatThrownBy(() -> c.raw.status("DJ.MERGE", "e2", "e3"))
                    .hasMessage("ERR namespaces of kind 'exact' cannot be merged; only bloom namespaces can");
            assertThat(c.raw.status("DJ.CREATE", "r1", "recent", "keys", "1000"))
                    .isEqualTo("OK");
            assertThat(c.raw.status("DJ.CREATE", "r2", "recent", "keys", "1000"))
                    .isEqualTo("OK");
            assertThatThrownBy(() -> c.raw.status("DJ.MERGE", "r1", "r2"))
                    .hasMessage("ERR namespaces of kind 'recent' cannot be merged; only bloom namespaces can");
            assertThatThrownBy(() -> c.raw.list("BF.SCANDUMP", "e2", "0")).hasMessageContaining("cannot be dumped");
            assertThatThrownBy(() -> c.raw.list("DJ.KEYINFO", "default", "k"))
                    .hasMessageContaining("this needs an exact namespace");
        }
    }

    /**
     * Parameters outside the exact store's own ranges are refused before anything is written: failing only when the
     * store opens would leave a namespace directory that stops the next start.
     */
    @Test
    void parametersOutsideTheStoresRangesAreRefusedUpFrontOverHttpAndResp() throws Exception {
        String[][] refused = {
            {"memtable", "1", "memtable must be in [64k, 16g] (got 1)"},
            {"memtable", "0", "memtable must be in [64k, 16g] (got 0)"},
            {"memtable", "65535", "memtable must be in [64k, 16g] (got 65535)"},
            {"memtable", "17g", "memtable must be in [64k, 16g] (got 17g)"},
            {"blockCache", "0", "blockCache must be at least 1m (got 0)"},
            {"blockCache", "1048575", "blockCache must be at least 1m (got 1048575)"},
            {"window", "1ms", "window must be at least 1s, or none with a maxBytes (got 1ms)"},
            {"window", "100ms", "window must be at least 1s, or none with a maxBytes (got 100ms)"},
            {"window", "P99999999999D", "window must be at most 26687997791d (got P99999999999D)"},
            {"minWindow", "0.5ms", "minWindow must be at least 1ms, or none (got 0.5ms)"},
            {"maxValueBytes", "1025k", "maxValueBytes must be in [0, 1m] (got 1025k)"},
            {
                "maxBytes",
                "1",
                "maxBytes must be at least generations x memtable = 8 x 16m = 128m, or none with a"
                        + " window (got 1): each generation's share must hold one memtable; for a smaller bound, lower"
                        + " memtable (to 64k at least) or generations (to 2 at least)"
            },
        };
        try (TestServer server = TestServer.start(dataDir);
                Client c = new Client(server)) {
            for (String[] r : refused) {
                // a size-only store for maxBytes, so that the bound is all there is to refuse
                List<String> params =
                        r[0].equals("maxBytes") ? List.of(r[0], r[1], "window", "none") : List.of(r[0], r[1]);
                StringBuilder json = new StringBuilder("{\"kind\":\"exact\",\"params\":{");
                for (int i = 0; i < params.size(); i += 2) {
                    json.append(i == 0 ? "" : ",")
                            .append('"')
                            .append(params.get(i))
                            .append("\":\"")
                            .append(params.get(i + 1))
                            .append('"');
                }
                HttpResponse<String> created =
                        put(server, "/namespaces/e12", json.append("}}").toString());
                assertThat(created.statusCode()).as("%s", params).isEqualTo(400);
                assertThat(created.body()).as("%s", params).contains(r[2]);
                List<String> args = new ArrayList<>(List.of("e12", "exact"));
                args.addAll(params);
                assertThatThrownBy(() -> c.raw.status("DJ.CREATE", args.toArray(String[]::new)))
                        .as("%s", params)
                        .hasMessage("ERR " + r[2]);
                assertThat(dataDir.resolve("e12")).as("%s", params).doesNotExist();
                assertThat(http(server, "/namespaces/e12").statusCode()).isEqualTo(404);
            }
            // the smallest of each is fine
            assertThat(c.raw.status(
                            "DJ.CREATE",
                            "e13",
                            "exact",
                            "window",
                            "1s",
                            "minWindow",
                            "1ms",
                            "memtable",
                            "64k",
                            "blockCache",
                            "1m",
                            "generations",
                            "2",
                            "maxBytes",
                            "128k"))
                    .isEqualTo("OK");
            // sizes take the same units everywhere
            assertThat(c.raw.status("DJ.CREATE", "e14", "exact", "values", "true", "maxValueBytes", "1m"))
                    .isEqualTo("OK");
            assertThat(http(server, "/namespaces/e14").body()).contains("\"maxValueBytes\":\"1048576\"");
        }
        try (TestServer server = TestServer.start(dataDir);
                Client c = new Client(server)) {
            assertThat(c.raw.list("DJ.LIST")).contains("e13").doesNotContain("e12");
        }
    }

    @Test
    void keysSurviveARestartAndACheckpointRestoresIntoANewDataDir(@TempDir Path restored) throws Exception {
        Path checkpoint;
        try (TestServer server = TestServer.start(dataDir);
                Client c = new Client(server)) {
            c.raw.status("DJ.CREATE", "ev", "exact", "window", "2h");
            assertThat(c.raw.list("DJ.MCHECKTHENADD", "ev", "a", "b", "c")).containsOnly("NEW");
            assertThat(c.raw.status("DJ.SNAPSHOT", "ev")).isEqualTo("Background saving started");
            checkpoint = awaitCheckpoint(dataDir.resolve("ev").resolve("checkpoints"));
            c.raw.status("DJ.CHECKTHENADD", "ev", "after-checkpoint");
        }
        try (TestServer server = TestServer.start(dataDir);
                Client c = new Client(server)) {
            assertThat(c.raw.list("DJ.MCHECK", "ev", "a", "b", "c", "after-checkpoint", "d"))
                    .containsExactly(1L, 1L, 1L, 1L, 0L);
        }
        // a new data dir from the checkpoint: the namespace's metadata file plus the checkpoint as its db
        Files.createDirectories(restored.resolve("ev"));
        Files.copy(
                dataDir.resolve("ev").resolve("namespace.properties"),
                restored.resolve("ev").resolve("namespace.properties"));
        copyTree(checkpoint, restored.resolve("ev").resolve("db"));
        try (TestServer server = TestServer.start(restored);
                Client c = new Client(server)) {
            assertThat(c.raw.list("DJ.MCHECK", "ev", "a", "b", "c", "after-checkpoint"))
                    .containsExactly(1L, 1L, 1L, 0L);
        }
    }

    @Test
    void theDefaultNamespaceCanBeExact() throws Exception {
        try (TestServer server = TestServer.start(
                dataDir,
                b -> b.defaultSpec(dev.deja.namespace.NamespaceSpec.parse("exact", "window=10m,generations=4")))) {
            assertThat(http(server, "/checkthenadd?e=hello").body()).isEqualTo("MISSING\n");
            assertThat(http(server, "/checkthenadd?e=hello").body()).isEqualTo("PRESENT\n");
            assertThat(http(server, "/namespaces/default").body())
                    .contains("\"window\":\"10m\"", "\"generations\":\"4\"");
        }
    }

    /**
     * A lookup that meets a damaged table file is an error, never "new", and not a persistence error: not Redis's
     * MISCONF prefix (nor HTTP 503, "try later"), which a write refused by a full disk gets.
     */
    @Test
    void aDamagedTableFileIsAReadErrorNeverANewKey() throws Exception {
        int keys = 60_000;
        try (TestServer server = TestServer.start(dataDir);
                Client c = new Client(server)) {
            c.raw.status("DJ.CREATE", "dmg", "exact", "memtable", "1m", "blockCache", "1m");
            for (int from = 0; from < keys; from += 1000) {
                List<String> batch = new ArrayList<>(List.of("dmg"));
                for (int i = from; i < from + 1000; i++) {
                    batch.add(damageKey(i));
                }
                assertThat(c.raw.list("DJ.MCHECKTHENADD", batch.toArray(String[]::new)))
                        .containsOnly("NEW");
            }
        }
        List<Path> tables;
        try (Stream<Path> files = Files.list(dataDir.resolve("dmg").resolve("db"))) {
            tables = files.filter(
                            f -> f.toString().endsWith(".sst") && f.toFile().length() > 100_000)
                    .toList();
        }
        assertThat(tables).isNotEmpty();
        for (Path table : tables) { // 16 bytes of a data block a third of the way in
            try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(
                    table, java.nio.file.StandardOpenOption.READ, java.nio.file.StandardOpenOption.WRITE)) {
                java.nio.ByteBuffer bytes = java.nio.ByteBuffer.allocate(16);
                ch.read(bytes, ch.size() / 3);
                for (int i = 0; i < 16; i++) {
                    bytes.put(i, (byte) (bytes.get(i) ^ 0x5A));
                }
                ch.write(bytes.rewind(), ch.size() / 3);
            }
        }
        try (TestServer server = TestServer.start(dataDir);
                Client c = new Client(server)) {
            String damaged = null;
            String error = null;
            for (int i = 0; i < keys && damaged == null; i++) {
                try {
                    assertThat(c.raw.integer("DJ.CHECK", "dmg", damageKey(i)))
                            .as("key %d", i)
                            .isOne();
                } catch (io.lettuce.core.RedisCommandExecutionException e) {
                    damaged = damageKey(i);
                    error = e.getMessage();
                }
            }
            assertThat(error)
                    .as("a key in a damaged block")
                    .isNotNull()
                    .startsWith("ERR exact store could not read (corruption");
            HttpResponse<String> check = http(server, "/check?ns=dmg&e=" + damaged);
            assertThat(check.statusCode()).as(check.body()).isEqualTo(500);
            assertThat(check.body()).contains("corruption");
        }
    }

    private static String damageKey(int i) {
        return Long.toHexString(i * 0x9E3779B97F4A7C15L);
    }

    private static Path awaitCheckpoint(Path checkpoints) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            if (Files.isDirectory(checkpoints)) {
                try (Stream<Path> list = Files.list(checkpoints)) {
                    // a checkpoint is written under a .tmp name and renamed when complete
                    List<Path> done = list.filter(
                                    d -> !d.getFileName().toString().endsWith(".tmp"))
                            .filter(d -> Files.isRegularFile(d.resolve("CURRENT")))
                            .toList();
                    if (!done.isEmpty()) {
                        return done.getFirst();
                    }
                }
            }
            Thread.sleep(20);
        }
        throw new AssertionError("no checkpoint appeared in " + checkpoints);
    }

    private static void copyTree(Path from, Path to) throws Exception {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path f : files.toList()) {
                Files.copy(f, to.resolve(from.relativize(f).toString()));
            }
        }
    }

    private static HttpResponse<String> put(TestServer server, String path, String json) throws Exception {
        return HTTP.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.httpPort() + path))
                        .header("Content-Type", "application/json")
                        .PUT(HttpRequest.BodyPublishers.ofString(json))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> http(TestServer server, String path) throws Exception {
        return HTTP.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.httpPort() + path))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** A Lettuce connection to the server's RESP port. */
    private static final class Client implements AutoCloseable {
        final RedisClient client;
        final StatefulRedisConnection<String, String> connection;
        final RawCommands raw;

        Client(TestServer server) {
            client = RedisClient.create(RedisURI.builder()
                    .withHost("127.0.0.1")
                    .withPort(server.respPort())
                    .withTimeout(Duration.ofSeconds(10))
                    .build());
            connection = client.connect();
            raw = new RawCommands(connection.sync());
        }

        @Override
        public void close() {
            connection.close();
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }
}
