package dev.deja.resp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.testing.Race;
import dev.deja.testing.RawCommands;
import dev.deja.testing.TestServer;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.ArrayOutput;
import io.lettuce.core.probabilistic.BfInfoValue;
import io.lettuce.core.probabilistic.ScanDumpValue;
import io.lettuce.core.probabilistic.arguments.BfInsertArgs;
import io.lettuce.core.probabilistic.arguments.BfReserveArgs;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.ProtocolVersion;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The RESP front end driven by Lettuce (RESP3 after HELLO, and RESP2) the way RedisBloom users call it. */
class RespProtocolTest {

    @TempDir
    static Path dataDir;

    private static TestServer server;
    private static RedisClient client;
    private static StatefulRedisConnection<String, String> connection;
    private static RedisCommands<String, String> redis;

    @BeforeAll
    static void start() throws Exception {
        server = TestServer.start(
                dataDir, b -> b.maxKeyBytes(100).maxBodyBytes(64 * 1024).maxBatch(1000));
        client = RedisClient.create(RedisURI.builder()
                .withHost("127.0.0.1")
                .withPort(server.respPort())
                .withTimeout(Duration.ofSeconds(10))
                .build());
        connection = client.connect();
        redis = connection.sync();
    }

    @AfterAll
    static void stop() {
        connection.close();
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        server.close();
    }

    @Test
    void connectionCommandsRealClientsSend() {
        assertThat(redis.ping()).isEqualTo("PONG");
        assertThat(redis.echo("hi")).isEqualTo("hi");
        assertThat(redis.clientSetname("tester")).isEqualTo("OK");
        assertThat(redis.clientGetname()).isEqualTo("tester");
        assertThat(redis.clientId()).isPositive();
        assertThat(redis.select(0)).isEqualTo("OK");
        assertThatThrownBy(() -> redis.select(1)).hasMessageContaining("DB index is out of range");
        assertThat(redis.info()).contains("deja_version:").contains("redis_version:");
        assertThat(redis.commandCount()).isGreaterThan(20L);
        assertThat(redis.configGet("appendfsync")).containsExactly(Map.entry("appendfsync", "everysec"));
        assertThat(redis.configGet("maxmemory")).isEmpty();
        assertThatThrownBy(() -> redis.hget("x", "f"))
                .isInstanceOf(RedisCommandExecutionException.class)
                .hasMessage("ERR unknown command 'HGET', with args beginning with: 'x' 'f' ");
    }

    @Test
    void bloomCommandsAsRedisBloomUsersCallThem() {
        assertThat(redis.bfReserve("bf-a", 0.01, 1000, BfReserveArgs.Builder.nonScaling()))
                .isEqualTo("OK");
        assertThat(redis.bfAdd("bf-a", "one")).isTrue();
        assertThat(redis.bfAdd("bf-a", "one")).isFalse();
        assertThat(redis.bfMAdd("bf-a", "two", "three", "two")).containsExactly(true, true, false);
        assertThat(redis.bfExists("bf-a", "two")).isTrue();
        assertThat(redis.bfExists("bf-a", "nine")).isFalse();
        assertThat(redis.bfMExists("bf-a", "one", "nine", "three")).containsExactly(true, false, true);
        assertThat(redis.bfCard("bf-a")).isEqualTo(3);
        assertThat(redis.bfExists("bf-missing", "x")).isFalse();
        assertThat(redis.bfCard("bf-missing")).isZero();

        BfInfoValue info = redis.bfInfo("bf-a");
        assertThat(info.getCapacity()).isEqualTo(1000);
        assertThat(info.getNumberOfFilters()).isEqualTo(1);
        assertThat(info.getNumberOfItemsInserted()).isEqualTo(3);
        assertThat(info.getSize()).isPositive();

        assertThat(redis.bfInsert("bf-b", BfInsertArgs.Builder.capacity(500).error(0.001), "x", "y", "x"))
                .containsExactly(true, true, false);
        assertThat(redis.bfInfo("bf-b").getCapacity()).isEqualTo(500);
        assertThatThrownBy(() -> redis.bfInsert("bf-c", BfInsertArgs.Builder.noCreate(), "x"))
                .hasMessage("ERR not found");
        assertThat(redis.bfAdd("bf-auto", "x")).isTrue();
    }

