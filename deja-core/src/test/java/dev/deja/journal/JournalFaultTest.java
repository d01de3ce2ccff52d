package dev.deja.journal;

import static dev.deja.journal.JournaledSeenSetTest.key;
import static dev.deja.journal.JournaledSeenSetTest.keys;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.journal.deferred.DeferredWrites;
import dev.deja.seen.Guarantee;
import dev.deja.seen.Verdict;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

@Timeout(120) // a regression that blocks reads or writers would otherwise hang the build
class JournalFaultTest {

    @TempDir
    Path tmp;

    @Test
    void aSlowDiskMakesWritersWaitInsteadOfBufferingWithoutBound() throws Exception {
        Path dir = tmp.resolve("store");
        FaultyChannel.Disk disk = new FaultyChannel.Disk();
        MapSeenSet memory = new MapSeenSet();
        int buffer = 8;
        int group = 4;
        try (JournaledSeenSet<MapSeenSet> set = JournaledSeenSet.builder(dir, MapSeenSet.CODEC, () -> memory)
                .snapshotInterval(Duration.ZERO)
                .fsync(FsyncPolicy.NO)
                .bufferRecords(buffer)
                .channelOpener(disk)
                .groupRecords(group)
                .open()) {
            disk.stall(); // the disk takes no more writes until resumed
            List<Thread> writers = new ArrayList<>();
            try {
                for (int i = 0; i < 40; i++) {
                    byte[] k = key(i);
                    writers.add(Thread.ofPlatform().start(() -> set.add(k)));
                }
                // Wait until the queue has filled and every writer is parked (waiting for room, for the lock or
                // for the disk). Without a bound every change would be applied and queued by then.
                while (memory.owners.size() <= buffer
                        || !writers.stream().allMatch(t -> t.getState() == Thread.State.WAITING)) {
                    Thread.sleep(5);
                }
                assertThat(memory.owners.size())
                        .as("changes applied while the disk is stalled")
                        .isLessThanOrEqualTo(buffer + group + 1);
                // a writer holds the store's lock while it waits for room: reads must not need that lock
                int applied = memory.owners.size();
                boolean[] held = set.checkAll(keys(0, 40));
                assertThat(IntStream.range(0, 40).filter(i -> held[i]).count()).isGreaterThanOrEqualTo(applied);
            } finally {
                disk.resume();
            }
            for (Thread t : writers) {
                t.join();
            }
            assertThat(set.checkAll(keys(0, 40))).containsOnly(true);
            try (JournaledSeenSet<MapSeenSet> crashed = JournaledSeenSetTest.builder(
                            Crash.copy(dir, tmp.resolve("crashed")))
                    .open()) {
                assertThat(crashed.recovery().recordsReplayed()).isEqualTo(40);
                assertThat(crashed.checkAll(keys(0, 40))).containsOnly(true);
            }
        }
    }

    /**
     * Group commit under {@code always}: while one group is written and fsynced, the writes that arrive meanwhile
     * wait together and the next drain writes and fsyncs them with one call each, whichever shared thread runs it.
     */
    @Test
    void underAlwaysTheWritesThatArriveWhileAGroupIsWrittenShareTheNextWriteAndFsync() throws Exception {
        Path dir = tmp.resolve("store");
        FaultyChannel.Disk disk = new FaultyChannel.Disk();
        MapSeenSet memory = new MapSeenSet();
        try (JournaledSeenSet<MapSeenSet> set = JournaledSeenSet.builder(dir, MapSeenSet.CODEC, () -> memory)
                .snapshotInterval(Duration.ZERO)
                .fsync(FsyncPolicy.ALWAYS)
                .channelOpener(disk)
                .open()) {
            int writesBefore = disk.writes.get();
            int forcesBefore = disk.forces.get();
            disk.stall(); // the first group's write waits until resumed
            List<Thread> writers = new ArrayList<>();
            try {
                for (int i = 0; i < 20; i++) {
                    byte[] k = key(i);
                    writers.add(Thread.ofPlatform().start(() -> set.add(k)));
                }
                // every writer has applied and appended its change and waits for it to be durable
                while (memory.owners.size() < 20
                        || !writers.stream().allMatch(t -> t.getState() == Thread.State.WAITING)) {
                    Thread.sleep(5);
                }
            } finally {
                disk.resume();
            }
            for (Thread t : writers) {
                t.join();
            }
            assertThat(disk.writes.get() - writesBefore)
                    .as("writes for 20 records")
                    .isLessThanOrEqualTo(2);
            assertThat(disk.forces.get() - forcesBefore)
                    .as("fsyncs for 20 records")
                    .isLessThanOrEqualTo(2);
            try (JournaledSeenSet<MapSeenSet> crashed = JournaledSeenSetTest.builder(
                            Crash.copy(dir, tmp.resolve("crashed")))
                    .open()) {
                assertThat(crashed.checkAll(keys(0, 20))).containsOnly(true);
            }
        }
    }

