package dev.deja.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.seen.SeenSet;
import dev.deja.seen.Verdict;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class JournaledSeenSetTest {

    @TempDir
    Path tmp;

    static JournaledSeenSet.Builder<MapSeenSet> builder(Path dir) {
        return JournaledSeenSet.builder(dir, MapSeenSet.CODEC, MapSeenSet::new).snapshotInterval(Duration.ZERO);
    }

    static byte[] key(int i) {
        return ("key-" + i).getBytes(StandardCharsets.UTF_8);
    }

    static List<byte[]> keys(int from, int to) {
        return IntStream.range(from, to).mapToObj(JournaledSeenSetTest::key).toList();
    }

    /**
     * Adds keys 0 to 1,999 in four rounds of 500, each followed by a snapshot: with 4 KiB segments, snapshots stay
     * at 1,500 and 2,000 and the journal is pruned to start at 1,500.
     */
    static void addInFourSnapshottedRounds(JournaledSeenSet<MapSeenSet> set) throws Exception {
        for (int round = 0; round < 4; round++) {
            set.addAll(keys(round * 500, round * 500 + 500));
            set.snapshotNow().get();
        }
    }

    /** Adds, owner-aware check-then-adds and forgets, through single and batch calls. */
    private static void writeHistory(JournaledSeenSet<MapSeenSet> set) {
        for (int i = 0; i < 100; i++) {
            set.add(key(i), i);
        }
        assertThat(set.checkThenAdd(key(5), 5)).isEqualTo(Verdict.RETRY);
        assertThat(set.checkThenAdd(key(5), 6)).isEqualTo(Verdict.DUPLICATE);
        assertThat(set.checkThenAddAll(keys(95, 110), null))
                .containsExactly(
                        Verdict.DUPLICATE,
                        Verdict.DUPLICATE,
                        Verdict.DUPLICATE,
                        Verdict.DUPLICATE,
                        Verdict.DUPLICATE,
                        Verdict.NEW,
                        Verdict.NEW,
                        Verdict.NEW,
                        Verdict.NEW,
                        Verdict.NEW,
                        Verdict.NEW,
                        Verdict.NEW,
                        Verdict.NEW,
                        Verdict.NEW,
                        Verdict.NEW);
        assertThat(set.forget(key(10), 11)).isFalse(); // not its owner
        assertThat(set.forget(key(10), 10)).isTrue();
        assertThat(set.forget(key(11))).isTrue();
        assertThat(set.forgetAll(keys(20, 25), null)).containsOnly(true);
        assertThat(set.checkThenAdd(key(20), 99)).isEqualTo(Verdict.NEW); // re-added under a new owner
    }

    private static void assertHistory(SeenSet set) {
        assertThat(set.check(key(0))).isTrue();
        assertThat(set.check(key(109))).isTrue();
        assertThat(set.check(key(110))).isFalse();
        assertThat(set.check(key(10))).isFalse();
        assertThat(set.check(key(11))).isFalse();
        assertThat(set.checkAll(keys(21, 25))).containsOnly(false);
        assertThat(set.checkThenAdd(key(5), 5)).isEqualTo(Verdict.RETRY); // owners survive
        assertThat(set.checkThenAdd(key(20), 99)).isEqualTo(Verdict.RETRY);
        assertThat(set.checkThenAdd(key(20), 20)).isEqualTo(Verdict.DUPLICATE);
    }

    @ParameterizedTest
    @EnumSource(FsyncPolicy.class)
    void journalAloneRestoresEveryChangeAfterACrash(FsyncPolicy policy) throws IOException {
        Path dir = tmp.resolve("live");
        try (JournaledSeenSet<MapSeenSet> set = builder(dir).fsync(policy).open()) {
            writeHistory(set);
            Path crashed = Crash.copy(dir, tmp.resolve("crashed"));
            try (JournaledSeenSet<MapSeenSet> reopened =
                    builder(crashed).fsync(policy).open()) {
                assertThat(reopened.recovery().snapshot()).isEmpty();
                assertThat(reopened.recovery().recordsReplayed()).isEqualTo(100 + 10 + 1 + 1 + 5 + 1);
                assertThat(reopened.recovery().clean()).isTrue();
                assertHistory(reopened);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(FsyncPolicy.class)
    void closeWritesASnapshotThatReopensWithoutReplay(FsyncPolicy policy) throws IOException {
        Path dir = tmp.resolve("store");
        try (JournaledSeenSet<MapSeenSet> set = builder(dir).fsync(policy).open()) {
            writeHistory(set);
        }
        try (JournaledSeenSet<MapSeenSet> reopened = builder(dir).fsync(policy).open()) {
            RecoveryReport report = reopened.recovery();
            assertThat(report.snapshot()).isPresent();
            assertThat(report.snapshotPosition()).isEqualTo(118);
            assertThat(report.recordsReplayed()).isZero();
            assertHistory(reopened);
        }
    }

    @Test
    void recoveryReplaysTheJournalOnTopOfTheSnapshot() throws Exception {
        Path dir = tmp.resolve("live");
        try (JournaledSeenSet<MapSeenSet> set = builder(dir).open()) {
            set.addAll(keys(0, 1000));
            Path snapshot = set.snapshotNow().get();
            assertThat(snapshot.getFileName().toString()).isEqualTo(Snapshots.fileName(1000));
            assertThat(set.snapshotNow().get())
                    .as("nothing changed: same snapshot")
                    .isEqualTo(snapshot);
            set.addAll(keys(1000, 1500));
            set.forgetAll(keys(0, 10), null);
            try (JournaledSeenSet<MapSeenSet> reopened =
                    builder(Crash.copy(dir, tmp.resolve("c"))).open()) {
                assertThat(reopened.recovery().snapshotPosition()).isEqualTo(1000);
                assertThat(reopened.recovery().recordsReplayed()).isEqualTo(510);
                assertThat(reopened.checkAll(keys(10, 1500))).containsOnly(true);
                assertThat(reopened.checkAll(keys(0, 10))).containsOnly(false);
            }
        }
    }

    @Test
    void corruptNewestSnapshotFallsBackToThePreviousOneAndItsJournal() throws Exception {
        Path dir = tmp.resolve("store");
        Path newest;
        try (JournaledSeenSet<MapSeenSet> set = builder(dir).open()) {
            set.addAll(keys(0, 100));
            set.snapshotNow().get();
            set.addAll(keys(100, 200));
            newest = set.snapshotNow().get();
            set.addAll(keys(200, 300));
            newest = Crash.copy(dir, tmp.resolve("c")).resolve(newest.getFileName());
        }
        byte[] bytes = Files.readAllBytes(newest);
        bytes[Snapshots.HEADER_BYTES + 17] ^= 0x10;
        Files.write(newest, bytes);

        try (JournaledSeenSet<MapSeenSet> reopened = builder(newest.getParent()).open()) {
            RecoveryReport report = reopened.recovery();
            assertThat(report.snapshotPosition()).isEqualTo(100);
            assertThat(report.rejectedSnapshots())
                    .singleElement()
                    .asString()
                    .contains(newest.getFileName().toString())
                    .contains("CRC32C mismatch");
            assertThat(report.recordsReplayed()).isEqualTo(200);
            assertThat(report.setAside()).containsExactly(newest.resolveSibling(newest.getFileName() + ".corrupt"));
            assertThat(reopened.checkAll(keys(0, 300))).containsOnly(true);
        }
    }

    @Test
    void snapshotsAreWrittenOnATimerWhenTheStoreChanged() throws Exception {
        Path dir = tmp.resolve("store");
        try (JournaledSeenSet<MapSeenSet> set =
                builder(dir).snapshotInterval(Duration.ofMillis(20)).open()) {
            set.addAll(keys(0, 50));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (Snapshots.list(dir).isEmpty()) {
                assertThat(System.nanoTime()).as("a snapshot appears").isLessThan(deadline);
                Thread.sleep(10);
            }
            assertThat(Snapshots.list(dir))
                    .singleElement()
                    .extracting(Snapshots.Snapshot::position)
                    .isEqualTo(50L);
        }
    }

    @Test
    void snapshotsKeepTwoAndTheJournalThatTheOlderNeeds() throws Exception {
        Path dir = tmp.resolve("store");
        try (JournaledSeenSet<MapSeenSet> set = builder(dir).segmentBytes(4096).open()) {
            addInFourSnapshottedRounds(set);
            assertThat(Snapshots.list(dir))
                    .extracting(Snapshots.Snapshot::position)
                    .containsExactly(2000L, 1500L);
            // every batch of 500 records overflows a 4 KiB segment, so the segment after it starts at 1500
            assertThat(Segment.list(dir).get(0).firstSeq()).isEqualTo(1500);

            Path crashed = Crash.copy(dir, tmp.resolve("c"));
            Files.write(crashed.resolve(Snapshots.fileName(2000)), new byte[] {1, 2, 3});
            try (JournaledSeenSet<MapSeenSet> reopened = builder(crashed).open()) {
                assertThat(reopened.recovery().snapshotPosition()).isEqualTo(1500);
                assertThat(reopened.recovery().rejectedSnapshots())
                        .singleElement()
                        .asString()
                        .contains("shorter than its 32-byte header");
                assertThat(reopened.checkAll(keys(0, 2000))).containsOnly(true);
            }
        }
    }

    @Test
    void snapshotsTakenWhileWritersRunLoseNothing() throws Exception {
        Path dir = tmp.resolve("live");
        ConcurrentLinkedQueue<Integer> acknowledged = new ConcurrentLinkedQueue<>();
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService writers = Executors.newFixedThreadPool(4);
        try (JournaledSeenSet<MapSeenSet> set =
                builder(dir).segmentBytes(64 * 1024).open()) {
            List<Future<?>> running = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int thread = t;
                running.add(writers.submit(() -> {
                    for (int i = thread; !stop.get() && i < 400_000; i += 4) {
                        if (i % 5 == 4) {
                            set.checkThenAddAll(keys(i * 10, i * 10 + 10), null);
                        } else {
                            set.add(key(i * 10));
                        }
                        acknowledged.add(i);
                    }
                }));
            }
            for (int s = 0; s < 5; s++) {
                set.snapshotNow().get();
            }
            List<Integer> before = List.copyOf(acknowledged);
            Path crashed = Crash.copy(dir, tmp.resolve("crashed"));
            stop.set(true);
            for (Future<?> f : running) {
                f.get();
            }
            try (JournaledSeenSet<MapSeenSet> reopened = builder(crashed).open()) {
                assertThat(reopened.recovery().snapshot()).isPresent();
                assertThat(before)
                        .isNotEmpty()
                        .allSatisfy(i -> assertThat(reopened.check(key(i * 10))).isTrue());
                assertThat(before)
                        .filteredOn(i -> i % 5 == 4)
                        .allSatisfy(i -> assertThat(reopened.checkAll(keys(i * 10, i * 10 + 10)))
                                .containsOnly(true));
            }
        } finally {
            writers.shutdownNow();
        }
    }

    @ParameterizedTest
    @EnumSource(FsyncPolicy.class)
    void everyAcknowledgedWriteOfConcurrentWritersSurvivesACrash(FsyncPolicy policy) throws Exception {
        Path dir = tmp.resolve("live");
        ConcurrentLinkedQueue<Integer> acknowledged = new ConcurrentLinkedQueue<>();
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService writers = Executors.newFixedThreadPool(8);
        try (JournaledSeenSet<MapSeenSet> set =
                builder(dir).fsync(policy).groupRecords(64).open()) {
            List<Future<?>> running = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                int thread = t;
                running.add(writers.submit(() -> {
                    for (int i = thread; !stop.get(); i += 8) {
                        assertThat(set.checkThenAdd(key(i), i + 1)).isEqualTo(Verdict.NEW);
                        acknowledged.add(i);
                    }
                }));
            }
            while (acknowledged.size() < 3000) {
                Thread.onSpinWait();
            }
            List<Integer> before = List.copyOf(acknowledged);
            Path crashed = Crash.copy(dir, tmp.resolve("crashed")); // copied while the writers go on
            stop.set(true);
            for (Future<?> f : running) {
                f.get();
            }
            try (JournaledSeenSet<MapSeenSet> reopened = builder(crashed).open()) {
                assertThat(before)
                        .allSatisfy(i -> assertThat(reopened.checkThenAdd(key(i), i + 1))
                                .as("key %d", i)
                                .isEqualTo(Verdict.RETRY));
            }
        } finally {
            writers.shutdownNow();
        }
    }

    @Test
    void aClosedStoreRefusesWritesButNotItsDirectoryToTheNextOpen() throws IOException {
        Path dir = tmp.resolve("store");
        JournaledSeenSet<MapSeenSet> set = builder(dir).open();
        set.add(key(1));
        assertThatThrownBy(() -> builder(dir).open())
                .isInstanceOf(IOException.class)
                .hasMessageContaining("already open");
        set.close();
        assertThatThrownBy(() -> set.add(key(2)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
        assertThat(set.snapshotNow()).isCompletedExceptionally();
        try (JournaledSeenSet<MapSeenSet> reopened = builder(dir).open()) {
            assertThat(reopened.check(key(1))).isTrue();
        }
    }

    /**
     * A snapshot asked for while the store closes completes, one way or the other, even one queued between the final
     * snapshot and the end of the snapshot queue: a caller waiting for it (DJ.SNAPSHOT, the last BF.LOADCHUNK, racing
     * a clear or a shutdown) would otherwise wait forever.
     */
    @Test
    void aSnapshotAskedForWhileTheStoreClosesIsNeverLeftUnanswered() throws Exception {
        for (int round = 0; round < 200; round++) {
            Path dir = tmp.resolve("store-" + round);
            JournaledSeenSet<MapSeenSet> set = builder(dir).open();
            set.add(key(round));
            List<java.util.concurrent.CompletableFuture<Path>> asked = new ArrayList<>();
            AtomicBoolean closing = new AtomicBoolean();
            Thread asker = Thread.ofPlatform().start(() -> {
                while (!closing.get()) {
                    Thread.onSpinWait();
                }
                for (int i = 0; i < 200; i++) {
                    asked.add(set.snapshotNow());
                }
            });
            closing.set(true);
            set.close();
            asker.join();
            for (java.util.concurrent.CompletableFuture<Path> snapshot : asked) {
                try {
                    snapshot.get(10, java.util.concurrent.TimeUnit.SECONDS);
                } catch (java.util.concurrent.ExecutionException refusedAsClosed) {
                    assertThat(refusedAsClosed.getCause()).hasMessageContaining("closed");
                }
            }
        }
    }

    @Test
    void closingDiscardingWritesNoFinalSnapshotAndRefusesSnapshotsAskedFor() throws Exception {
        Path dir = tmp.resolve("store");
        JournaledSeenSet<MapSeenSet> set = builder(dir).open();
        set.add(key(1));
        set.snapshotNow().join();
        set.add(key(2));
        set.closeDiscarding();
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.filter(f -> f.getFileName().toString().startsWith("snapshot-")))
                    .hasSize(1);
        }
        assertThat(set.snapshotNow()).isCompletedExceptionally();
        Path kept = tmp.resolve("kept");
        JournaledSeenSet<MapSeenSet> closed = builder(kept).open();
        closed.add(key(1));
        closed.close();
        try (Stream<Path> files = Files.list(kept)) {
            assertThat(files.filter(f -> f.getFileName().toString().startsWith("snapshot-")))
                    .as("close() does")
                    .hasSize(1);
        }
    }

    /**
     * A clear does not wait for a snapshot in progress of the content it throws away (seconds for a large filter):
     * the snapshot gives up at its next write, leaves no file, and its caller is told the store was closed.
     */
    @Test
    void closingDiscardingAbandonsASnapshotInProgress() throws Exception {
        java.util.concurrent.CountDownLatch writing = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch closing = new java.util.concurrent.CountDownLatch(1);
        SnapshotCodec<MapSeenSet> slow = new SnapshotCodec<>() {
            @Override
            public void write(MapSeenSet store, java.io.OutputStream out) throws IOException {
                out.write(new byte[64]);
                writing.countDown();
                try {
                    closing.await();
                } catch (InterruptedException e) {
                    throw new java.io.InterruptedIOException();
                }
                MapSeenSet.CODEC.write(store, out);
            }

            @Override
            public MapSeenSet read(java.io.InputStream in) throws IOException {
                return MapSeenSet.CODEC.read(in);
            }
        };
        Path dir = tmp.resolve("store");
        JournaledSeenSet<MapSeenSet> set = JournaledSeenSet.builder(dir, slow, MapSeenSet::new)
                .snapshotInterval(Duration.ZERO)
                .open();
        set.add(key(1));
        java.util.concurrent.CompletableFuture<Path> snapshot = set.snapshotNow();
        writing.await();
        Thread closer = Thread.ofPlatform().start(set::closeDiscarding);
        while (closer.getState() != Thread.State.WAITING && closer.getState() != Thread.State.TERMINATED) {
            Thread.onSpinWait(); // until the close waits for the snapshot in progress
        }
        closing.countDown();
        closer.join();
        assertThat(snapshot)
                .failsWithin(Duration.ofSeconds(10))
                .withThrowableThat()
                .withMessageContaining("discarded");
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(f -> f.getFileName().toString())).noneMatch(f -> f.startsWith("snapshot-"));
        }
    }

    @Test
    void badSettingsAreRejectedWithTheirRange() {
        Path dir = tmp.resolve("store");
        assertThatThrownBy(() -> builder(dir).segmentBytes(100))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("segmentBytes must be in [4096, ");
        assertThatThrownBy(() -> builder(dir).bufferRecords(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bufferRecords must be in [1, ");
        assertThatThrownBy(() -> builder(dir).snapshotInterval(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("snapshotInterval");
        assertThatThrownBy(() -> JournaledSeenSet.builder(dir, null, MapSeenSet::new))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("codec");
        assertThat(dir).doesNotExist();
    }

    @Test
    void replacedContentIsWhatTheDirectoryHoldsAndTheJournalGoesOnAfterIt() throws IOException {
        Path dir = tmp.resolve("store");
        try (JournaledSeenSet<MapSeenSet> set = builder(dir).segmentBytes(4096).open()) {
            set.addAll(keys(0, 300)); // several segments
            set.snapshotNow().join();
            set.addAll(keys(300, 350)); // journaled after the snapshot
            set.closeDiscarding();
            MapSeenSet replacement = new MapSeenSet();
            replacement.addAll(keys(1000, 1010));
            JournaledSeenSet.replaceContent(dir, MapSeenSet.CODEC, replacement);
        }
        try (JournaledSeenSet<MapSeenSet> set = builder(dir).open()) {
            assertThat(set.recovery().clean()).isTrue();
            assertThat(set.checkAll(keys(1000, 1010))).containsOnly(true);
            assertThat(set.checkAll(keys(0, 350)))
                    .as("the old content, snapshotted and journaled")
                    .containsOnly(false);
            set.addAll(keys(2000, 2005));
        }
        try (JournaledSeenSet<MapSeenSet> set = builder(dir).open()) {
            assertThat(set.checkAll(keys(2000, 2005)))
                    .as("written after the replacement")
                    .containsOnly(true);
            assertThat(set.checkAll(keys(1000, 1010))).containsOnly(true);
            assertThat(set.checkAll(keys(0, 350))).containsOnly(false);
        }
    }

    @Test
    void aReplacementThatCannotBeWrittenLeavesTheOldContentWhole() throws IOException {
        Path dir = tmp.resolve("store");
        try (JournaledSeenSet<MapSeenSet> set = builder(dir).open()) {
            writeHistory(set);
        }
        SnapshotCodec<MapSeenSet> failing = new SnapshotCodec<>() {
            @Override
            public void write(MapSeenSet store, java.io.OutputStream out) throws IOException {
                out.write(new byte[100]);
                throw new IOException("No space left on device");
            }

            @Override
            public MapSeenSet read(java.io.InputStream in) throws IOException {
                return MapSeenSet.CODEC.read(in);
            }
        };
        MapSeenSet replacement = new MapSeenSet();
        replacement.add(key(5000));
        assertThatThrownBy(() -> JournaledSeenSet.replaceContent(dir, failing, replacement))
                .hasMessageContaining("No space left");
        try (JournaledSeenSet<MapSeenSet> set = builder(dir).open()) {
            assertHistory(set);
            assertThat(set.check(key(5000))).isFalse();
        }
    }
}