    @Test
    void bloomErrorsUseRedisBloomStrings() {
        redis.bfReserve("bf-err", 0.01, 100);
        assertThatThrownBy(() -> redis.bfReserve("bf-err", 0.01, 100)).hasMessage("ERR item exists");
        assertThatThrownBy(() -> redis.bfReserve("bf-err2", 1.5, 100)).hasMessage("ERR (0 < error rate range < 1)");
        assertThatThrownBy(() -> redis.bfReserve("bf-err2", 0.01, 0))
                .hasMessage("ERR (capacity should be larger than 0)");
        assertThatThrownBy(() -> raw("BF.RESERVE", "bf-err2", "often", "100")).hasMessage("ERR bad error rate");
        assertThatThrownBy(() -> raw("BF.RESERVE", "bf-err2", "0.1", "lots")).hasMessage("ERR bad capacity");
        assertThatThrownBy(() -> raw("BF.RESERVE", "bf-err2", "0.1", "10", "EXPANSION", "0"))
                .hasMessage("ERR bad expansion");
        assertThatThrownBy(() -> raw("BF.RESERVE", "bf-err2", "0.1", "10", "EXPANSION"))
                .hasMessage("ERR no expansion");
        assertThatThrownBy(() -> raw("BF.RESERVE", "bf-err2", "0.1", "10", "EXPANSION", "2", "NONSCALING"))
                .hasMessage("Nonscaling filters cannot expand");
        assertThatThrownBy(() -> raw("BF.RESERVE", "bf-err2", "0.1", "10", "NONSCALING", "EXPANSION", "2"))
                .hasMessage("Nonscaling filters cannot expand");
        // numbers as Redis reads them: Java's parsers also take these
        assertThatThrownBy(() -> raw("BF.RESERVE", "bf-err2", "0.01", "+100")).hasMessage("ERR bad capacity");
        assertThatThrownBy(() -> raw("BF.RESERVE", "bf-err2", "0.01", "0100")).hasMessage("ERR bad capacity");
        assertThatThrownBy(() -> raw("BF.RESERVE", "bf-err2", "0.01d", "100")).hasMessage("ERR bad error rate");
        assertThatThrownBy(() -> raw("BF.RESERVE", "bf-err2", " 0.01", "100")).hasMessage("ERR bad error rate");
        assertThatThrownBy(() -> raw("BF.RESERVE", "bf-err2", "NaN", "100")).hasMessage("ERR bad error rate");
        assertThatThrownBy(() -> raw("BF.RESERVE", "bf-err2", "0.1", "10", "EXPANSION", "+2"))
                .hasMessage("ERR bad expansion");
        assertThatThrownBy(() -> raw("BF.INSERT", "bf-err2", "CAPACITY", "+100", "ITEMS", "a"))
                .hasMessage("Bad capacity");
        assertThat(raw("BF.RESERVE", "bf-num", "1e-3", "100"))
                .as("an exponent is a number to Redis too")
                .isEqualTo("OK");
        assertThatThrownBy(() -> raw("BF.SCANDUMP", "bf-err", "first")).hasMessage("Second argument must be numeric");
        assertThatThrownBy(() -> raw("BF.LOADCHUNK", "bf-err3", "first", "data"))
                .hasMessage("ERR Second argument must be numeric");
        // BF.INSERT has error strings of its own in RedisBloom, without the ERR prefix
        assertThatThrownBy(() -> raw("BF.INSERT", "bf-err2", "COLOUR", "red", "ITEMS", "a"))
                .hasMessage("Unknown argument received");
        assertThatThrownBy(() -> raw("BF.INSERT", "bf-err2", "ERROR", "often", "ITEMS", "a"))
                .hasMessage("Bad error rate");
        assertThatThrownBy(() -> raw("BF.INSERT", "bf-err2", "CAPACITY", "lots", "ITEMS", "a"))
                .hasMessage("Bad capacity");
        assertThatThrownBy(() -> raw("BF.INSERT", "bf-err2", "EXPANSION", "x", "ITEMS", "a"))
                .hasMessage("Bad expansion");
        for (String[] outOfRange : List.of(
                new String[] {"ERROR", "1.5"}, new String[] {"CAPACITY", "0"}, new String[] {"EXPANSION", "0"})) {
            assertThatThrownBy(() -> raw("BF.INSERT", "bf-err2", outOfRange[0], outOfRange[1], "ITEMS", "a"))
                    .hasMessage("Bad argument received");
        }
        assertThatThrownBy(() -> raw("BF.INSERT", "bf-err2", "CAPACITY", "0", "ITEMS"))
                .as("the items are checked for before the values' range")
                .hasMessage("ERR wrong number of arguments for 'bf.insert' command");
        assertThatThrownBy(() -> redis.bfInfo("bf-err2"))
                .as("a refused BF.RESERVE creates nothing")
                .hasMessage("ERR not found");
        assertThatThrownBy(() -> raw("BF.ADD", "bf-err"))
                .hasMessage("ERR wrong number of arguments for 'bf.add' command");
        assertThatThrownBy(() -> redis.bfInfo("bf-nope")).hasMessage("ERR not found");
        assertThatThrownBy(() -> raw("BF.INFO", "bf-err", "COLOUR")).hasMessage("ERR Invalid information value");
        assertThatThrownBy(() -> redis.bfAdd("bf-err", "k".repeat(101))).hasMessageContaining("at most 100 bytes");
        assertThatThrownBy(() -> redis.bfMAdd("bf-err", "fine", "k".repeat(101)))
                .hasMessageContaining("at most 100 bytes");
        assertThat(redis.bfExists("bf-err", "fine"))
                .as("a refused batch changes nothing")
                .isFalse();
        assertThatThrownBy(() -> redis.bfAdd("../x", "k")).hasMessageContaining("namespace name must be");
    }