    @ParameterizedTest // the background work writes under always, the caller itself under everysec
    @EnumSource(
            value = FsyncPolicy.class,
            names = {"ALWAYS", "EVERYSEC"})
    void aFullDiskFailsWritersKeepsReadsAndRecoversWhenSpaceReturns(FsyncPolicy policy) throws Exception {
        Path dir = tmp.resolve("store");
        FaultyChannel.Disk disk = new FaultyChannel.Disk();
        // journaled as a bloom filter is: it cannot forget, so a failed add stays (within its declared error)
        try (JournaledSeenSet<MapSeenSet> set = JournaledSeenSet.builder(dir, MapSeenSet.CODEC, () -> {
                    MapSeenSet cannotForget = new MapSeenSet();
                    cannotForget.guarantee = Guarantee.NEVER_FALSE_NEW;
                    return cannotForget;
                })
                .snapshotInterval(Duration.ZERO)
                .fsync(policy)
                .channelOpener(disk)
                .retryDelay(Duration.ofMillis(5))
                .open()) {
            set.addAll(keys(0, 100));
            disk.full = true;

            assertThatThrownBy(() -> set.add(key(100)))
                    .isInstanceOf(JournalWriteException.class)
                    .hasMessageContaining("No space left on device")
                    .hasMessageContaining("not durable");
            assertThatThrownBy(() -> set.checkThenAdd(key(101)))
                    .isInstanceOf(JournalWriteException.class)
                    .hasMessageContaining("writes are refused until the disk accepts them, reads continue");
            assertThatThrownBy(() -> set.forget(key(1))).isInstanceOf(JournalWriteException.class);
            assertThat(set.check(key(101)))
                    .as("a refused write changes nothing")
                    .isFalse();
            assertThat(set.check(key(1))).as("a refused forget changes nothing").isTrue();
            assertThat(set.checkAll(keys(0, 100))).containsOnly(true);

            disk.full = false;
            assertThat(retryUntilWritten(() -> set.checkThenAdd(key(102)))).isEqualTo(Verdict.NEW);

            try (JournaledSeenSet<MapSeenSet> crashed = JournaledSeenSetTest.builder(
                            Crash.copy(dir, tmp.resolve("crashed")))
                    .open()) {
                assertThat(crashed.recovery().clean())
                        .as("the partial write was cut off")
                        .isTrue();
                assertThat(crashed.checkAll(keys(0, 100))).containsOnly(true);
                assertThat(crashed.check(key(102))).isTrue();
                // applied in memory when its write failed, so retried and written once the disk recovered
                assertThat(crashed.check(key(100))).isTrue();
                assertThat(crashed.check(key(101))).isFalse();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = FsyncPolicy.class,
            names = {"ALWAYS", "EVERYSEC"})
    void aFailedAddIsTakenBackSoThatItsRetryIsNewInMemoryAndAfterACrash(FsyncPolicy policy) throws Exception {
        Path dir = tmp.resolve("store");
        FaultyChannel.Disk disk = new FaultyChannel.Disk();
        try (JournaledSeenSet<MapSeenSet> set = onDisk(dir, disk, policy)) {
            set.addAll(keys(0, 100));
            disk.full = true;

            // a batch with a key already held: only the two it added are taken back
            assertThatThrownBy(() -> set.checkThenAddAll(keys(99, 102), new long[] {7, 7, 0}))
                    .isInstanceOf(JournalWriteException.class)
                    .hasMessageContaining("No space left on device")
                    .hasMessageContaining("nothing this call added is kept");
            assertThat(set.checkAll(keys(99, 102)))
                    .as("answered only once taken back")
                    .containsExactly(true, false, false);
            assertThatThrownBy(() -> set.add(key(102)))
                    .isInstanceOf(JournalWriteException.class)
                    .hasMessageContaining("writes are refused");

            disk.full = false;
            assertThat(retryUntilWritten(() -> set.checkThenAdd(key(100))))
                    .as("the retry without an owner is new, not a duplicate")
                    .isEqualTo(Verdict.NEW);
            assertThat(set.check(key(101))).isFalse();

            try (JournaledSeenSet<MapSeenSet> crashed = JournaledSeenSetTest.builder(
                            Crash.copy(dir, tmp.resolve("crashed")))
                    .open()) {
                assertThat(crashed.recovery().clean()).isTrue();
                // ADD 100 and 101 (written once the disk recovered), their FORGETs, then the retry's ADD 100
                assertThat(crashed.recovery().recordsReplayed()).isEqualTo(100 + 2 + 2 + 1);
                assertThat(crashed.checkAll(keys(0, 102)))
                        .as("the retried key is held, the other is not")
                        .containsExactly(java.util.stream.IntStream.range(0, 102)
                                .mapToObj(i -> i != 101)
                                .toArray(Boolean[]::new));
            }
        }
        try (JournaledSeenSet<MapSeenSet> reopened =
                JournaledSeenSetTest.builder(dir).open()) {
            assertThat(reopened.check(key(101))).as("after a clean close too").isFalse();
            assertThat(reopened.checkThenAdd(key(101))).isEqualTo(Verdict.NEW);
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = FsyncPolicy.class,
            names = {"ALWAYS", "EVERYSEC"})
    void aStoreOpensOnAFullDiskServesReadsAndTakesWritesOnceThereIsRoom(FsyncPolicy policy) throws Exception {
        Path dir = tmp.resolve("store");
        try (JournaledSeenSet<MapSeenSet> set =
                JournaledSeenSetTest.builder(dir).fsync(policy).open()) {
            set.addAll(keys(0, 100));
        }
        FaultyChannel.Disk disk = new FaultyChannel.Disk();
        disk.full = true; // the new segment's header cannot be written
        try (JournaledSeenSet<MapSeenSet> set = onDisk(dir, disk, policy)) {
            assertThat(set.checkAll(keys(0, 100))).as("recovered and readable").containsOnly(true);
            assertThatThrownBy(() -> set.add(key(100)))
                    .isInstanceOf(JournalWriteException.class)
                    .hasMessageContaining("No space left on device")
                    .hasMessageContaining("reads continue");
            assertThat(set.check(key(100)))
                    .as("a refused write changes nothing")
                    .isFalse();

            disk.full = false;
            assertThat(retryUntilWritten(() -> set.checkThenAdd(key(100)))).isEqualTo(Verdict.NEW);
            try (JournaledSeenSet<MapSeenSet> crashed = JournaledSeenSetTest.builder(
                            Crash.copy(dir, tmp.resolve("crashed")))
                    .open()) {
                assertThat(crashed.recovery().clean()).isTrue();
                assertThat(crashed.checkAll(keys(0, 101))).containsOnly(true);
            }
        }
    }

    @ParameterizedTest // found by the background work once a second (everysec), before a group's write (always)
    @EnumSource(
            value = FsyncPolicy.class,
            names = {"ALWAYS", "EVERYSEC"})
    void aSegmentDeletedWhileInUseIsReplacedAndItsChangesSnapshotted(FsyncPolicy policy) throws Exception {
        Path dir = tmp.resolve("store");
        try (JournaledSeenSet<MapSeenSet> set =
                JournaledSeenSetTest.builder(dir).fsync(policy).open()) {
            set.addAll(keys(0, 100));
            Path segment = dir.resolve(Segment.fileName(0));
            Files.delete(segment); // a clean-up of *.log files, say
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            int next = 100;
            while (!Files.exists(segment) && snapshots(dir).isEmpty()) { // (never recreated under its own name)
                assertThat(System.nanoTime())
                        .as("a snapshot follows the deletion")
                        .isLessThan(deadline);
                set.add(key(next++)); // under always the check runs before a write
                Thread.sleep(50);
            }
            int written = next;
            set.addAll(keys(written, written + 100));
            try (JournaledSeenSet<MapSeenSet> crashed = JournaledSeenSetTest.builder(
                            Crash.copy(dir, tmp.resolve("crashed")))
                    .open()) {
                assertThat(crashed.recovery().problems()).as("nothing missing").isEmpty();
                assertThat(crashed.checkAll(keys(0, written + 100)))
                        .as("every change, the deleted file's included")
                        .containsOnly(true);
            }
        }
    }

    private static List<Path> snapshots(Path dir) throws IOException {
        try (var files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().matches("snapshot-\\d+\\.snap"))
                    .toList();
        }
    }

    /**
     * A write that failed halfway, on a disk that then also refused to truncate it, leaves part of a group at the
     * segment's end; it is cut before the next write. When the retry starts a new segment instead (the records
     * waiting, with the failed add's take-back, no longer fit), the old segment must be cut first: recovery reads
     * bytes after the last record of a segment that is not the last as damage, and would set aside the new segment
     * with every acknowledged write it holds.
     */
    @ParameterizedTest
    @EnumSource(
            value = FsyncPolicy.class,
            names = {"ALWAYS", "EVERYSEC"})
    void aPartialWriteLeftByAFailingDiskIsCutBeforeTheSegmentRollsOver(FsyncPolicy policy) throws Exception {
        Path dir = tmp.resolve("store");
        FaultyChannel.Disk disk = new FaultyChannel.Disk();
        int fit = (4096 - Segment.HEADER_BYTES) / Segment.RECORD_BYTES; // 110 records fill a 4 KiB segment
        try (JournaledSeenSet<MapSeenSet> set = JournaledSeenSetTest.builder(dir)
                .fsync(policy)
                .segmentBytes(4096)
                .channelOpener(disk)
                .retryDelay(Duration.ofMillis(5))
                .open()) {
            for (int i = 0; i < fit - 1; i++) {
                set.add(key(i));
            }
            disk.full = true;
            disk.truncateFails = true;
            assertThatThrownBy(() -> set.add(key(fit - 1))).isInstanceOf(JournalWriteException.class);
            // its ADD and the FORGET taking it back wait; together they no longer fit in the segment
            disk.truncateFails = false;
            disk.full = false;
            assertThat(retryUntilWritten(() -> set.checkThenAdd(key(1000)))).isEqualTo(Verdict.NEW);
            assertThat(Segment.list(dir)).hasSize(2);

            try (JournaledSeenSet<MapSeenSet> crashed = JournaledSeenSetTest.builder(
                            Crash.copy(dir, tmp.resolve("crashed")))
                    .open()) {
                assertThat(crashed.recovery().setAside())
                        .as(crashed.recovery().summary())
                        .isEmpty();
                assertThat(crashed.check(key(1000)))
                        .as("acknowledged after the disk recovered")
                        .isTrue();
                assertThat(crashed.checkAll(keys(0, fit - 1))).containsOnly(true);
                assertThat(crashed.check(key(fit - 1))).as("taken back").isFalse();
            }
        }
    }

    @Test
    void anAsyncBatchFailsOnlyAfterItsKeysAreTakenBack() throws Exception {
        Path dir = tmp.resolve("store");
        FaultyChannel.Disk disk = new FaultyChannel.Disk();
        try (JournaledSeenSet<MapSeenSet> set = onDisk(dir, disk, FsyncPolicy.ALWAYS)) {
            disk.stall();
            CompletableFuture<Verdict[]> added;
            try {
                added = set.checkThenAddAllAsync(keys(0, 3), new long[] {1, 2, 3});
                assertThat(set.checkAll(keys(0, 3)))
                        .as("applied before durable")
                        .containsOnly(true);
                disk.full = true;
            } finally {
                disk.resume();
            }
            assertThatThrownBy(added::join)
                    .hasCauseInstanceOf(JournalWriteException.class)
                    .hasMessageContaining("nothing this call added is kept");
            assertThat(set.checkAll(keys(0, 3))).containsOnly(false);
            disk.full = false;
            assertThat(retryUntilWritten(() -> set.checkThenAddAll(keys(0, 3), new long[] {1, 2, 3})))
                    .containsOnly(Verdict.NEW);
        }
    }

    /** Repeats a write until the journal, retrying in the background, takes writes again. */
    private static <T> T retryUntilWritten(java.util.function.Supplier<T> write) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            try {
                return write.get();
            } catch (JournalWriteException stillFailing) {
                assertThat(System.nanoTime()).as("journal recovers").isLessThan(deadline);
                Thread.sleep(5);
            }
        }
    }

