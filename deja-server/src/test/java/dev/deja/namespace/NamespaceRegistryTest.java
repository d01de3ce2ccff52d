package dev.deja.namespace;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.deja.bloom.BloomFilter;
import dev.deja.journal.FsyncPolicy;
import dev.deja.journal.JournaledSeenSet;
import dev.deja.journal.RecoveryReport;
import dev.deja.seen.SeenSet;
import dev.deja.testing.FixtureKind;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** Namespaces on disk: names, kinds and parameters, journaled content that survives reopening and damage. */
class NamespaceRegistryTest {

    private static final StoreKinds FIXTURE = StoreKinds.of(new FixtureKind("bloom"), new FixtureKind("recent"));
    private static final Durability DURABILITY = new Durability(FsyncPolicy.NO, Duration.ZERO);

    @TempDir
    Path dataDir;

    /** Where a test copies a data dir, as a crash would leave it. */
    @TempDir
    Path tmpCopy;

    private NamespaceRegistry open(StoreKinds kinds, boolean autoCreate) throws IOException {
        return open(kinds, autoCreate, 0);
    }

    private NamespaceRegistry open(StoreKinds kinds, boolean autoCreate, long memoryLimit) throws IOException {
        NamespaceRegistry registry = NamespaceRegistry.builder(dataDir)
                .kinds(kinds)
                .defaultSpec(NamespaceSpec.parse("bloom", "capacity=1000"))
                .autoCreate(autoCreate)
                .durability(DURABILITY)
                .limits(new NamespaceLimits(memoryLimit, 0, NamespaceLimits.DEFAULT_COUNT))
                .build();
        registry.open();
        return registry;
    }

    /** 1 MiB of bits (bloom) and 1 MiB of buckets (recent, 16 bytes each with owners). */
    private static final Map<String, String> ONE_MIB_BLOOM = Map.of("bits", Long.toString(8L << 20), "k", "7");

    private static final Map<String, String> ONE_MIB_RECENT = Map.of("buckets", Long.toString(1L << 16));
    /**
     * What the two reserve together: the bloom's heap is its bits, a little chunk overhead and 64 KiB of block locks,
     * which the messages round to 1.1 MiB.
     */
    private static final long ONE_MIB_EACH = BloomFilter.heapBytes(8L << 20) + (1L << 20);

    @Test
    void namespacesBeyondTheMemoryLimitAreRefusedBeforeAnythingIsWritten() throws IOException {
        long limit = 3L << 20;
        try (NamespaceRegistry registry = open(StoreKinds.standard(), /* autoCreate= */ true, limit)) {
            long defaultBytes = registry.memoryReserved(); // the default namespace's bits
            assertThat(registry.memoryLimit()).isEqualTo(limit);
            registry.create("a", "bloom", ONE_MIB_BLOOM);
            registry.create("r", "recent", ONE_MIB_RECENT);
            assertThat(registry.memoryReserved()).isEqualTo(defaultBytes + ONE_MIB_EACH);

            assertThatThrownBy(() -> registry.create("b", "bloom", ONE_MIB_BLOOM))
                    .isInstanceOfSatisfying(
                            NamespaceException.class,
                            e -> assertThat(e.problem()).isEqualTo(NamespaceException.Problem.NO_MEMORY))
                    .hasMessageContaining("namespace 'b' needs 1.1 MiB of memory when full")
                    .hasMessageContaining("of the server's 3.0 MiB namespace memory limit is free");
            assertThat(registry.find("b")).isEmpty();
            assertThat(dataDir.resolve("b")).doesNotExist();
            assertThat(registry.memoryReserved()).isEqualTo(defaultBytes + ONE_MIB_EACH);
            // a namespace created on first use is refused the same way
            assertThatThrownBy(() -> registry.getOrCreate("c", NamespaceSpec.parse("bloom", "bits=8388608,k=7")))
                    .isInstanceOf(NamespaceException.class)
                    .hasMessageContaining("namespace 'c' needs 1.1 MiB");

            // resolving the shape of a 1 TiB recent store must not allocate it (the test JVM would run out)
            assertThatThrownBy(() -> registry.create("vast", "recent", Map.of("buckets", Long.toString(1L << 36))))
                    .isInstanceOf(NamespaceException.class)
                    .hasMessageContaining("namespace 'vast' needs 1.0 TiB of memory when full");

            registry.delete("a"); // gives its memory back
            assertThat(registry.memoryReserved()).isEqualTo(defaultBytes + (1L << 20));
            assertThat(registry.create("b", "bloom", ONE_MIB_BLOOM).name()).isEqualTo("b");
        }
    }

    @Test
    void exactNamespacesReserveTheirRocksDbMemoryAgainstTheNativeLimit() throws IOException {
        // 8 MiB of block cache and three 1 MiB memtables: 11 MiB each
        Map<String, String> small = Map.of("blockCache", "8m", "memtable", "1m");
        try (NamespaceRegistry registry = NamespaceRegistry.builder(dataDir)
                .defaultSpec(NamespaceSpec.parse("bloom", "capacity=1000"))
                .durability(DURABILITY)
                .limits(new NamespaceLimits(0, 24L << 20, NamespaceLimits.DEFAULT_COUNT))
                .build()) {
            registry.open();
            assertThat(registry.nativeMemoryLimit()).isEqualTo(24L << 20);
            registry.create("e1", "exact", small);
            registry.create("e2", "exact", small);
            assertThat(registry.nativeMemoryReserved()).isEqualTo(22L << 20);
            long heapBefore = registry.memoryReserved();
            assertThatThrownBy(() -> registry.create("e3", "exact", small))
                    .isInstanceOfSatisfying(
                            NamespaceException.class,
                            e -> assertThat(e.problem()).isEqualTo(NamespaceException.Problem.NO_MEMORY))
                    .hasMessageContaining("namespace 'e3' needs 11.0 MiB of native memory (RocksDB's block cache and"
                            + " memtables) when full, but only 2.0 MiB of the server's 24.0 MiB native memory limit"
                            + " is free")
                    .hasMessageContaining("--native-memory-limit");
            assertThat(dataDir.resolve("e3")).doesNotExist();
            assertThat(registry.memoryReserved())
                    .as("nothing of the heap kept either")
                    .isEqualTo(heapBefore);
            registry.delete("e1");
            assertThat(registry.create("e3", "exact", small).name()).isEqualTo("e3");
            assertThat(registry.nativeMemoryReserved()).isEqualTo(22L << 20);
        }
    }