    /** A copy of a namespace's directory, in a data dir of its own. */
    private static Path copyOf(Path namespace) throws java.io.IOException {
        Path copy = Files.createTempDirectory(dataDir, "copy").resolve(namespace.getFileName());
        Files.createDirectories(copy);
        try (java.util.stream.Stream<Path> files = Files.list(namespace)) {
            for (Path file : files.toList()) {
                Files.copy(file, copy.resolve(file.getFileName()));
            }
        }
        return copy;
    }

    @Test
    void scanDumpAndLoadChunkCopyAFilter() {
        redis.bfReserve("dump-src", 0.01, 1000);
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            keys.add("key-" + i);
        }
        redis.bfMAdd("dump-src", keys.toArray(String[]::new));
        List<ScanDumpValue> chunks = new ArrayList<>();
        long iterator = 0;
        while (true) {
            ScanDumpValue chunk = redis.bfScanDump("dump-src", iterator);
            if (chunk.getIterator() == 0) {
                break;
            }
            chunks.add(chunk);
            iterator = chunk.getIterator();
        }
        assertThat(chunks).isNotEmpty();
        for (ScanDumpValue chunk : chunks) {
            assertThat(redis.bfLoadChunk("dump-dst", chunk.getIterator(), chunk.getData()))
                    .isEqualTo("OK");
        }
        assertThat(redis.bfMExists("dump-dst", "key-0", "key-299", "other")).containsExactly(true, true, false);
        assertThat(redis.bfInfo("dump-dst").getCapacity()).isEqualTo(1000);
        assertThatThrownBy(() -> redis.bfLoadChunk("dump-dst", 7, new byte[] {1}))
                .hasMessageContaining("iterator");
    }

    /**
     * Two clients dumping the same key at once each read their own dump: the dumps shared one staged file per key,
     * so the second start replaced the first's file, the first read the second's chunks, and whoever finished first
     * deleted the file the other was reading ("no dump in progress").
     */
    @Test
    void twoDumpsOfOneKeyAtOnceEachReadTheirOwn() {
        redis.bfReserve("twin-src", 0.01, 1000);
        redis.bfMAdd("twin-src", "before-0", "before-1");
        List<ScanDumpValue> first = new ArrayList<>(List.of(redis.bfScanDump("twin-src", 0)));
        String[] between = new String[20];
        for (int i = 0; i < between.length; i++) {
            between[i] = "between-" + i;
        }
        redis.bfMAdd("twin-src", between);
        List<ScanDumpValue> second = new ArrayList<>(List.of(redis.bfScanDump("twin-src", 0)));
        assertThat(first.getFirst().getIterator())
                .isNotEqualTo(second.getFirst().getIterator());
        for (List<ScanDumpValue> dump : List.of(first, second)) {
            while (dump.getLast().getIterator() != 0) {
                dump.add(redis.bfScanDump("twin-src", dump.getLast().getIterator()));
            }
        }
        for (ScanDumpValue chunk : first.subList(0, first.size() - 1)) {
            assertThat(redis.bfLoadChunk("twin-first", chunk.getIterator(), chunk.getData()))
                    .isEqualTo("OK");
        }
        for (ScanDumpValue chunk : second.subList(0, second.size() - 1)) {
            assertThat(redis.bfLoadChunk("twin-second", chunk.getIterator(), chunk.getData()))
                    .isEqualTo("OK");
        }
        assertThat(redis.bfMExists("twin-first", "before-0", "before-1")).containsOnly(true);
        assertThat(redis.bfMExists("twin-first", between))
                .as("added after the first dump began")
                .contains(false);
        assertThat(redis.bfMExists("twin-second", between)).containsOnly(true);
    }

    @Test
    void aKeyKeepsAtMostFourDumpsInProgressAndEndsTheOldest() {
        redis.bfReserve("many-dumps", 0.01, 1000);
        List<Long> next = new ArrayList<>();
        for (int i = 0; i < DumpTransfers.DUMPS_PER_NAMESPACE + 1; i++) {
            next.add(redis.bfScanDump("many-dumps", 0).getIterator());
        }
        assertThatThrownBy(() -> redis.bfScanDump("many-dumps", next.getFirst()))
                .hasMessageContaining("ERR no dump in progress for this key at iterator " + next.getFirst());
        for (long iterator : next.subList(1, next.size())) {
            assertThat(redis.bfScanDump("many-dumps", iterator).getIterator()).isZero(); // one chunk: ended
        }
        assertThatThrownBy(() -> redis.bfScanDump("many-dumps", next.get(1)))
                .as("ended, so gone")
                .hasMessageContaining("no dump in progress");
    }

    @Test
    void transfersNobodyContinuedForTenMinutesAreRemoved(@TempDir Path other) throws Exception {
        java.util.concurrent.atomic.AtomicReference<java.time.Instant> now =
                new java.util.concurrent.atomic.AtomicReference<>(java.time.Instant.parse("2026-01-01T00:00:00Z"));
        java.time.Clock clock = new java.time.Clock() {
            @Override
            public java.time.ZoneId getZone() {
                return java.time.ZoneOffset.UTC;
            }

            @Override
            public java.time.Clock withZone(java.time.ZoneId zone) {
                return this;
            }

            @Override
            public java.time.Instant instant() {
                return now.get();
            }
        };
        try (TestServer own = TestServer.start(other, b -> b)) {
            own.server().context().namespaces().create("idle", "bloom", java.util.Map.of("capacity", "1000"));
            DumpTransfers transfers = new DumpTransfers(own.server().context(), clock);
            transfers.scanDump(own.server().context().namespaces().get("idle"), 0);
            byte[] length =
                    java.nio.ByteBuffer.allocate(Long.BYTES).putLong(100).array();
            assertThat(transfers.loadChunk("idle-load", 1, length)).isEqualTo(Replies.OK);
            Path staging = other.resolve(".transfers");
            try (Stream<Path> files = Files.list(staging)) {
                assertThat(files.map(f -> f.getFileName().toString().substring(0, 5))
                                .sorted())
                        .containsExactly("dump-", "load-");
            }
            now.set(now.get().plus(DumpTransfers.IDLE).plusSeconds(1));
            transfers.scanDump(own.server().context().namespaces().get("idle"), 0); // any later transfer sweeps
            try (Stream<Path> files = Files.list(staging)) {
                assertThat(files.map(f -> f.getFileName().toString().substring(0, 5)))
                        .as("only the dump just started")
                        .containsExactly("dump-");
            }
        }
    }

    @Test
    void theLastLoadChunkIsAnsweredOnceTheFilterIsOnDisk() throws Exception {
        redis.bfReserve("durable-src", 0.01, 20_000_000); // 24 MiB: its snapshot takes a while to write
        redis.bfMAdd("durable-src", "key-0", "key-1", "key-2");
        List<ScanDumpValue> chunks = new ArrayList<>();
        for (long iterator = 0; ; ) {
            ScanDumpValue chunk = redis.bfScanDump("durable-src", iterator);
            if (chunk.getIterator() == 0) {
                break;
            }
            chunks.add(chunk);
            iterator = chunk.getIterator();
        }
        for (ScanDumpValue chunk : chunks) {
            assertThat(redis.bfLoadChunk("durable-dst", chunk.getIterator(), chunk.getData()))
                    .isEqualTo("OK");
        }
        // the files as they are right after the OK, as a kill -9 would leave them, hold the loaded filter
        Path crashed = copyOf(dataDir.resolve("durable-dst"));
        TestServer restarted = TestServer.start(crashed.getParent(), b -> b);
        try (RedisClient second = RedisClient.create(RedisURI.create("127.0.0.1", restarted.respPort()));
                StatefulRedisConnection<String, String> c = second.connect()) {
            assertThat(c.sync().bfMExists("durable-dst", "key-0", "key-2", "other"))
                    .containsExactly(true, true, false);
        } finally {
            restarted.close();
        }
    }

    @Test
    void aLoadAnnouncingMoreThanANamespaceMayHoldIsRefusedAndStagesNothing() throws Exception {
        byte[] announced =
                java.nio.ByteBuffer.allocate(Long.BYTES).putLong(1L << 40).array(); // a TiB dump
        assertThatThrownBy(() -> redis.bfLoadChunk("huge-load", 1, announced))
                .hasMessageContaining("ERR received bad data: the dump announces 1099511627776 bytes, more than a"
                        + " namespace may hold here");
        try (java.util.stream.Stream<Path> staged = Files.list(dataDir.resolve(".transfers"))) {
            assertThat(staged.filter(f -> f.getFileName().toString().startsWith("load-")))
                    .isEmpty();
        }
    }

    @Test
    void aLoadAnnouncingANegativeLengthIsRefusedAndStagesNothing() throws Exception {
        byte[] first =
                java.nio.ByteBuffer.allocate(Long.BYTES + 10).putLong(-100).array();
        // it was taken, and every later chunk appended without end: neither limit saw a negative length
        assertThatThrownBy(() -> redis.bfLoadChunk("negative-load", 1, first))
                .hasMessageContaining("ERR received bad data: the dump announces a negative length (-100 bytes)");
        try (java.util.stream.Stream<Path> staged = Files.list(dataDir.resolve(".transfers"))) {
            assertThat(staged.filter(f -> f.getFileName().toString().startsWith("load-")))
                    .isEmpty();
        }
        assertThatThrownBy(() -> redis.bfLoadChunk("negative-load", 2, new byte[100]))
                .hasMessageContaining("ERR invalid iterator 2");
    }

    @Test
    void transfersAPreviousRunLeftStagedAreRemovedAtStart(@TempDir Path other) throws Exception {
        Path staged = Files.createDirectories(other.resolve(".transfers")).resolve("load-123.dump");
        Files.write(staged, new byte[4096]);
        TestServer.start(other, b -> b).close();
        assertThat(staged).doesNotExist();
    }

    @Test
    void dejaCommandsForEveryKind() {
        assertThat(raw("DJ.CREATE", "dj-a", "recent", "keys", "1000")).isEqualTo("OK");
        assertThatThrownBy(() -> raw("DJ.CREATE", "dj-a", "recent", "keys", "1000"))
                .hasMessageContaining("already exists");
        assertThatThrownBy(() -> raw("DJ.CREATE", "dj-b", "recent", "keys", "-1"))
                .hasMessageContaining("keys must be in [1,");
        assertThatThrownBy(() -> raw("DJ.CREATE", "dj-b", "recent", "colour", "blue"))
                .hasMessageContaining("unknown parameter 'colour' for kind recent");
        // a bloom's message names the parameters of each of its forms, generations being one of the windowed form's
        assertThatThrownBy(() -> raw("DJ.CREATE", "dj-b", "bloom", "generations", "4"))
                .hasMessageContaining("unknown parameter 'generations' for kind bloom (known: bits, capacity, fpp, k;"
                        + " with a window: capacity, fpp, window, generations; with an expansion: capacity, fpp,"
                        + " expansion)");
        // as the HTTP API refuses a parameter given twice: a typo must not silently pick the store's size
        assertThatThrownBy(() -> raw("DJ.CREATE", "dj-b", "recent", "keys", "1000000", "ways", "8", "keys", "10"))
                .hasMessage("ERR parameter 'keys' is given twice");
        assertThat(rawList("DJ.LIST")).as("a refused DJ.CREATE creates nothing").doesNotContain("dj-b");
        assertThat(raw("DJ.CHECKTHENADD", "dj-a", "m1", "42")).isEqualTo("NEW");
        assertThat(raw("DJ.CHECKTHENADD", "dj-a", "m1", "42")).isEqualTo("RETRY");
        assertThat(raw("DJ.CHECKTHENADD", "dj-a", "m1")).isEqualTo("DUPLICATE");
        assertThat(rawList("DJ.MCHECKTHENADD", "dj-a", "WITHOWNERS", "m2", "1", "m1", "42", "m2", "2"))
                .containsExactly("NEW", "RETRY", "DUPLICATE");
        assertThat(rawList("DJ.MCHECKTHENADD", "dj-a", "m3", "m3")).containsExactly("NEW", "DUPLICATE");
        assertThat(rawInteger("DJ.FORGET", "dj-a", "m1", "7")).isZero();
        assertThat(rawInteger("DJ.FORGET", "dj-a", "m1", "42")).isOne();
        assertThat(rawInteger("DJ.CHECK", "dj-a", "m1")).isZero();
        assertThat(rawList("DJ.MCHECK", "dj-a", "m1", "m2")).containsExactly(0L, 1L);
        assertThat(rawList("DJ.LIST")).contains("dj-a", "default");
        assertThat(rawList("DJ.INFO", "dj-a")).contains("kind", "recent", "count");
        assertThat(raw("DJ.SNAPSHOT", "dj-a")).isEqualTo("Background saving started");
        assertThat(raw("DJ.DROP", "dj-a")).isEqualTo("OK");
        assertThat(rawList("DJ.LIST")).doesNotContain("dj-a");
        assertThat(rawInteger("DJ.CHECK", "dj-a", "m1"))
                .as("a missing namespace reads as empty")
                .isZero();
        assertThat(rawList("DJ.LIST")).as("checking does not create it").doesNotContain("dj-a");
    }

    @Test
    void aSingleKeyWriteRefusedForItsKeyCreatesNoNamespace() {
        // a namespace created on first use reserves its memory and its directory: a refused write must not make one
        for (String command : List.of("DJ.ADD", "DJ.CHECKTHENADD", "BF.ADD", "BF.MADD")) {
            assertThatThrownBy(() -> raw(command, "dj-badkey", "k".repeat(101)))
                    .hasMessageContaining("at most 100 bytes");
            assertThatThrownBy(() -> raw(command, "dj-badkey", "")).hasMessage("ERR key must be a non-empty string");
        }
        assertThat(rawList("DJ.LIST")).doesNotContain("dj-badkey");
    }

    @Test
    void aCommandHoldingMoreThanMaxBatchKeysIsRefusedAndChangesNothing() {
        List<String> args = new ArrayList<>(List.of("mb"));
        List<String> pairs = new ArrayList<>(List.of("mb", "WITHOWNERS"));
        for (int i = 0; i <= 1000; i++) { // --max-batch 1000 in this server: 1,001 keys
            args.add("mb-" + i);
            pairs.add("mb-" + i);
            pairs.add(Integer.toString(i + 1));
        }
        String refusal = "ERR a command may hold at most 1000 keys (--max-batch; got 1001)";
        assertThatThrownBy(() -> rawList("DJ.MCHECKTHENADD", args.toArray(String[]::new)))
                .hasMessage(refusal);
        assertThatThrownBy(() -> rawList("DJ.MCHECKTHENADD", pairs.toArray(String[]::new)))
                .hasMessage(refusal);
        assertThatThrownBy(() -> rawList("BF.MADD", args.toArray(String[]::new)))
                .hasMessage(refusal);
        assertThatThrownBy(() -> rawList("DJ.MCHECK", args.toArray(String[]::new)))
                .hasMessage(refusal);
        assertThatThrownBy(() -> rawInteger("DEL", args.subList(1, args.size()).toArray(String[]::new)))
                .hasMessage(refusal);
        assertThat(rawInteger("DJ.CHECK", "mb", "mb-0")).as("nothing was added").isZero();
        args.removeLast();
        assertThat(redis.bfMAdd("mb", args.subList(1, args.size()).toArray(String[]::new)))
                .as("1000 keys are fine")
                .hasSize(1000);
    }

    @Test
    void mergeUnitesTwoBloomNamespacesOfTheSameShape() {
        redis.bfReserve("merge-x", 0.01, 100);
        redis.bfReserve("merge-y", 0.01, 100);
        redis.bfReserve("merge-z", 0.01, 200);
        redis.bfAdd("merge-x", "x");
        redis.bfAdd("merge-y", "y");
        assertThat(raw("DJ.MERGE", "merge-x", "merge-y")).isEqualTo("OK");
        assertThat(redis.bfMExists("merge-x", "x", "y")).containsExactly(true, true);
        assertThatThrownBy(() -> raw("DJ.MERGE", "merge-x", "merge-z"))
                .hasMessageContaining("same kind and parameters");
    }

    @Test
    void pipelinedCommandsAllGetTheirReplies() throws Exception {
        try (StatefulRedisConnection<String, String> pipelined = client.connect()) {
            pipelined.setAutoFlushCommands(false);
            RedisAsyncCommands<String, String> async = pipelined.async();
            List<RedisFuture<Boolean>> adds = new ArrayList<>();
            for (int i = 0; i < 2000; i++) {
                adds.add(async.bfAdd("piped", "k" + (i % 1000)));
            }
            pipelined.flushCommands();
            assertThat(LettuceFutures.awaitAll(10, TimeUnit.SECONDS, adds.toArray(RedisFuture[]::new)))
                    .isTrue();
            long firstTimes =
                    adds.stream().filter(f -> f.toCompletableFuture().join()).count();
            assertThat(firstTimes).isEqualTo(1000);
            for (int i = 0; i < 1000; i++) {
                assertThat(adds.get(i).get()).as("first add of k" + i).isTrue();
            }
        }
    }

    @Test
    void gatheredWritesAnswerInTheProtocolOfTheirConnection() throws Exception {
        // BF.ADD, SET NX and SETNX are gathered into one store call per turn, each answered with its own reply:
        // RESP2's integers and null bulk string before HELLO 3, RESP3's booleans and null after it
        String twice = String.join(
                "\r\n",
                "BF.ADD proto a",
                "BF.ADD proto a",
                "SET proto:k v NX",
                "SET proto:k v NX",
                "SETNX proto:n v",
                "SETNX proto:n v",
                "");
        String resp2 = server.respExchange(twice.replace("proto", "proto2"), ":1\r\n:0\r\n");
        assertThat(resp2).isEqualTo(":1\r\n:0\r\n+OK\r\n$-1\r\n:1\r\n:0\r\n");
        String resp3 = server.respExchange("HELLO 3\r\nPING\r\n" + twice.replace("proto", "proto3"), ":1\r\n:0\r\n");
        assertThat(resp3.substring(resp3.indexOf("+PONG\r\n") + "+PONG\r\n".length()))
                .isEqualTo("#t\r\n#f\r\n+OK\r\n_\r\n:1\r\n:0\r\n");
    }

    @Test
    void gatheredAddsKeepEachConnectionsOrderAndRaceCorrectly() throws Exception {
        try (StatefulRedisConnection<String, String> pipelined = client.connect()) {
            pipelined.setAutoFlushCommands(false);
            RedisAsyncCommands<String, String> async = pipelined.async();
            // BF.ADD of one turn run as one call, but never after a later command of the same connection
            RedisFuture<Boolean> first = async.bfAdd("order", "x");
            RedisFuture<Boolean> seen = async.bfExists("order", "x");
            RedisFuture<Boolean> again = async.bfAdd("order", "x");
            RedisFuture<Boolean> other = async.bfAdd("order-2", "x");
            pipelined.flushCommands();
            assertThat(first.get()).isTrue();
            assertThat(seen.get()).as("a check sees the add sent before it").isTrue();
            assertThat(again.get()).isFalse();
            assertThat(other.get()).as("another namespace").isTrue();
        }
        int connections = 6;
        int keys = 400;
        List<List<Boolean>> replies = Race.run(client, connections, keys, (r, c, k) -> r.bfAdd("race", "k" + k));
        for (int k = 0; k < keys; k++) {
            int added = 0;
            for (int c = 0; c < connections; c++) {
                added += replies.get(c).get(k) ? 1 : 0;
            }
            assertThat(added).as("connections told k%d was new", k).isEqualTo(1);
        }
    }

    @Test
    void insertsCreatingTheSameFilterAtOnceAllAdd() throws Exception {
        // workers starting together each send BF.INSERT with CAPACITY to a filter none has created yet: as in
        // RedisBloom, the one that creates it and the others that find it created all add their items
        int connections = 6;
        int filters = 100;
        List<List<List<Boolean>>> replies = Race.run(
                client,
                connections,
                filters,
                (r, c, k) -> r.bfInsert(
                        "insert-race-" + k, BfInsertArgs.Builder.capacity(1000).error(0.01), "item-" + c));
        for (int c = 0; c < connections; c++) {
            for (int k = 0; k < filters; k++) {
                assertThat(replies.get(c).get(k))
                        .as("connection %d, filter %d", c, k)
                        .containsExactly(true);
            }
        }
        assertThat(redis.bfInfo("insert-race-0").getCapacity()).isEqualTo(1000);
    }

    @Test
    void resp2ClientsGetFlatArrays() {
        RedisClient resp2 = RedisClient.create(RedisURI.create("127.0.0.1", server.respPort()));
        resp2.setOptions(
                ClientOptions.builder().protocolVersion(ProtocolVersion.RESP2).build());
        try (StatefulRedisConnection<String, String> c = resp2.connect()) {
            c.sync().bfReserve("resp2", 0.01, 321);
            assertThat(c.sync().bfInfo("resp2").getCapacity()).isEqualTo(321);
            List<Object> flat = c.sync()
                    .dispatch(
                            new RawCommands.Word("BF.INFO"),
                            new ArrayOutput<>(StringCodec.UTF8),
                            new CommandArgs<>(StringCodec.UTF8).add("resp2"));
            assertThat(flat).hasSize(10).startsWith("Capacity", 321L);
        } finally {
            resp2.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    @Test
    void inlineCommandsWork() throws Exception {
        assertThat(exchange("PING\r\nECHO hello\r\n", 2)).isEqualTo("+PONG\r\n$5\r\nhello\r\n");
        // quoted as Redis quotes them (sdssplitargs): one argument with a blank, and escapes
        assertThat(exchange("ECHO \"hello world\"\r\nECHO 'it\\'s'\r\n", 2))
                .isEqualTo("$11\r\nhello world\r\n$4\r\nit's\r\n");
        assertThat(exchange("ECHO \"a\\x41\\tb\"\r\n", 1)).isEqualTo("$4\r\naA\tb\r\n");
        // unbalanced quotes end the connection, after the replies to what came before
        assertThat(exchange("PING\r\nECHO \"open\r\n", 2))
                .isEqualTo("+PONG\r\n-ERR Protocol error: unbalanced quotes in request\r\n");
    }

    @Test
    void argumentsSplitAcrossReadsAreJoined() throws Exception {
        String reply = exchangeInPieces(1, "*2\r\n$4\r\nEC", "HO\r\n$10\r\nhel", "lo", "world\r\n");
        assertThat(reply).isEqualTo("$10\r\nhelloworld\r\n");
    }

    @Test
    void emptyArgumentsAndEmptyCommands() throws Exception {
        // an empty command is ignored, as Redis does; an empty string is an argument like any other
        assertThat(exchange("*0\r\n*2\r\n$4\r\nECHO\r\n$0\r\n\r\nPING\r\n", 2)).isEqualTo("$0\r\n\r\n+PONG\r\n");
        // so is a null array where a command should be (Redis 7 answers nothing and keeps the connection)
        assertThat(exchange("*-1\r\nPING\r\n*-1\r\nECHO x\r\n", 2)).isEqualTo("+PONG\r\n$1\r\nx\r\n");
    }

    @Test
    void commandsThatAreNotFlatArraysOfStringsAreProtocolErrors() throws Exception {
        // answered in order: the PING before the bad command still gets its reply
        assertThat(exchange("PING\r\n*2\r\n$4\r\nECHO\r\n$-1\r\n", 2))
                .startsWith("+PONG\r\n-ERR Protocol error: expected an array of bulk strings");
        assertThat(exchange("PING\r\n*2\r\n$4\r\nECHO\r\n*1\r\n$1\r\nx\r\n", 2))
                .isEqualTo("+PONG\r\n-ERR Protocol error: a command is an array of bulk strings, not of arrays\r\n");
        assertThat(exchange("PING\r\n*2\r\n$4\r\nECHO\r\n$100000000\r\n", 2))
                .startsWith("+PONG\r\n-ERR Protocol error: a bulk string may be at most");
        assertThat(exchange("PING\r\n*1\r\n:12x\r\n", 2))
                .as("bytes the decoder cannot parse")
                .isEqualTo("+PONG\r\n-ERR Protocol error: bad byte in number: 120\r\n");
        assertThat(exchange("$4\r\nPING\r\n", 1)).startsWith("-ERR Protocol error");
        assertThat(exchange("*100000000\r\n", 1)).startsWith("-ERR Protocol error: a command may have at most");
        // each argument within --max-body-bytes (64 KiB here), together beyond it: refused at the third header,
        // before its bytes are buffered, so a command cannot hold the server's memory beyond the limit
        String part = "$40000\r\n" + "k".repeat(40_000) + "\r\n";
        assertThat(exchange("PING\r\n*4\r\n$7\r\nBF.MADD\r\n$3\r\nbig\r\n" + part + part, 2))
                .isEqualTo("+PONG\r\n-ERR Protocol error: the arguments of a command may hold at most 65536 bytes"
                        + " together\r\n");
        assertThat(redis.ping()).isEqualTo("PONG");
    }

    @Test
    void protocolErrorsCloseOnlyThatConnection() throws Exception {
        String reply = exchange("*2\r\n$6\r\nBF.ADD\r\n$100000000\r\n", 1);
        assertThat(reply).startsWith("-ERR Protocol error: a bulk string may be at most");
        String garbage = exchange("*1\r\n:5\r\n", 1);
        assertThat(garbage).startsWith("-ERR Protocol error");
        assertThat(redis.ping()).isEqualTo("PONG");
    }

    // ---- helpers ----

    private static String raw(String command, String... values) {
        return new RawCommands(redis).status(command, values);
    }

    private static Long rawInteger(String command, String... values) {
        return new RawCommands(redis).integer(command, values);
    }

    private static List<Object> rawList(String command, String... values) {
        return new RawCommands(redis).list(command, values);
    }

    /** Sends raw bytes and reads until {@code replies} replies' worth of lines or the server closes. */
    private static String exchange(String raw, int replies) throws Exception {
        return exchangeInPieces(replies, raw);
    }

    /** As {@link #exchange}, sending the pieces in separate writes far enough apart to arrive in separate reads. */
    private static String exchangeInPieces(int replies, String... pieces) throws Exception {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.respPort())) {
            socket.setSoTimeout(5_000);
            socket.setTcpNoDelay(true);
            OutputStream out = socket.getOutputStream();
            for (int i = 0; i < pieces.length; i++) {
                if (i > 0) {
                    Thread.sleep(50);
                }
                out.write(pieces[i].getBytes(StandardCharsets.UTF_8));
                out.flush();
            }
            InputStream in = socket.getInputStream();
            StringBuilder text = new StringBuilder();
            byte[] buffer = new byte[4096];
            int n;
            while ((n = in.read(buffer)) > 0) {
                text.append(new String(buffer, 0, n, StandardCharsets.UTF_8));
                if (text.toString().split("\r\n").length >= replies + (text.indexOf("$") >= 0 ? 1 : 0)) {
                    break;
                }
            }
            return text.toString();
        }
    }
}