    @Test
    void asyncBatchesAnswerAtOnceAndCompleteWhenDurable() throws Exception {
        Path dir = tmp.resolve("store");
        FaultyChannel.Disk disk = new FaultyChannel.Disk();
        try (JournaledSeenSet<MapSeenSet> set = onDisk(dir, disk, FsyncPolicy.ALWAYS)) {
            disk.stall();
            CompletableFuture<Verdict[]> added;
            CompletableFuture<Verdict[]> duplicate;
            try {
                added = set.checkThenAddAllAsync(keys(0, 3), new long[] {1, 2, 3});
                assertThat(set.checkAll(keys(0, 3)))
                        .as("applied before durable")
                        .containsOnly(true);
                assertThat(added).as("the disk has not taken the write").isNotDone();
                duplicate = set.checkThenAddAllAsync(keys(0, 1), null);
                assertThat(duplicate)
                        .as("a duplicate waits for the write it observed")
                        .isNotDone();
            } finally {
                disk.resume();
            }
            assertThat(added.get()).containsExactly(Verdict.NEW, Verdict.NEW, Verdict.NEW);
            assertThat(duplicate.get()).containsExactly(Verdict.DUPLICATE);
            assertThat(set.checkThenAddAllAsync(keys(0, 1), new long[] {1}))
                    .as("nothing pending: answered at once")
                    .isCompletedWithValueMatching(v -> v[0] == Verdict.RETRY);

            disk.full = true;
            CompletableFuture<boolean[]> forgot = set.forgetAllAsync(keys(0, 1), null);
            assertThatThrownBy(forgot::join)
                    .hasCauseInstanceOf(JournalWriteException.class)
                    .hasMessageContaining("No space left on device");
            assertThatThrownBy(set.checkThenAddAllAsync(keys(5, 6), null)::join)
                    .hasCauseInstanceOf(JournalWriteException.class)
                    .hasMessageContaining("writes are refused");
            assertThat(set.check(key(5))).isFalse();
        }
    }

