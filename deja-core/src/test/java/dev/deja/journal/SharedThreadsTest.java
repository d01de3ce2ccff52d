package dev.deja.journal;

import static dev.deja.journal.JournaledSeenSetTest.keys;
import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.bloom.BloomFilter;
import dev.deja.recent.RecentFilter;
import dev.deja.seen.HashedSeenSet;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadPoolExecutor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Many stores write their journals and snapshots on a few shared threads, and keep what they acknowledged. */
@Timeout(300)
class SharedThreadsTest {

    private static final int STORES = 300;
    private static final int KEYS_PER_STORE = 40;

    @TempDir
    Path tmp;

    @ParameterizedTest
    @EnumSource(
            value = FsyncPolicy.class,
            names = {"ALWAYS", "EVERYSEC"})
    void threeHundredStoresShareAFewThreadsAndKeepWhatTheyAcknowledged(FsyncPolicy policy) throws Exception {
        List<JournaledSeenSet<? extends HashedSeenSet>> stores = new ArrayList<>();
        try {
            for (int i = 0; i < STORES; i++) {
                stores.add(open(i, policy));
            }
            // writers on several threads at once, so that the journals of many stores have groups to write together
            ExecutorService writers = Executors.newFixedThreadPool(8);
            try {
                List<Future<?>> written = new ArrayList<>();
                for (int i = 0; i < STORES; i++) {
                    JournaledSeenSet<? extends HashedSeenSet> store = stores.get(i);
                    int from = i * KEYS_PER_STORE;
                    written.add(writers.submit(() -> {
                        for (int k = from; k < from + KEYS_PER_STORE; k += 4) {
                            store.addAll(keys(k, k + 4));
                        }
                    }));
                }
                for (Future<?> w : written) {
                    w.get();
                }
            } finally {
                writers.shutdown();
            }
            CompletableFuture.allOf(
                            stores.stream().map(JournaledSeenSet::snapshotNow).toArray(CompletableFuture[]::new))
                    .join();

            long dejaThreads = dejaThreads();
            assertThat(dejaThreads)
                    .as("threads named deja-, with %d stores open", STORES)
                    .isLessThanOrEqualTo(sharedThreadsAtMost())
                    .isLessThan(STORES / 4);

            // what a crash now leaves on disk holds every acknowledged key
            for (int i = 0; i < STORES; i += 50) {
                Path copy = Crash.copy(stores.get(i).directory(), tmp.resolve("crashed-" + i));
                try (JournaledSeenSet<? extends HashedSeenSet> crashed = open(copy, i, policy)) {
                    assertThat(crashed.checkAll(keys(i * KEYS_PER_STORE, (i + 1) * KEYS_PER_STORE)))
                            .containsOnly(true);
                }
            }
        } finally {
            stores.forEach(JournaledSeenSet::close);
        }
        assertThat(dejaThreads())
                .as("closing stores leaves the shared threads to the others")
                .isLessThanOrEqualTo(sharedThreadsAtMost());

        for (int i = 0; i < STORES; i++) {
            try (JournaledSeenSet<? extends HashedSeenSet> reopened = open(i, policy)) {
                assertThat(reopened.checkAll(keys(i * KEYS_PER_STORE, (i + 1) * KEYS_PER_STORE)))
                        .as("store %d after close and reopen", i)
                        .containsOnly(true);
            }
        }
    }

    @Test
    void storesGivenThreadsOfTheirOwnUseThemAndClosingAStoreLeavesThemRunning() throws IOException {
        try (JournalThreads own = JournalThreads.create(1, 1)) {
            Path dir = tmp.resolve("own");
            try (JournaledSeenSet<MapSeenSet> second = JournaledSeenSetTest.builder(dir.resolve("b"))
                    .fsync(FsyncPolicy.ALWAYS)
                    .threads(own)
                    .open()) {
                try (JournaledSeenSet<MapSeenSet> first = JournaledSeenSetTest.builder(dir.resolve("a"))
                        .fsync(FsyncPolicy.ALWAYS)
                        .threads(own)
                        .open()) {
                    first.addAll(keys(0, 10));
                }
                second.addAll(keys(0, 10)); // written and fsynced by the same threads, which first's close left
                assertThat(second.snapshotNow().join()).exists();
            }
            try (JournaledSeenSet<MapSeenSet> reopened =
                    JournaledSeenSetTest.builder(dir.resolve("b")).open()) {
                assertThat(reopened.checkAll(keys(0, 10))).containsOnly(true);
            }
        }
    }

    private JournaledSeenSet<? extends HashedSeenSet> open(int i, FsyncPolicy policy) throws IOException {
        return open(tmp.resolve("store-" + i), i, policy);
    }

    /** Even stores are bloom filters, odd ones recent filters, all small. */
    private static JournaledSeenSet<? extends HashedSeenSet> open(Path dir, int i, FsyncPolicy policy)
            throws IOException {
        JournaledSeenSet.Builder<? extends HashedSeenSet> builder = i % 2 == 0
                ? JournaledSeenSet.builder(
                        dir,
                        StoreCodecs.BLOOM,
                        () -> BloomFilter.builder()
                                .bits(1 << 14)
                                .hashes(7)
                                .capacity(1000)
                                .build())
                : JournaledSeenSet.builder(
                        dir,
                        StoreCodecs.RECENT,
                        () -> RecentFilter.builder()
                                .buckets(1024)
                                .ways(4)
                                .owners(true)
                                .build());
        // periodic snapshots too, so that they run on the shared threads while the stores are written
        return builder.fsync(policy).snapshotInterval(Duration.ofMillis(100)).open();
    }

    /** The most threads the shared journal and snapshot executors start, whatever the number of stores. */
    private static int sharedThreadsAtMost() {
        JournalThreads shared = JournalThreads.shared();
        return ((ThreadPoolExecutor) shared.journals()).getCorePoolSize()
                + ((ThreadPoolExecutor) shared.snapshots()).getCorePoolSize();
    }

    private static long dejaThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("deja-"))
                .count();
    }
}