    /** A kind whose store writes a file, then fails to open with {@code failure}. */
    private static StoreKind failingKind(String name, Exception failure) {
        return new StoreKind() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public Map<String, String> parameters(Map<String, String> raw) {
                return Map.of();
            }

            @Override
            public long capacity(Map<String, String> parameters) {
                return 0;
            }

            @Override
            public long memoryBytes(Map<String, String> parameters) {
                return 1 << 20;
            }

            @Override
            public NamespaceStore open(
                    String namespace, Map<String, String> parameters, Path dir, Durability durability)
                    throws IOException {
                Files.writeString(dir.resolve("half-written"), "x");
                if (failure instanceof IOException io) {
                    throw io;
                }
                throw (RuntimeException) failure;
            }
        };
    }

    @Test
    void aStoreThatCannotOpenLeavesNothingBehindAndSaysWhy() throws IOException {
        StoreKinds kinds = StoreKinds.of(
                new FixtureKind("bloom"),
                failingKind("full", new IOException("No space left on device")),
                failingKind("odd", new IllegalStateException("the store refused")));
        Logger logger = (Logger) LoggerFactory.getLogger(NamespaceRemoval.class);
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        logged.start();
        logger.addAppender(logged);
        try (NamespaceRegistry registry = open(kinds, /* autoCreate= */ false, 64L << 20)) {
            long reserved = registry.memoryReserved();
            assertThatThrownBy(() -> registry.create("e12", "full", Map.of()))
                    .isInstanceOf(UncheckedIOException.class)
                    .hasMessage("cannot create namespace 'e12' in " + dataDir + ": No space left on device");
            assertThatThrownBy(() -> registry.create("e13", "odd", Map.of()))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("the store refused");
            assertThat(dataDir.resolve("e12")).doesNotExist();
            assertThat(dataDir.resolve("e13")).doesNotExist();
            assertThat(registry.find("e12")).isEmpty();
            assertThat(registry.memoryReserved()).as("memory given back").isEqualTo(reserved);

            // a directory that was there before is not ours: only the metadata we wrote goes
            Files.createDirectories(dataDir.resolve("e14"));
            Files.writeString(dataDir.resolve("e14").resolve("someone-elses"), "y");
            assertThatThrownBy(() -> registry.create("e14", "full", Map.of()))
                    .hasMessageContaining("No space left on device");
            assertThat(dataDir.resolve("e14").resolve(NamespaceMetadata.FILE)).doesNotExist();
            assertThat(dataDir.resolve("e14").resolve("someone-elses")).exists();
        } finally {
            logger.detachAppender(logged);
        }
        assertThat(logged.list)
                .filteredOn(e -> e.getLevel() == Level.WARN)
                .hasSize(3)
                .allSatisfy(e -> assertThat(e.getFormattedMessage()).startsWith("could not create namespace 'e1"))
                .allSatisfy(e ->
                        assertThat(e.getThrowableProxy()).as("with its cause").isNotNull());
        try (NamespaceRegistry registry = open(kinds, /* autoCreate= */ false)) {
            assertThat(registry.list()).extracting(Namespace::name).containsExactly("default");
        }
    }

    /** A data dir holding a namespace whose parameters the exact store does not accept. */
    @Test
    void aNamespaceThatCannotLoadIsNotServedAndNamedWithItsDirectory() throws IOException {
        Path dir = dataDir.resolve("e12");
        Files.createDirectories(dir);
        Files.writeString(dir.resolve(NamespaceMetadata.FILE), "name=e12\nkind=exact\nparam.memtable=1\n");
        try (NamespaceRegistry registry = open(StoreKinds.standard(), /* autoCreate= */ true)) {
            assertThatThrownBy(() -> registry.get("e12"))
                    .isInstanceOf(NamespaceException.class)
                    .hasMessageContaining("namespace 'e12' is not served: it could not be opened (namespace 'e12'"
                            + " cannot be loaded: " + dir.resolve(NamespaceMetadata.FILE)
                            + ": memtable must be in [64k, 16g] (got 1))")
                    .hasMessageEndingWith("Its metadata cannot be read, so it cannot be reset; DJ.DROP e12 deletes it");
            assertThatThrownBy(() -> registry.reset("e12", ResetFrom.EMPTY))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("namespace 'e12' cannot be reset: its metadata cannot be read")
                    .hasMessageContaining("DJ.DROP e12 deletes it");
            registry.delete("e12");
            assertThat(dir).doesNotExist();
        }
    }

    @Test
    void aBadMetadataFileIsReportedWithWhatIsWrong() throws IOException {
        Path dir = dataDir.resolve("broken");
        Files.createDirectories(dir);
        Path file = dir.resolve(NamespaceMetadata.FILE);
        Map<String, String> contents = Map.of(
                "", "is empty or holds no property; it must name the kind, one of [bloom, recent, exact, cuckoo]",
                "\\u00zz\n", "cannot be read: java.lang.IllegalArgumentException: Malformed \\uxxxx encoding.",
                "name=broken\nparam.buckets=10\n", "has no 'kind' property; it must name the kind, one of",
                "kind=recent\nparam.buckets=abc\n", "buckets must be an integer in [1, ",
                "kind=sideways\n", "kind must be one of [bloom, recent, exact, cuckoo] (got 'sideways')");
        for (Map.Entry<String, String> c : contents.entrySet()) {
            Files.writeString(file, c.getKey());
            try (NamespaceRegistry registry = open(StoreKinds.standard(), /* autoCreate= */ true)) {
                assertThatThrownBy(() -> registry.get("broken"))
                        .as(c.getKey())
                        .isInstanceOf(NamespaceException.class)
                        .hasMessageContaining("it could not be opened (namespace 'broken' cannot be loaded: " + file
                                + ": " + c.getValue());
            }
        }
    }

    @Test
    void directoriesWithNamesTheApiRefusesAreSkippedWithAWarning() throws IOException {
        Logger logger = (Logger) LoggerFactory.getLogger(NamespaceMetadata.class);
        ListAppender<ILoggingEvent> events = new ListAppender<>();
        events.start();
        logger.addAppender(events);
        try {
            for (String name : List.of("bad name!", ".hidden")) {
                Files.createDirectories(dataDir.resolve(name));
                Files.writeString(dataDir.resolve(name).resolve(NamespaceMetadata.FILE), "kind=bloom\n");
            }
            try (NamespaceRegistry registry = open(FIXTURE, /* autoCreate= */ true)) {
                assertThat(registry.list()).extracting(Namespace::name).containsExactly("default");
            }
            assertThat(events.list)
                    .filteredOn(e -> e.getLevel() == Level.WARN)
                    .extracting(ILoggingEvent::getFormattedMessage)
                    .anySatisfy(m -> assertThat(m).startsWith(dataDir.resolve("bad name!") + " skipped"))
                    .anySatisfy(m -> assertThat(m).startsWith(dataDir.resolve(".hidden") + " skipped"));
            assertThat(dataDir.resolve("bad name!").resolve(NamespaceMetadata.FILE))
                    .as("left as it was")
                    .exists();
        } finally {
            logger.detachAppender(events);
        }
    }

    @Test
    void namespacesBeyondTheCountLimitAreRefused() throws IOException {
        NamespaceLimits three = new NamespaceLimits(0, 0, 3);
        try (NamespaceRegistry registry = NamespaceRegistry.builder(dataDir)
                .kinds(FIXTURE)
                .defaultSpec(NamespaceSpec.parse("bloom", "capacity=1000"))
                .durability(DURABILITY)
                .limits(three)
                .build()) {
            registry.open(); // default
            registry.create("a", "bloom", Map.of());
            registry.getOrCreate("b"); // created on first use
            assertThatThrownBy(() -> registry.create("c", "recent", Map.of()))
                    .isInstanceOfSatisfying(
                            NamespaceException.class,
                            e -> assertThat(e.problem()).isEqualTo(NamespaceException.Problem.TOO_MANY))
                    .hasMessage("cannot create namespace 'c': the server holds at most 3 namespaces"
                            + " (--max-namespaces); delete one first");
            assertThatThrownBy(() -> registry.getOrCreate("c")).isInstanceOf(NamespaceException.class);
            assertThat(dataDir.resolve("c")).doesNotExist();
            registry.delete("a");
            assertThat(registry.create("c", "recent", Map.of()).name()).isEqualTo("c");
        }
        // a lower limit than the data dir holds: it still opens, and nothing more can be created
        try (NamespaceRegistry registry = NamespaceRegistry.builder(dataDir)
                .kinds(FIXTURE)
                .defaultSpec(NamespaceSpec.parse("bloom", "capacity=1000"))
                .durability(DURABILITY)
                .limits(new NamespaceLimits(0, 0, 1))
                .build()) {
            registry.open();
            assertThat(registry.list()).extracting(Namespace::name).containsExactly("b", "c", "default");
            assertThatThrownBy(() -> registry.create("d", "bloom", Map.of()))
                    .hasMessageContaining("at most 1 namespaces");
        }
    }

    @Test
    void aDataDirWhoseNamespacesExceedTheLimitDoesNotOpen() throws IOException {
        try (NamespaceRegistry registry = open(StoreKinds.standard(), /* autoCreate= */ true, 4L << 20)) {
            registry.create("a", "bloom", ONE_MIB_BLOOM);
            registry.create("b", "bloom", ONE_MIB_BLOOM);
            registry.get("a")
                    .checkThenAdd(List.of("kept".getBytes(UTF_8)), null)
                    .join();
        }
        NamespaceRegistry small = NamespaceRegistry.builder(dataDir)
                .defaultSpec(NamespaceSpec.parse("bloom", "capacity=1000"))
                .durability(DURABILITY)
                .limits(new NamespaceLimits(3L << 19, 0, NamespaceLimits.DEFAULT_COUNT))
                .build();
        assertThatThrownBy(small::open) // a fits, b does not
                .isInstanceOf(NamespaceException.class)
                .hasMessageContaining(
                        "namespace 'b' (in " + dataDir.resolve("b") + ") needs 1.1 MiB of memory when full");
        // what it loaded before the refusal was closed again, so the data dir opens with a larger limit
        try (NamespaceRegistry registry = open(StoreKinds.standard(), /* autoCreate= */ true, 4L << 20)) {
            assertThat(registry.list()).extracting(Namespace::name).containsExactly("a", "b", "default");
            assertThat(registry.get("a").store().check("kept".getBytes(UTF_8))).isTrue();
        }
    }

    @Test
    void namesThatCouldLeaveTheDataDirAreRefused() throws IOException {
        try (NamespaceRegistry registry = open(FIXTURE, /* autoCreate= */ true)) {
            for (String bad : new String[] {"", "..", "../x", "a/b", ".hidden", "a\\b", "x".repeat(129), "sp ace"}) {
                assertThatThrownBy(() -> registry.create(bad, "bloom", Map.of()))
                        .as(bad)
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("namespace name must be");
            }
            assertThat(registry.create("bf:users-2026.v1_a", "bloom", Map.of()).name())
                    .isEqualTo("bf:users-2026.v1_a");
        }
    }

    @Test
    void unknownNamespaceIsAClearErrorWhenAutoCreateIsOff() throws IOException {
        try (NamespaceRegistry registry = open(FIXTURE, /* autoCreate= */ false)) {
            assertThatThrownBy(() -> registry.getOrCreate("nope"))
                    .isInstanceOf(NamespaceException.class)
                    .hasMessageContaining("namespace 'nope' does not exist");
            assertThat(registry.find("nope")).isEmpty();
            assertThat(registry.getOrCreate(Namespace.DEFAULT).name()).isEqualTo("default");
        }
    }

    @Test
    void realKindsResolveTheirParametersToAShape() throws IOException {
        try (NamespaceRegistry registry = open(StoreKinds.standard(), /* autoCreate= */ true)) {
            Namespace a = registry.create("shape-a", "bloom", Map.of("capacity", "10000", "fpp", "0.01"));
            Namespace b = registry.create(
                    "shape-b",
                    "bloom",
                    Map.of(
                            "bits",
                            a.parameters().get("bits"),
                            "k",
                            a.parameters().get("k"),
                            "capacity",
                            "10000"));
            assertThat(b.parameters()).isEqualTo(a.parameters()).containsKeys("bits", "k", "capacity");
            Namespace recent = registry.create("shape-r", "recent", Map.of("keys", "1000"));
            assertThat(recent.parameters()).containsEntry("ways", "8").containsEntry("owners", "true");
            assertThatThrownBy(() -> registry.create("shape-c", "bloom", Map.of("bits", "1000", "k", "3")))
                    .hasMessageContaining("bits");
            assertThatThrownBy(() -> registry.create("shape-c", "bloom", Map.of("k", "3")))
                    .hasMessageContaining("k needs bits");
        }
    }

    @Test
    void kindParametersAndContentSurviveAReopen() throws IOException {
        try (NamespaceRegistry registry = open(StoreKinds.standard(), /* autoCreate= */ true)) {
            registry.create("kept", "recent", Map.of("keys", "1000"));
            registry.get("kept")
                    .checkThenAdd(List.of("a".getBytes(UTF_8)), new long[] {7})
                    .join();
        }
        try (NamespaceRegistry reopened = open(StoreKinds.standard(), /* autoCreate= */ true)) {
            Namespace kept = reopened.get("kept");
            assertThat(kept.kind().name()).isEqualTo("recent");
            assertThat(kept.store().check("a".getBytes(UTF_8))).isTrue();
            assertThat(kept.checkThenAdd(List.of("a".getBytes(UTF_8)), new long[] {7})
                            .join()[0]
                            .name())
                    .as("the owner survived too")
                    .isEqualTo("RETRY");
            assertThat(reopened.list()).extracting(Namespace::name).containsExactly("default", "kept");
        }
    }

    @Test
    void aClearRacingADeleteLeavesTheNameFreeOrTheNamespaceWhole() throws Exception {
        try (NamespaceRegistry registry = open(StoreKinds.standard(), /* autoCreate= */ true)) {
            for (int round = 0; round < 20; round++) {
                registry.create("raced", "bloom", Map.of("capacity", "100000"));
                registry.get("raced")
                        .checkThenAdd(List.of("k".getBytes(UTF_8)), null)
                        .join();
                java.util.concurrent.CountDownLatch start = new java.util.concurrent.CountDownLatch(1);
                Thread deleter = Thread.ofPlatform().start(() -> {
                    awaitQuietly(start);
                    registry.delete("raced");
                });
                Thread clearer = Thread.ofPlatform().start(() -> {
                    awaitQuietly(start);
                    try {
                        registry.clear("raced");
                    } catch (NamespaceException deletedFirst) {
                        // unknown: the delete ran first, which is one of the two right outcomes
                    }
                });
                start.countDown();
                deleter.join();
                clearer.join();
                assertThat(registry.find("raced")).as("round %d", round).isEmpty();
                assertThat(dataDir.resolve("raced"))
                        .as("round %d: nothing left behind", round)
                        .doesNotExist();
            }
        }
    }

    @Test
    void aClearIsNotRefusedForAFileThatVanishesWhileItsFilesAreChecked() throws Exception {
        // A snapshot writes a temporary file, renames it into place and prunes older ones. The check before a clear
        // walks the namespace's files, and one may go away between being listed and being looked at: that must not
        // refuse the clear. The thread below does what the snapshot thread does to the directory, as fast as it can.
        try (NamespaceRegistry registry = open(StoreKinds.standard(), /* autoCreate= */ true)) {
            registry.create("busy", "recent", Map.of("buckets", "4096"));
            Path dir = dataDir.resolve("busy");
            java.util.concurrent.atomic.AtomicLong files = new java.util.concurrent.atomic.AtomicLong();
            List<String> refusals = clearWhile(registry, "busy", 300, () -> {
                long i = files.incrementAndGet();
                try {
                    Path written = Files.createFile(dir.resolve("churn-" + i + ".snap.tmp"));
                    Path renamed = Files.move(written, dir.resolve("churn-" + i + ".snap"));
                    Files.delete(renamed);
                } catch (IOException clearedMeanwhile) {
                    // the clear deletes what it finds in the directory; the churn goes on
                }
            });
            assertThat(refusals).as("clears refused while files came and went").isEmpty();
        }
    }

    /**
     * Writes racing clears land before or after each clear and none fails: a write that reaches the store a clear has
     * just closed is made again on the new store. Under {@code always} an exact write waits for a group sync, which may
     * meet the store closed by the clear; the write landed before the clear, and succeeds.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource({"recent, NO", "exact, NO", "recent, ALWAYS", "exact, ALWAYS"})
    void writesRacingClearsNeverFail(String kind, FsyncPolicy fsync) throws Exception {
        NamespaceRegistry opened = NamespaceRegistry.builder(dataDir)
                .defaultSpec(NamespaceSpec.parse("bloom", "capacity=1000"))
                .durability(new Durability(fsync, Duration.ZERO))
                .build();
        opened.open();
        try (NamespaceRegistry registry = opened) {
            registry.create("raced", kind, kind.equals("recent") ? Map.of("buckets", "4096") : Map.of());
            java.util.concurrent.atomic.AtomicBoolean running = new java.util.concurrent.atomic.AtomicBoolean(true);
            List<Throwable> failures = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
            java.util.concurrent.atomic.AtomicLong writes = new java.util.concurrent.atomic.AtomicLong();
            List<Thread> writers = new java.util.ArrayList<>();
            for (int w = 0; w < 2; w++) {
                int writer = w;
                writers.add(Thread.ofPlatform().start(() -> {
                    for (long i = 0; running.get(); i++) {
                        try {
                            registry.get("raced")
                                    .checkThenAdd(List.of(("w" + writer + "-" + i).getBytes(UTF_8)), null)
                                    .join();
                            registry.get("raced")
                                    .forget(List.of(("w" + writer + "-" + (i / 2)).getBytes(UTF_8)), null)
                                    .join();
                            writes.incrementAndGet();
                        } catch (RuntimeException e) {
                            failures.add(e);
                        }
                    }
                }));
            }
            try {
                for (int round = 0; round < 40; round++) {
                    registry.clear("raced");
                    Thread.sleep(5);
                }
            } finally {
                running.set(false);
                for (Thread writer : writers) {
                    writer.join();
                }
            }
            assertThat(failures).as("writes that failed, of %d", writes.get()).isEmpty();
            assertThat(writes.get()).isPositive();
        }
    }

    /**
     * A second checkpoint in the same millisecond gets a directory of its own, named to sort after the first, so that
     * pruning still keeps the newest.
     */
    @Test
    void checkpointsInOneMillisecondGetDirectoriesOfTheirOwnInOrder() throws IOException {
        Path checkpoints = Files.createDirectories(dataDir.resolve("checkpoints"));
        java.time.Instant now = java.time.Instant.parse("2026-11-29T23:44:01.431Z");
        Path first = ExactNamespaceStore.newCheckpoint(checkpoints, now);
        assertThat(first.getFileName()).hasToString("20261129T234401.431Z");
        Files.createDirectory(first);
        Path second = ExactNamespaceStore.newCheckpoint(checkpoints, now);
        Files.createDirectory(second);
        Path third = ExactNamespaceStore.newCheckpoint(checkpoints, now);
        Path later = ExactNamespaceStore.newCheckpoint(checkpoints, now.plusMillis(1));
        assertThat(List.of(first, second, third, later)).doesNotHaveDuplicates().isSorted();
    }

    /**
     * Checkpoints of an exact namespace racing its clears: a checkpoint of the store a clear closed is refused as
     * closed (RocksDB's "instance must be initialized" before, logged at ERROR), and no clear is refused because a
     * checkpoint directory was pruned or renamed while the clear checked the namespace's files ("not writable").
     */
    @Test
    void exactCheckpointsRacingClearsFailOnlyAsClosedAndNeverRefuseTheClear() throws Exception {
        try (NamespaceRegistry registry = open(StoreKinds.standard(), /* autoCreate= */ true)) {
            registry.create("ckpt", "exact", Map.of());
            registry.get("ckpt")
                    .checkThenAdd(List.of("k".getBytes(UTF_8)), null)
                    .join();
            List<Throwable> snapshotFailures = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
            java.util.concurrent.atomic.AtomicLong written = new java.util.concurrent.atomic.AtomicLong();
            List<String> refusedClears = clearWhile(registry, "ckpt", 150, () -> {
                try {
                    registry.snapshot("ckpt").join();
                    written.incrementAndGet();
                } catch (java.util.concurrent.CompletionException e) {
                    snapshotFailures.add(e.getCause());
                }
            });
            assertThat(refusedClears).isEmpty();
            assertThat(snapshotFailures)
                    .allSatisfy(failure -> assertThat(failure).isInstanceOf(dev.deja.seen.StoreClosedException.class));
            assertThat(written.get()).as("checkpoints written").isPositive();
        }
    }

    @Test
    void aWriteRacingADeleteIsToldTheNamespaceWasDeleted() throws Exception {
        try (NamespaceRegistry registry = open(StoreKinds.standard(), /* autoCreate= */ true)) {
            for (int round = 0; round < 20; round++) {
                Namespace namespace = registry.create("doomed", "recent", Map.of("buckets", "4096"));
                java.util.concurrent.atomic.AtomicBoolean running = new java.util.concurrent.atomic.AtomicBoolean(true);
                List<Throwable> failures = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
                Thread writer = Thread.ofPlatform().start(() -> {
                    for (long i = 0; running.get(); i++) {
                        try {
                            namespace
                                    .checkThenAdd(List.of(("k" + i).getBytes(UTF_8)), null)
                                    .join();
                        } catch (java.util.concurrent.CompletionException e) {
                            failures.add(e.getCause());
                            return;
                        }
                    }
                });
                Thread.sleep(2);
                registry.delete("doomed");
                running.set(false);
                writer.join();
                assertThat(failures)
                        .as("round %d", round)
                        .allSatisfy(failure -> assertThat(failure)
                                .isInstanceOf(NamespaceException.class)
                                .hasMessage(
                                        "namespace 'doomed' was deleted while this command ran; nothing was changed"));
            }
        }
    }

    /**
     * Clears the namespace {@code rounds} times while another thread runs {@code meanwhile} over and over; returns the
     * messages of the clears refused.
     */
    private static List<String> clearWhile(NamespaceRegistry registry, String name, int rounds, Runnable meanwhile)
            throws InterruptedException {
        java.util.concurrent.atomic.AtomicBoolean running = new java.util.concurrent.atomic.AtomicBoolean(true);
        Thread racer = Thread.ofPlatform().start(() -> {
            while (running.get()) {
                meanwhile.run();
            }
        });
        List<String> refusals = new java.util.ArrayList<>();
        try {
            for (int round = 0; round < rounds; round++) {
                try {
                    registry.clear(name);
                } catch (UncheckedIOException e) {
                    refusals.add(e.getMessage());
                }
            }
        } finally {
            running.set(false);
            racer.join();
        }
        return refusals;
    }

    private static void awaitQuietly(java.util.concurrent.CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void aMergeSurvivesARestartEvenWithNoWriteSinceTheLastSnapshot() throws Exception {
        try (NamespaceRegistry registry = open(StoreKinds.standard(), /* autoCreate= */ true)) {
            registry.create("ma", "bloom", Map.of("capacity", "1000"));
            registry.create("mb", "bloom", Map.of("capacity", "1000"));
            registry.get("ma").checkThenAdd(List.of("x".getBytes(UTF_8)), null).join();
            registry.get("mb").checkThenAdd(List.of("y".getBytes(UTF_8)), null).join();
            registry.get("ma").durableStore().snapshot().join(); // no journaled write after this one
            registry.get("ma").mergeFrom(registry.get("mb")).join();
            assertThat(registry.get("ma").store().check("y".getBytes(UTF_8))).isTrue();
        }
        try (NamespaceRegistry reopened = open(StoreKinds.standard(), /* autoCreate= */ true)) {
            // the merge is in the snapshot written after it, though it moved no journal position
            assertThat(reopened.get("ma").store().check("x".getBytes(UTF_8))).isTrue();
            assertThat(reopened.get("ma").store().check("y".getBytes(UTF_8)))
                    .as("merged in")
                    .isTrue();
        }
    }

    @Test
    void aLoadedDumpIsOnDiskWhenTheLoadReturnsSoACrashRightAfterKeepsIt() throws Exception {
        Map<String, String> big = Map.of("bits", Long.toString(1L << 30), "k", "7"); // 128 MiB: seconds to write
        ByteArrayOutputStream dump = new ByteArrayOutputStream();
        try (NamespaceRegistry registry = open(StoreKinds.standard(), /* autoCreate= */ true)) {
            registry.create("source", "bloom", big);
            registry.create("target", "bloom", big);
            registry.get("source").checkThenAdd(keys(0, 2000), null).join();
            registry.get("target")
                    .checkThenAdd(List.of("old".getBytes(UTF_8)), null)
                    .join();
            registry.writeDump("source", dump);
            registry.delete("source"); // only the target's memory is needed from here on
            registry.loadDump("target", new ByteArrayInputStream(dump.toByteArray()));
            // what a crash now leaves on disk: the old files were deleted before the new content's snapshot was
            // written, so the copy recovered neither
            copyTree(dataDir.resolve("target"), tmpCopy.resolve("target"));
        }
        try (NamespaceRegistry reopened = NamespaceRegistry.builder(tmpCopy)
                .defaultSpec(NamespaceSpec.parse("bloom", "capacity=1000"))
                .durability(DURABILITY)
                .build()) {
            reopened.open();
            assertThat(reopened.get("target").store().checkAll(keys(0, 2000))).containsOnly(true);
            assertThat(reopened.get("target").store().check("old".getBytes(UTF_8)))
                    .isFalse();
        }
    }

    @Test
    void aBloomNamespaceWrittenInFormatOneRecoversWithItsLayoutAndKeepsIt() throws IOException {
        copyResourceDir(
                "format1-data/orders",
                dataDir.resolve("orders"),
                List.of(
                        "namespace.properties",
                        "snapshot-00000000000000000500.snap",
                        "journal-00000000000000000000.log",
                        "journal-00000000000000000500.log"));
        for (int reopen = 0; reopen < 2; reopen++) {
            try (NamespaceRegistry registry = open(StoreKinds.standard(), /* autoCreate= */ false)) {
                Namespace orders = registry.get("orders");
                for (int i = 0; i < 600; i++) {
                    assertThat(orders.store().check(("order-" + i).getBytes(UTF_8)))
                            .as("order-%d, reopen %d", i, reopen)
                            .isTrue();
                }
                // new keys are journaled and snapshotted in the same layout, and found after the next reopen
                String fresh = "fresh-" + reopen;
                assertThat(orders.checkThenAdd(List.of(fresh.getBytes(UTF_8)), null)
                                .join()[0]
                                .name())
                        .isEqualTo("NEW");
                assertThat(orders.checkThenAdd(List.of("order-3".getBytes(UTF_8)), null)
                                .join()[0]
                                .name())
                        .isEqualTo("DUPLICATE");
            }
            assertThat(bloomFormatVersion(newest(dataDir.resolve("orders"), "snapshot-")))
                    .isEqualTo(1);
        }
        try (NamespaceRegistry registry = open(StoreKinds.standard(), /* autoCreate= */ false)) {
            Namespace orders = registry.get("orders");
            assertThat(orders.store().check("fresh-0".getBytes(UTF_8))).isTrue();
            assertThat(orders.store().check("fresh-1".getBytes(UTF_8))).isTrue();
            assertThat(orders.store().check("order-599".getBytes(UTF_8))).isTrue();
        }
    }

    /** The version byte of the bloom filter a snapshot file holds (the byte after its "DJBF" magic). */
    private static int bloomFormatVersion(Path snapshot) throws IOException {
        byte[] bytes = Files.readAllBytes(snapshot);
        for (int i = 0; i + 4 < bytes.length; i++) {
            if (bytes[i] == 'D' && bytes[i + 1] == 'J' && bytes[i + 2] == 'B' && bytes[i + 3] == 'F') {
                return bytes[i + 4];
            }
        }
        throw new AssertionError("no bloom filter in " + snapshot);
    }

    private static void copyResourceDir(String resource, Path target, List<String> files) throws IOException {
        Files.createDirectories(target);
        for (String file : files) {
            try (var in = NamespaceRegistryTest.class.getResourceAsStream("/" + resource + "/" + file)) {
                assertThat(in).as("test resource %s/%s", resource, file).isNotNull();
                Files.copy(in, target.resolve(file));
            }
        }
    }

    @Test
    void aDamagedSnapshotFallsBackToThePreviousOneAndTheJournal() throws IOException {
        try (NamespaceRegistry registry = open(FIXTURE, /* autoCreate= */ true)) {
            registry.create("fragile", "bloom", Map.of())
                    .checkThenAdd(List.of("first".getBytes(UTF_8)), null)
                    .join();
        }
        try (NamespaceRegistry registry = open(FIXTURE, /* autoCreate= */ true)) {
            registry.get("fragile")
                    .checkThenAdd(List.of("second".getBytes(UTF_8)), null)
                    .join();
        }
        flipByte(newest(dataDir.resolve("fragile"), "snapshot-"), 40);
        try (NamespaceRegistry registry = open(FIXTURE, /* autoCreate= */ true)) {
            Namespace reloaded = registry.get("fragile");
            assertThat(reloaded.store().check("first".getBytes(UTF_8))).isTrue();
            assertThat(reloaded.store().check("second".getBytes(UTF_8)))
                    .as("replayed from the journal")
                    .isTrue();
        }
    }

    /**
     * Every snapshot of a namespace damaged, over a journal pruned past the first key: the namespace is not served
     * (every use is refused with an error naming its directory and the records lost) rather than the bloom filter
     * coming back empty and answering its keys "new", while the others are served. The files stay as they were, and
     * each start refuses it again. A reset from what is readable serves what the journal still holds; with the
     * snapshot and journal files moved out by hand, the namespace starts empty, its kind and parameters kept.
     */
    @Test
    void aNamespaceWhoseSnapshotsAreAllDamagedIsNotServedInsteadOfOpeningEmpty() throws IOException {
        Path dir = dataDir.resolve("fragile");
        try (NamespaceRegistry registry = open(FIXTURE, /* autoCreate= */ true)) {
            registry.create("fragile", "bloom", Map.of())
                    .checkThenAdd(List.of("first".getBytes(UTF_8)), null)
                    .join();
        }
        try (NamespaceRegistry registry = open(FIXTURE, /* autoCreate= */ true)) {
            registry.get("fragile")
                    .checkThenAdd(List.of("second".getBytes(UTF_8)), null)
                    .join();
        }
        List<Path> storeFiles;
        try (Stream<Path> files = Files.list(dir)) {
            storeFiles = files.filter(f -> f.getFileName().toString().matches("(snapshot|journal)-\\d+\\.(snap|log)"))
                    .toList();
        }
        List<Path> snapshots = storeFiles.stream()
                .filter(f -> f.getFileName().toString().startsWith("snapshot-"))
                .toList();
        assertThat(snapshots).isNotEmpty();
        for (Path snapshot : snapshots) {
            flipByte(snapshot, 40);
        }
        List<String> before;
        try (Stream<Path> files = Files.list(dir)) {
            before = files.map(f -> f.getFileName().toString()).sorted().toList();
        }
        for (int start = 0; start < 2; start++) {
            try (NamespaceRegistry registry = open(FIXTURE, /* autoCreate= */ true)) {
                assertThat(registry.get(Namespace.DEFAULT).name())
                        .as("the others are served")
                        .isEqualTo("default");
                assertThat(registry.damaged())
                        .extracting(DamagedNamespace::name)
                        .containsExactly("fragile");
                for (Runnable use : List.<Runnable>of(
                        () -> registry.get("fragile"),
                        () -> registry.find("fragile"),
                        () -> registry.getOrCreate("fragile"),
                        () -> registry.create("fragile", "bloom", Map.of()))) {
                    assertThatThrownBy(use::run)
                            .isInstanceOfSatisfying(
                                    NamespaceException.class,
                                    e -> assertThat(e.problem()).isEqualTo(NamespaceException.Problem.DAMAGED))
                            .hasMessageContaining("namespace 'fragile' is not served")
                            .hasMessageContaining("cannot rebuild the store in " + dir)
                            .hasMessageContaining("no snapshot verifies")
                            .hasMessageContaining("the journal starts at record 1, so records 0 to 0 are lost");
                }
            }
            try (Stream<Path> files = Files.list(dir)) {
                assertThat(files.map(f -> f.getFileName().toString()).sorted().toList())
                        .isEqualTo(before);
            }
        }
        Path copy = tmpCopy.resolve("readable");
        copyTree(dataDir, copy);
        try (NamespaceRegistry registry = NamespaceRegistry.builder(copy)
                .kinds(FIXTURE)
                .defaultSpec(NamespaceSpec.parse("bloom", "capacity=1000"))
                .autoCreate(/* autoCreate= */ true)
                .durability(DURABILITY)
                .build()) {
            registry.open();
            Namespace readable = registry.reset("fragile", ResetFrom.READABLE);
            assertThat(readable.store().check("second".getBytes(UTF_8)))
                    .as("in the journal")
                    .isTrue();
            assertThat(readable.store().check("first".getBytes(UTF_8)))
                    .as("only in the snapshots")
                    .isFalse();
            assertThat(registry.damaged()).isEmpty();
            assertThatThrownBy(() -> registry.reset("fragile", ResetFrom.EMPTY))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("is served");
        }

        Path kept = Files.createDirectories(tmpCopy.resolve("kept"));
        for (Path file : storeFiles) {
            Files.move(file, kept.resolve(file.getFileName()));
        }
        try (NamespaceRegistry registry = open(FIXTURE, /* autoCreate= */ true)) {
            Namespace emptied = registry.get("fragile");
            assertThat(emptied.kind().name()).isEqualTo("bloom");
            assertThat(emptied.store().check("first".getBytes(UTF_8))).isFalse();
            assertThat(emptied.store().check("second".getBytes(UTF_8))).isFalse();
        }
    }

    @Test
    void aFinalSnapshotThatFailsIsReportedAndTheJournalStillHoldsEveryWrite() throws IOException {
        Path dir = dataDir.resolve("full");
        List<Path> blockers = new java.util.ArrayList<>();
        NamespaceRegistry registry = open(FIXTURE, /* autoCreate= */ true);
        try {
            registry.create("full", "bloom", Map.of())
                    .checkThenAdd(List.of("k".getBytes(UTF_8)), null)
                    .join();
            registry.create("fine", "bloom", Map.of())
                    .checkThenAdd(List.of("k".getBytes(UTF_8)), null)
                    .join();
            // a directory where the snapshot's temporary file goes makes it fail, as a full disk would
            for (int position = 0; position < 4; position++) {
                Path blocker = dir.resolve(String.format("snapshot-%020d.snap.tmp", position))
                        .resolve("blocker");
                Files.createDirectories(blocker);
                blockers.add(blocker);
            }
        } finally {
            assertThat(registry.closeAll()).containsExactly("full");
        }
        for (Path blocker : blockers) {
            Files.delete(blocker);
            Files.delete(blocker.getParent());
        }
        try (NamespaceRegistry reopened = open(FIXTURE, /* autoCreate= */ true)) {
            assertThat(reopened.get("full").store().check("k".getBytes(UTF_8)))
                    .as("replayed from the journal")
                    .isTrue();
            assertThat(reopened.closeAll()).isEmpty();
        }
    }

    /**
     * A recent namespace killed twice, each time after a snapshot: snapshots at 5,000 and 15,000, segments from 0
     * and 10,000. A byte flipped in record 7,000 of the first segment, which only the older snapshot needs, must
     * not cost the acknowledged records 15,000 to 19,999.
     */
    @Test
    void damageInTheJournalBelowTheNewestSnapshotLosesNothingAfterIt() throws IOException {
        Map<String, String> shape = Map.of("buckets", Long.toString(1L << 20));
        Path first = dataDir.resolve("first");
        try (NamespaceRegistry registry = openAt(first)) {
            Namespace ns = registry.create("recent1", "recent", shape);
            ns.checkThenAdd(keys(0, 5_000), null).join();
            registry.snapshot("recent1").join();
            ns.checkThenAdd(keys(5_000, 10_000), null).join();
            copyTree(first, dataDir.resolve("second")); // what kill -9 leaves
        }
        Path second = dataDir.resolve("second");
        try (NamespaceRegistry registry = openAt(second)) {
            Namespace ns = registry.get("recent1");
            ns.checkThenAdd(keys(10_000, 15_000), null).join();
            registry.snapshot("recent1").join();
            ns.checkThenAdd(keys(15_000, 20_000), null).join();
            copyTree(second, dataDir.resolve("third"));
        }
        Path third = dataDir.resolve("third");
        Path segment = third.resolve("recent1").resolve(String.format("journal-%020d.log", 0));
        assertThat(third.resolve("recent1").resolve(String.format("journal-%020d.log", 10_000)))
                .exists();
        flipByte(segment, 20 + 37 * 7_000 + 20);
        try (NamespaceRegistry registry = openAt(third)) {
            SeenSet store = registry.get("recent1").durableStore().reader();
            RecoveryReport report = ((JournaledSeenSet<?>) store).recovery();
            assertThat(report.snapshotPosition()).isEqualTo(15_000);
            assertThat(report.recordsReplayed()).isEqualTo(5_000);
            assertThat(report.setAside()).isEmpty();
            assertThat(store.checkAll(keys(0, 20_000))).containsOnly(true);
        }
    }

    private NamespaceRegistry openAt(Path dir) throws IOException {
        NamespaceRegistry registry = NamespaceRegistry.builder(dir)
                .defaultSpec(NamespaceSpec.parse("bloom", "capacity=1000"))
                .durability(DURABILITY)
                .build();
        registry.open();
        return registry;
    }

    private static List<byte[]> keys(int from, int to) {
        return java.util.stream.IntStream.range(from, to)
                .mapToObj(i -> ("key-" + i).getBytes(UTF_8))
                .toList();
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path f : files.toList()) {
                Path target = to.resolve(from.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(f, target);
                }
            }
        }
    }

    /**
     * A clear writes the empty content as a snapshot past every record before it deletes the old files, so a crash at
     * any point of it recovers the namespace empty. The image below is the worst point: the new snapshot written and
     * no old file deleted yet. Deleting the files first would let a crash between two deletions recover an old
     * snapshot without the journal after it.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"bloom", "recent"})
    void aCrashInTheMiddleOfAClearRecoversTheNamespaceEmpty(String kind) throws Exception {
        Path dir = dataDir.resolve("c");
        Path crashed = tmpCopy.resolve("data");
        try (NamespaceRegistry registry = open(StoreKinds.standard(), /* autoCreate= */ true)) {
            registry.create(
                    "c", kind, kind.equals("bloom") ? Map.of("capacity", "100000") : Map.of("buckets", "65536"));
            registry.get("c").checkThenAdd(keys(0, 100), null).join();
            registry.get("c").durableStore().snapshot().join();
            registry.get("c").checkThenAdd(keys(100, 200), null).join(); // only in the journal
            copyTree(dir, tmpCopy.resolve("before"));
            registry.clear("c");
            registry.get("c")
                    .checkThenAdd(List.of("after".getBytes(UTF_8)), null)
                    .join();
            copyTree(dir, crashed.resolve("c"));
        }
        try (Stream<Path> old = Files.list(tmpCopy.resolve("before"))) {
            for (Path file : old.toList()) {
                Path target = crashed.resolve("c").resolve(file.getFileName().toString());
                if (!Files.exists(target)) {
                    Files.copy(file, target); // a deletion the crash came before
                }
            }
        }
        try (NamespaceRegistry reopened = NamespaceRegistry.builder(crashed)
                .defaultSpec(NamespaceSpec.parse("bloom", "capacity=1000"))
                .durability(DURABILITY)
                .build()) {
            reopened.open();
            assertThat(reopened.get("c").store().checkAll(keys(0, 200)))
                    .as("cleared keys")
                    .containsOnly(false);
            assertThat(reopened.get("c").store().check("after".getBytes(UTF_8)))
                    .as("written after the clear")
                    .isTrue();
        }
    }

    /**
     * An exact namespace's clear renames its RocksDB directory aside before deleting it; a crash after the rename
     * leaves it there, and the next start deletes it rather than serving any of its keys.
     */
    @Test
    void anExactStoreRenamedAsideByAnInterruptedClearIsDeletedAtTheNextStart() throws Exception {
        Path dir = dataDir.resolve("x");
        try (NamespaceRegistry registry = open(StoreKinds.standard(), /* autoCreate= */ true)) {
            registry.create("x", "exact", Map.of())
                    .checkThenAdd(keys(0, 100), null)
                    .join();
            registry.clear("x");
            assertThat(dir.resolve(ExactNamespaceStore.CLEARED))
                    .as("deleted by the clear")
                    .doesNotExist();
            assertThat(registry.get("x").store().checkAll(keys(0, 100))).containsOnly(false);
            registry.get("x").checkThenAdd(keys(100, 200), null).join();
        }
        // the image of a second clear that a crash stopped right after its rename
        Files.move(dir.resolve(ExactNamespaceStore.DB), dir.resolve(ExactNamespaceStore.CLEARED));
        try (NamespaceRegistry reopened = open(StoreKinds.standard(), /* autoCreate= */ true)) {
            assertThat(dir.resolve(ExactNamespaceStore.CLEARED)).doesNotExist();
            assertThat(reopened.get("x").store().checkAll(keys(100, 200))).containsOnly(false);
            reopened.get("x")
                    .checkThenAdd(List.of("after".getBytes(UTF_8)), null)
                    .join();
            assertThat(reopened.get("x").store().check("after".getBytes(UTF_8))).isTrue();
        }
    }

    @Test
    void clearForgetsEverythingAndDeleteRemovesTheFiles() throws IOException {
        try (NamespaceRegistry registry = open(FIXTURE, /* autoCreate= */ true)) {
            registry.create("gone", "bloom", Map.of())
                    .checkThenAdd(List.of("k".getBytes(UTF_8)), null)
                    .join();
            Path setAside = dataDir.resolve("gone").resolve("journal-00000000000000000000.log.20.corrupt");
            Files.writeString(setAside, "damage kept for inspection");
            registry.clear("gone");
            assertThat(setAside)
                    .as("set-aside files are never deleted by a clear")
                    .exists();
            assertThat(registry.get("gone").store().check("k".getBytes(UTF_8))).isFalse();
            registry.get("gone")
                    .checkThenAdd(List.of("after".getBytes(UTF_8)), null)
                    .join();
        }
        try (NamespaceRegistry registry = open(FIXTURE, /* autoCreate= */ true)) {
            assertThat(registry.get("gone").store().check("k".getBytes(UTF_8)))
                    .as("clear is durable")
                    .isFalse();
            assertThat(registry.get("gone").store().check("after".getBytes(UTF_8)))
                    .isTrue();
            registry.delete("gone");
            assertThat(dataDir.resolve("gone")).doesNotExist();
            assertThatThrownBy(() -> registry.get("gone")).isInstanceOf(NamespaceException.class);
        }
    }

    private static Path newest(Path dir, String prefix) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().startsWith(prefix)
                            && !f.getFileName().toString().endsWith(".tmp"))
                    .max(Comparator.comparing(Path::toString))
                    .orElseThrow();
        }
    }

    private static void flipByte(Path file, long position) throws IOException {
        assertThat(Files.size(file)).isGreaterThan(position);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer one = ByteBuffer.allocate(1);
            channel.read(one, position);
            one.put(0, (byte) (one.get(0) ^ 0x5A)).rewind();
            channel.write(one, position);
        }
    }
}