    @Test
    void everysecAnswersOnceWrittenByTheCallerAndFsyncsWithinAboutASecond() throws Exception {
        Path dir = tmp.resolve("store");
        FaultyChannel.Disk disk = new FaultyChannel.Disk();
        try (JournaledSeenSet<MapSeenSet> set = everysec(dir, disk)) {
            int forcedAtOpen = disk.forces.get();
            CompletableFuture<Verdict[]> added = set.checkThenAddAllAsync(keys(0, 3), null);
            assertThat(added)
                    .as("written to the file before the call returned")
                    .isCompletedWithValueMatching(v -> v.length == 3 && v[2] == Verdict.NEW);
            try (JournaledSeenSet<MapSeenSet> crashed = JournaledSeenSetTest.builder(
                            Crash.copy(dir, tmp.resolve("crashed")))
                    .open()) {
                assertThat(crashed.checkAll(keys(0, 3)))
                        .as("a killed process keeps it")
                        .containsOnly(true);
            }
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (disk.forces.get() == forcedAtOpen) {
                assertThat(System.nanoTime()).as("the background fsync comes").isLessThan(deadline);
                Thread.sleep(10);
            }
        }
    }

    @Test
    void deferredWritesWriteAPipelineOfCallsOnceAtTheEnd() throws Exception {
        Path dir = tmp.resolve("store");
        FaultyChannel.Disk disk = new FaultyChannel.Disk();
        try (JournaledSeenSet<MapSeenSet> set = everysec(dir, disk)) {
            int writesBefore = disk.writes.get();
            List<CompletableFuture<Verdict[]>> replies = new ArrayList<>();
            DeferredWrites.run(() -> {
                for (int i = 0; i < 10; i++) {
                    replies.add(set.checkThenAddAllAsync(keys(i, i + 1), null));
                }
                assertThat(replies).as("not written before the run ends").noneMatch(CompletableFuture::isDone);
                replies.add(set.checkThenAddAllAsync(keys(0, 1), null)); // a duplicate of a pending add
            });
            assertThat(replies).as("written when the run ends").allMatch(CompletableFuture::isDone);
            assertThat(disk.writes.get() - writesBefore)
                    .as("one write for the whole pipeline")
                    .isEqualTo(1);
            assertThat(replies.getLast().get()).containsExactly(Verdict.DUPLICATE);
            try (JournaledSeenSet<MapSeenSet> crashed = JournaledSeenSetTest.builder(
                            Crash.copy(dir, tmp.resolve("crashed")))
                    .open()) {
                assertThat(crashed.recovery().recordsReplayed()).isEqualTo(10);
                assertThat(crashed.checkAll(keys(0, 10))).containsOnly(true);
            }
        }
    }

    /** A store on the faulty disk, retrying failed writes every 5 ms. */
    private static JournaledSeenSet<MapSeenSet> onDisk(Path dir, FaultyChannel.Disk disk, FsyncPolicy policy)
            throws IOException {
        return JournaledSeenSetTest.builder(dir)
                .fsync(policy)
                .channelOpener(disk)
                .retryDelay(Duration.ofMillis(5))
                .open();
    }

    private static JournaledSeenSet<MapSeenSet> everysec(Path dir, FaultyChannel.Disk disk) throws IOException {
        return JournaledSeenSetTest.builder(dir)
                .fsync(FsyncPolicy.EVERYSEC)
                .channelOpener(disk)
                .open();
    }
}
