package dev.deja.namespace;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.journal.FsyncPolicy;
import dev.deja.seen.Verdict;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A server's namespaces share a few background threads: the namespace limit is not a thread limit (issue 35, two
 * threads a journaled namespace and two or three an exact one before), and what they acknowledged is found after a
 * restart.
 */
@Timeout(600)
class SharedThreadsTest {

    private static final int BLOOM = 100;
    private static final int RECENT = 80;
    private static final int EXACT = 20;
    /**
     * The most threads the four shared executors start on any machine: journal writers {@code max(4, 2c)}, snapshot
     * writers {@code max(2, c/2)}, exact maintenance {@code max(2, c)} and exact generations {@code max(2, c/2)},
     * for {@code c} cores.
     */
    private static final int SHARED_THREADS_AT_MOST = 4 * Runtime.getRuntime().availableProcessors() + 10;

    @TempDir
    Path dataDir;

    @ParameterizedTest
    @EnumSource(
            value = FsyncPolicy.class,
            names = {"ALWAYS", "EVERYSEC"})
    void twoHundredNamespacesShareAFewThreadsAndKeepTheirKeysAcrossARestart(FsyncPolicy fsync) throws Exception {
        int threadsBefore = ManagementFactory.getThreadMXBean().getThreadCount();
        List<String> names = new ArrayList<>();
        try (NamespaceRegistry registry = open(fsync)) {
            for (int i = 0; i < BLOOM; i++) {
                names.add(create(registry, "b" + i, "bloom", Map.of("bits", "16384", "k", "7")));
            }
            for (int i = 0; i < RECENT; i++) {
                names.add(create(registry, "r" + i, "recent", Map.of("buckets", "1024")));
            }
            for (int i = 0; i < EXACT; i++) {
                names.add(create(
                        registry, "e" + i, "exact", Map.of("window", "1h", "blockCache", "1m", "memtable", "64k")));
            }
            List<CompletableFuture<Verdict[]>> writes = new ArrayList<>();
            for (String name : names) {
                writes.add(registry.get(name).checkThenAdd(keys(name), null));
            }
            for (CompletableFuture<Verdict[]> written : writes) {
                assertThat(written.join()).containsOnly(Verdict.NEW);
            }
            registry.snapshotAll().join(); // snapshots and checkpoints on the shared threads too

            assertThat(dejaThreads())
                    .as("threads named deja- with %d namespaces open", names.size())
                    .isLessThanOrEqualTo(SHARED_THREADS_AT_MOST);
            assertThat(ManagementFactory.getThreadMXBean().getThreadCount() - threadsBefore)
                    .as("threads started by opening %d namespaces", names.size())
                    .isLessThanOrEqualTo(SHARED_THREADS_AT_MOST)
                    .isLessThan(names.size());
        }

        try (NamespaceRegistry restarted = open(fsync)) {
            assertThat(restarted.list()).hasSize(names.size() + 1); // and the default namespace
            for (String name : names) {
                assertThat(restarted.get(name).store().checkAll(keys(name)))
                        .as(name)
                        .containsOnly(true);
            }
        }
    }

    private NamespaceRegistry open(FsyncPolicy fsync) throws IOException {
        NamespaceRegistry registry = NamespaceRegistry.builder(dataDir)
                .defaultSpec(NamespaceSpec.parse("bloom", "bits=16384,k=7"))
                .autoCreate(false)
                .durability(new Durability(fsync, Duration.ofSeconds(1)))
                .build();
        registry.open();
        return registry;
    }

    private static String create(NamespaceRegistry registry, String name, String kind, Map<String, String> params) {
        registry.create(name, kind, params);
        return name;
    }

    private static List<byte[]> keys(String namespace) {
        return IntStream.range(0, 20)
                .mapToObj(i -> (namespace + "-key-" + i).getBytes(StandardCharsets.UTF_8))
                .toList();
    }

    private static long dejaThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("deja-"))
                .count();
    }
}
