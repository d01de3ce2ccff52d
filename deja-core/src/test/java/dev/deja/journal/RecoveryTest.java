package dev.deja.journal;

import static dev.deja.journal.JournaledSeenSetTest.addInFourSnapshottedRounds;
import static dev.deja.journal.JournaledSeenSetTest.key;
import static dev.deja.journal.JournaledSeenSetTest.keys;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.hash.Hash128;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Damage to the journal as a crash or a bad disk leaves it, and what recovery makes of it. */
class RecoveryTest {

    private static final int RECORDS = 20;

    @TempDir
    Path tmp;

    /** A crashed directory holding one segment of 20 ADD records (keys 0..19), one record per group. */
    private Path pristine;

    private String segmentName;
    private int copies;

    @BeforeEach
    void writeJournal() throws IOException {
        Path live = tmp.resolve("live");
        try (JournaledSeenSet<MapSeenSet> set =
                JournaledSeenSetTest.builder(live).fsync(FsyncPolicy.NO).open()) {
            for (int i = 0; i < RECORDS; i++) {
                set.add(key(i));
            }
            pristine = Crash.copy(live, tmp.resolve("pristine"));
        }
        segmentName = Segment.fileName(0);
        assertThat(Files.size(pristine.resolve(segmentName)))
                .isEqualTo(Segment.HEADER_BYTES + RECORDS * Segment.RECORD_BYTES);
    }

    private Path copyWith(byte[] segment) throws IOException {
        Path dir = Crash.copy(pristine, tmp.resolve("copy" + copies++));
        Files.write(dir.resolve(segmentName), segment);
        return dir;
    }

    private static int offsetOf(int record) {
        return Segment.HEADER_BYTES + record * Segment.RECORD_BYTES;
    }

    @Test
    void aTornLastRecordIsCutAtEveryLength() throws IOException {
        byte[] full = Files.readAllBytes(pristine.resolve(segmentName));
        for (int kept = 0; kept < Segment.RECORD_BYTES; kept++) {
            Path dir = copyWith(Arrays.copyOf(full, offsetOf(RECORDS - 1) + kept));
            try (JournaledSeenSet<MapSeenSet> set =
                    JournaledSeenSetTest.builder(dir).open()) {
                RecoveryReport report = set.recovery();
                assertThat(report.recordsReplayed()).as("kept %d bytes", kept).isEqualTo(RECORDS - 1);
                assertThat(report.bytesCut()).isEqualTo(kept);
                assertThat(report.setAside()).isEmpty();
                assertThat(set.checkAll(keys(0, RECORDS - 1))).containsOnly(true);
                assertThat(set.check(key(RECORDS - 1))).isFalse();
                assertThat(Files.size(dir.resolve(segmentName))).isEqualTo(offsetOf(RECORDS - 1));
                if (kept > 0) {
                    assertThat(report.problems()).singleElement().asString().contains("torn tail after record 18");
                } else {
                    assertThat(report.clean()).isTrue();
                }
            }
        }
    }

    @Test
    void aLastRecordWithAnyFlippedByteIsCut() throws IOException {
        byte[] full = Files.readAllBytes(pristine.resolve(segmentName));
        for (int at = offsetOf(RECORDS - 1); at < full.length; at++) {
            byte[] damaged = full.clone();
            damaged[at] ^= (byte) (1 << (at % 8));
            try (JournaledSeenSet<MapSeenSet> set =
                    JournaledSeenSetTest.builder(copyWith(damaged)).open()) {
                assertThat(set.recovery().recordsReplayed())
                        .as("flipped byte %d", at)
                        .isEqualTo(RECORDS - 1);
                assertThat(set.recovery().bytesCut()).isEqualTo(Segment.RECORD_BYTES);
                assertThat(set.check(key(RECORDS - 1))).isFalse();
            }
        }
    }

    @Test
    void damageFollowedByValidRecordsStopsReplayAndKeepsTheRestAside() throws IOException {
        byte[] full = Files.readAllBytes(pristine.resolve(segmentName));
        byte[] damaged = full.clone();
        damaged[offsetOf(5) + 20] ^= 1;
        Path dir = copyWith(damaged);
        try (JournaledSeenSet<MapSeenSet> set =
                JournaledSeenSetTest.builder(dir).open()) {
            RecoveryReport report = set.recovery();
            assertThat(report.recordsReplayed()).isEqualTo(5);
            assertThat(report.bytesCut()).isZero();
            assertThat(report.problems())
                    .first()
                    .asString()
                    .contains("record 5 at byte " + offsetOf(5) + " is damaged and valid data follows");
            Path aside = dir.resolve(segmentName + "." + offsetOf(5) + ".corrupt");
            assertThat(report.setAside()).containsExactly(aside);
            assertThat(Files.readAllBytes(aside)).isEqualTo(Arrays.copyOfRange(damaged, offsetOf(5), full.length));
            assertThat(Files.size(dir.resolve(segmentName))).isEqualTo(offsetOf(5));
            assertThat(set.checkAll(keys(0, 5))).containsOnly(true);
            assertThat(set.checkAll(keys(5, RECORDS))).containsOnly(false);
            set.add(key(100));
        }
        try (JournaledSeenSet<MapSeenSet> again =
                JournaledSeenSetTest.builder(dir).open()) {
            assertThat(again.recovery().clean())
                    .as("the set-aside file is never loaded")
                    .isTrue();
            assertThat(again.check(key(100))).isTrue();
            assertThat(again.check(key(5))).isFalse();
        }
    }

    @Test
    void aDamagedSegmentHeaderLosesNoRecordThatPassesItsOwnChecks() throws IOException {
        byte[] full = Files.readAllBytes(pristine.resolve(segmentName));
        for (int at = 0; at < Segment.HEADER_BYTES; at++) {
            byte[] damaged = full.clone();
            damaged[at] ^= 4;
            Path dir = copyWith(damaged);
            try (JournaledSeenSet<MapSeenSet> set =
                    JournaledSeenSetTest.builder(dir).open()) {
                assertThat(set.recovery().recordsReplayed())
                        .as("flipped header byte %d", at)
                        .isEqualTo(RECORDS);
                assertThat(set.checkAll(keys(0, RECORDS))).containsOnly(true);
                assertThat(set.recovery().setAside()).isEmpty();
                assertThat(set.recovery().problems())
                        .singleElement()
                        .asString()
                        .contains("damaged header")
                        .contains("replayed");
                set.add(key(RECORDS));
            }
            try (JournaledSeenSet<MapSeenSet> again =
                    JournaledSeenSetTest.builder(dir).open()) {
                assertThat(again.checkAll(keys(0, RECORDS + 1)))
                        .as("after a second open")
                        .containsOnly(true);
            }
        }
    }

    @Test
    void aDamagedHeaderOverDamagedRecordsSetsTheWholeSegmentAside() throws IOException {
        byte[] damaged = Files.readAllBytes(pristine.resolve(segmentName));
        damaged[9] ^= 4; // inside the first sequence number
        damaged[offsetOf(0) + 12] ^= 4; // and the first record
        Path dir = copyWith(damaged);
        try (JournaledSeenSet<MapSeenSet> set =
                JournaledSeenSetTest.builder(dir).open()) {
            assertThat(set.recovery().recordsReplayed()).isZero();
            assertThat(set.recovery().setAside()).containsExactly(dir.resolve(segmentName + ".corrupt"));
            assertThat(set.recovery().problems()).first().asString().contains("damaged header");
        }
    }

    @Test
    void damageSetAsideTwiceUnderTheSameNameKeepsBothFiles() throws IOException {
        byte[] headerDamaged = Files.readAllBytes(pristine.resolve(segmentName));
        headerDamaged[9] ^= 4;
        headerDamaged[offsetOf(0) + 12] ^= 4; // and its first record, so that the whole file is set aside
        byte[] recordDamaged = Files.readAllBytes(pristine.resolve(segmentName));
        recordDamaged[offsetOf(5) + 20] ^= 1;
        Path dir = copyWith(headerDamaged);
        for (int round = 1; round <= 3; round++) {
            restore(dir, headerDamaged); // the same damage again, after a restart
            try (JournaledSeenSet<MapSeenSet> set =
                    JournaledSeenSetTest.builder(dir).open()) {
                String suffix = round == 1 ? ".corrupt" : "." + round + ".corrupt";
                assertThat(set.recovery().setAside()).containsExactly(dir.resolve(segmentName + suffix));
            }
        }
        for (int round = 1; round <= 2; round++) {
            restore(dir, recordDamaged);
            try (JournaledSeenSet<MapSeenSet> set =
                    JournaledSeenSetTest.builder(dir).open()) {
                String suffix = round == 1 ? ".corrupt" : "." + round + ".corrupt";
                assertThat(set.recovery().setAside())
                        .containsExactly(dir.resolve(segmentName + "." + offsetOf(5) + suffix));
            }
        }
        for (String kept : List.of(".corrupt", ".2.corrupt", ".3.corrupt")) {
            assertThat(Files.readAllBytes(dir.resolve(segmentName + kept)))
                    .as(kept)
                    .isEqualTo(headerDamaged);
        }
        assertThat(Files.readAllBytes(dir.resolve(segmentName + "." + offsetOf(5) + ".corrupt")))
                .isEqualTo(Arrays.copyOfRange(recordDamaged, offsetOf(5), recordDamaged.length));
    }

    /** Leaves only the set-aside files and the segment, as the crash left it but with this content. */
    private void restore(Path dir, byte[] segment) throws IOException {
        try (var files = Files.list(dir)) {
            for (Path f : files.filter(f -> !f.toString().endsWith(".corrupt")).toList()) {
                Files.delete(f);
            }
        }
        Files.write(dir.resolve(segmentName), segment);
    }

    @Test
    void aHeaderTornAtCreationIsRemoved() throws IOException {
        Path dir = Crash.copy(pristine, tmp.resolve("torn-header"));
        Files.write(dir.resolve(Segment.fileName(RECORDS)), new byte[7]);
        try (JournaledSeenSet<MapSeenSet> set =
                JournaledSeenSetTest.builder(dir).open()) {
            assertThat(set.recovery().recordsReplayed()).isEqualTo(RECORDS);
            assertThat(set.recovery().bytesCut()).isEqualTo(7);
            assertThat(set.recovery().setAside()).isEmpty();
        }
    }

    @Test
    void damageInAnOlderSegmentOrAMissingSegmentStopsReplayThere() throws IOException {
        Path live = tmp.resolve("segmented");
        Path crashed;
        try (JournaledSeenSet<MapSeenSet> set =
                JournaledSeenSetTest.builder(live).segmentBytes(4096).open()) {
            for (int i = 0; i < 300; i++) {
                set.add(key(i));
            }
            crashed = Crash.copy(live, tmp.resolve("segmented-crash"));
        }
        List<Segment.File> segments = Segment.list(crashed);
        assertThat(segments).hasSizeGreaterThanOrEqualTo(3);
        long secondStart = segments.get(1).firstSeq();

        Path flipped = Crash.copy(crashed, tmp.resolve("flipped"));
        Path first = flipped.resolve(segments.get(0).path().getFileName());
        byte[] bytes = Files.readAllBytes(first);
        bytes[bytes.length - 1] ^= 1; // the last record of a segment that was closed after it
        Files.write(first, bytes);
        try (JournaledSeenSet<MapSeenSet> set =
                JournaledSeenSetTest.builder(flipped).open()) {
            assertThat(set.recovery().recordsReplayed()).isEqualTo(secondStart - 1);
            assertThat(set.recovery().setAside()).hasSize(segments.size());
            assertThat(set.check(key((int) secondStart))).isFalse();
        }

        Path gap = Crash.copy(crashed, tmp.resolve("gap"));
        Files.delete(gap.resolve(segments.get(1).path().getFileName()));
        try (JournaledSeenSet<MapSeenSet> set =
                JournaledSeenSetTest.builder(gap).open()) {
            assertThat(set.recovery().recordsReplayed()).isEqualTo(secondStart);
            assertThat(set.recovery().problems())
                    .first()
                    .asString()
                    .contains("journal records " + secondStart + " to ")
                    .contains("are missing");
            assertThat(set.recovery().setAside()).hasSize(segments.size() - 2);
        }
    }

    /**
     * Two crashes with a snapshot before each leave snapshots at 5,000 and 15,000 and segments starting at 0 and
     * 10,000; the first segment is kept only for the older snapshot. Damage in it, a record or its header, is
     * below the newest snapshot's position: it must not cost the intact records 15,000 to 19,999 after it.
     */
    @Test
    void damageBelowTheLoadedSnapshotDoesNotStopReplayAfterIt() throws IOException {
        Path dir = tmp.resolve("two-crashes");
        try (JournaledSeenSet<MapSeenSet> set =
                JournaledSeenSetTest.builder(dir).open()) {
            set.addAll(keys(0, 5_000));
            set.snapshotNow().join();
            set.addAll(keys(5_000, 10_000));
            dir = Crash.copy(dir, tmp.resolve("crash-1"));
        }
        try (JournaledSeenSet<MapSeenSet> set =
                JournaledSeenSetTest.builder(dir).open()) {
            assertThat(set.recovery().recordsReplayed()).isEqualTo(5_000);
            set.addAll(keys(10_000, 15_000));
            set.snapshotNow().join();
            set.addAll(keys(15_000, 20_000));
            dir = Crash.copy(dir, tmp.resolve("crash-2"));
        }
        assertThat(Snapshots.list(dir)).extracting(Snapshots.Snapshot::position).containsExactly(15_000L, 5_000L);
        assertThat(Segment.list(dir)).extracting(Segment.File::firstSeq).containsExactly(0L, 10_000L);

        // inside record 7,000 and inside the header of the first segment; inside record 12,000 of the second,
        // below the position in the segment that holds it
        String[] segment = {Segment.fileName(0), Segment.fileName(0), Segment.fileName(10_000)};
        int[] at = {offsetOf(7_000) + 20, 9, offsetOf(2_000) + 20};
        for (int i = 0; i < at.length; i++) {
            Path copy = Crash.copy(dir, tmp.resolve("damaged-" + i));
            byte[] damaged = flip(copy.resolve(segment[i]), at[i]);
            try (JournaledSeenSet<MapSeenSet> set =
                    JournaledSeenSetTest.builder(copy).open()) {
                RecoveryReport report = set.recovery();
                assertThat(report.snapshotPosition()).as("case %d", i).isEqualTo(15_000);
                assertThat(report.recordsReplayed()).as("case %d", i).isEqualTo(5_000);
                assertThat(report.nextPosition()).isEqualTo(20_000);
                assertThat(report.setAside()).isEmpty();
                assertThat(report.bytesCut()).isZero();
                assertThat(set.checkAll(keys(0, 20_000))).containsOnly(true);
                assertThat(Files.readAllBytes(copy.resolve(segment[i])))
                        .as("left as it was")
                        .isEqualTo(damaged);
                assertThat(Segment.list(copy))
                        .extracting(Segment.File::firstSeq)
                        .startsWith(0L, 10_000L);
            }
        }

        // Without the newest snapshot the first segment's records from 5,000 on are needed: damage there cuts.
        Path fallback = Crash.copy(dir, tmp.resolve("fallback"));
        flip(fallback.resolve(Snapshots.fileName(15_000)), 40);
        flip(fallback.resolve(Segment.fileName(0)), offsetOf(7_000) + 20);
        try (JournaledSeenSet<MapSeenSet> set =
                JournaledSeenSetTest.builder(fallback).open()) {
            RecoveryReport report = set.recovery();
            assertThat(report.snapshotPosition()).isEqualTo(5_000);
            assertThat(report.recordsReplayed()).isEqualTo(2_000);
            assertThat(report.problems())
                    .anySatisfy(p -> assertThat(p)
                            .contains("record 7000 at byte " + offsetOf(7_000) + " is damaged and valid data follows"));
            assertThat(set.checkAll(keys(0, 7_000))).containsOnly(true);
            assertThat(set.check(key(7_000))).isFalse();
        }
    }

    @Test
    void filesNamedWithANumberBeyondTheSequenceRangeAreIgnoredWithAWarning() throws IOException {
        Path dir = Crash.copy(pristine, tmp.resolve("odd-names"));
        String tooBig = "99999999999999999999";
        Path snapshot = dir.resolve("snapshot-" + tooBig + ".snap");
        Path segment = dir.resolve("journal-" + tooBig + ".log");
        Files.write(snapshot, new byte[] {1, 2, 3});
        Files.write(segment, new byte[] {4, 5, 6});
        try (JournaledSeenSet<MapSeenSet> set =
                JournaledSeenSetTest.builder(dir).open()) {
            RecoveryReport report = set.recovery();
            assertThat(report.recordsReplayed()).isEqualTo(RECORDS);
            assertThat(report.setAside()).isEmpty();
            assertThat(report.problems())
                    .containsExactlyInAnyOrder(
                            snapshot + " ignored: " + tooBig + " is not a sequence number (the largest is "
                                    + Long.MAX_VALUE + "); the file is left in place and never read",
                            segment + " ignored: " + tooBig + " is not a sequence number (the largest is "
                                    + Long.MAX_VALUE + "); the file is left in place and never read");
            assertThat(set.checkAll(keys(0, RECORDS))).containsOnly(true);
        }
        assertThat(Files.readAllBytes(snapshot)).containsExactly(1, 2, 3);
        assertThat(Files.readAllBytes(segment)).containsExactly(4, 5, 6);
    }

    /**
     * A file recovery needs but cannot read (here a directory where a file should be; a failing disk gives the same
     * read errors) stops the open with an error naming it, and leaves every file as it was: it is not damage that
     * recovery may cut or set aside, since the bytes may well be intact.
     */
    @Test
    void aFileThatCannotBeReadStopsTheOpenWithAnErrorNamingIt() throws IOException {
        for (String name : List.of(segmentName, Segment.fileName(RECORDS), Snapshots.fileName(RECORDS))) {
            Path dir = Crash.copy(pristine, tmp.resolve("unreadable-" + copies++));
            Files.deleteIfExists(dir.resolve(name));
            Files.createDirectory(dir.resolve(name));
            Files.write(dir.resolve(name).resolve("inside"), new byte[] {1});
            List<String> before;
            try (var files = Files.list(dir)) {
                before = files.map(f -> f.getFileName().toString()).sorted().toList();
            }
            assertThatThrownBy(() -> JournaledSeenSetTest.builder(dir).open())
                    .as(name)
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining(dir.resolve(name).toString());
            try (var files = Files.list(dir)) {
                assertThat(files.map(f -> f.getFileName().toString()).sorted().toList())
                        .as(name)
                        .isEqualTo(before);
            }
        }
    }

    /**
     * Snapshots at 1,500 and 2,000 and a journal pruned to start at 1,500: records 0 to 1,499 are only in the
     * snapshots. With both damaged (or gone) the store cannot be rebuilt, and opening it empty would answer 2,000
     * seen keys "new": the open is refused, naming the rejected snapshots and the journal's first record, and
     * nothing in the directory is renamed, cut or rewritten, so every later start refuses the same way. Moving the
     * files out starts it empty, as the error says.
     */
    @Test
    void aStoreWhoseSnapshotsAreAllDamagedAndWhoseJournalWasPrunedIsNotOpenedEmpty() throws Exception {
        Path live = tmp.resolve("pruned");
        try (JournaledSeenSet<MapSeenSet> set =
                JournaledSeenSetTest.builder(live).segmentBytes(4096).open()) {
            addInFourSnapshottedRounds(set);
        }
        assertThat(Snapshots.list(live))
                .extracting(Snapshots.Snapshot::position)
                .containsExactly(2000L, 1500L);
        long firstRecord = Segment.list(live).get(0).firstSeq();
        assertThat(firstRecord).isPositive();

        Path damaged = Crash.copy(live, tmp.resolve("both-damaged"));
        flip(damaged.resolve(Snapshots.fileName(2000)), Snapshots.HEADER_BYTES + 5);
        flip(damaged.resolve(Snapshots.fileName(1500)), Snapshots.HEADER_BYTES + 5);
        Path gone = Crash.copy(live, tmp.resolve("both-gone"));
        Files.delete(gone.resolve(Snapshots.fileName(2000)));
        Files.delete(gone.resolve(Snapshots.fileName(1500)));
        for (Path dir : List.of(damaged, gone)) {
            Map<String, String> before = contents(dir);
            for (int start = 0; start < 2; start++) {
                assertThatThrownBy(() -> JournaledSeenSetTest.builder(dir).open())
                        .as(dir.toString())
                        .isInstanceOf(IOException.class)
                        .hasMessageContaining("cannot rebuild the store in " + dir)
                        .hasMessageContaining("the journal starts at record " + firstRecord + ", so records 0 to "
                                + (firstRecord - 1) + " are lost")
                        .hasMessageContaining(
                                dir.equals(damaged)
                                        ? "no snapshot verifies ([" + Snapshots.fileName(2000)
                                        : "there is no snapshot")
                        .hasMessageContaining("Nothing was changed");
                assertThat(contents(dir)).as(dir + ", start " + start).isEqualTo(before);
            }
        }

        Path movedOut = tmp.resolve("moved-out");
        Files.createDirectories(movedOut);
        try (var files = Files.list(damaged)) {
            for (Path f : files.toList()) {
                if (f.getFileName().toString().matches("(journal|snapshot)-.*")) { // the files the error names
                    Files.move(f, movedOut.resolve(f.getFileName()));
                }
            }
        }
        try (JournaledSeenSet<MapSeenSet> set =
                JournaledSeenSetTest.builder(damaged).open()) {
            assertThat(set.recovery().clean()).isTrue();
            assertThat(set.checkAll(keys(0, 2000))).containsOnly(false);
        }
    }

    /**
     * The operator's way out of that refusal without losing what is still readable: opened from what is readable,
     * the store holds every key the journal still has (records 1,500 on) and none of those only the damaged
     * snapshots held, the report names the records lost, the damaged snapshots are set aside, and a snapshot is
     * written at once, so the next ordinary open finds the store whole.
     */
    @Test
    void aStoreNoSnapshotRebuildsOpensFromWhatIsReadableWhenAskedTo() throws Exception {
        Path dir = tmp.resolve("readable");
        try (JournaledSeenSet<MapSeenSet> set =
                JournaledSeenSetTest.builder(dir).segmentBytes(4096).open()) {
            addInFourSnapshottedRounds(set);
        }
        int firstRecord = Math.toIntExact(Segment.list(dir).get(0).firstSeq());
        assertThat(firstRecord).isPositive();
        flip(dir.resolve(Snapshots.fileName(2000)), Snapshots.HEADER_BYTES + 5);
        flip(dir.resolve(Snapshots.fileName(1500)), Snapshots.HEADER_BYTES + 5);

        try (JournaledSeenSet<MapSeenSet> set =
                JournaledSeenSetTest.builder(dir).fromWhatIsReadable(true).open()) {
            assertThat(set.recovery().clean()).isFalse();
            assertThat(set.recovery().problems())
                    .anySatisfy(p -> assertThat(p)
                            .contains("opened from what is readable")
                            .contains("journal records 0 to " + (firstRecord - 1) + " are lost"));
            assertThat(set.recovery().setAside()).hasSize(2);
            assertThat(set.checkAll(keys(firstRecord, 2000))).containsOnly(true);
            assertThat(set.checkAll(keys(0, firstRecord))).containsOnly(false);
        }
        try (JournaledSeenSet<MapSeenSet> set =
                JournaledSeenSetTest.builder(dir).open()) {
            assertThat(set.recovery().rejectedSnapshots()).isEmpty();
            assertThat(set.checkAll(keys(firstRecord, 2000))).containsOnly(true);
        }
    }

    /**
     * Damaged snapshots over a journal that still starts at record 0 are refused too (a dump or a merge may have
     * been in them only), and the error says that moving the snapshots out rebuilds the store from the journal: it
     * does, with every key.
     */
    @Test
    void damagedSnapshotsOverAWholeJournalAreRefusedAndTheJournalAloneRebuildsEveryKey() throws Exception {
        Path dir = tmp.resolve("whole-journal");
        try (JournaledSeenSet<MapSeenSet> set =
                JournaledSeenSetTest.builder(dir).open()) {
            set.addAll(keys(0, 300));
            set.snapshotNow().get();
            set.addAll(keys(300, 600));
            set.snapshotNow().get();
        }
        assertThat(Segment.list(dir).get(0).firstSeq()).isZero();
        List<Snapshots.Snapshot> snapshots = Snapshots.list(dir);
        assertThat(snapshots).hasSize(2);
        for (Snapshots.Snapshot snapshot : snapshots) {
            flip(snapshot.file(), Snapshots.HEADER_BYTES + 5);
        }
        Map<String, String> before = contents(dir);
        assertThatThrownBy(() -> JournaledSeenSetTest.builder(dir).open())
                .isInstanceOf(IOException.class)
                .hasMessageContaining("The journal starts at record 0")
                .hasMessageContaining("moving the damaged snapshots out of the directory rebuilds the store");
        assertThat(contents(dir)).isEqualTo(before);

        for (Snapshots.Snapshot snapshot : snapshots) {
            Files.move(snapshot.file(), tmp.resolve(snapshot.file().getFileName()));
        }
        try (JournaledSeenSet<MapSeenSet> set =
                JournaledSeenSetTest.builder(dir).open()) {
            assertThat(set.recovery().clean()).isTrue();
            assertThat(set.recovery().recordsReplayed()).isEqualTo(600);
            assertThat(set.checkAll(keys(0, 600))).containsOnly(true);
        }
    }

    /**
     * A merge changes the store without a journal record, so only snapshots written after it hold the merged keys.
     * The snapshot that makes it durable is then the only one kept: with the older one still there, damage to the
     * newest made recovery load the older one and replay the journal onto it, and the merged keys were gone without
     * a word (a bloom filter then calls them new). Now that damage stops the open, as when no snapshot verifies; and
     * the next snapshot, which holds the merge too, brings back the usual two.
     */
    @Test
    void damageToTheSnapshotHoldingAMergeStopsTheOpenInsteadOfDroppingTheMerge() throws Exception {
        Path dir = tmp.resolve("merged");
        MapSeenSet[] inner = new MapSeenSet[1];
        try (JournaledSeenSet<MapSeenSet> set = JournaledSeenSet.builder(
                        dir, MapSeenSet.CODEC, () -> inner[0] = new MapSeenSet())
                .snapshotInterval(Duration.ZERO)
                .open()) {
            set.addAll(keys(0, 100));
            set.snapshotNow().get();
            set.addAll(keys(100, 200));
            set.snapshotNow().get();
            for (byte[] merged : keys(1000, 1100)) { // straight into the store, as a merge does
                Hash128 h = Hash128.of(merged);
                inner[0].addHash(h.high(), h.low(), 0);
            }
            set.markChanged();
            set.snapshotNow().get();
        }
        Path damaged = Crash.copy(dir, tmp.resolve("merged-damaged"));
        flip(damaged.resolve(Snapshots.fileName(200)), Snapshots.HEADER_BYTES + 5);
        Map<String, String> before = contents(damaged);
        assertThatThrownBy(() -> JournaledSeenSetTest.builder(damaged).open())
                .isInstanceOf(IOException.class)
                .hasMessageContaining("cannot rebuild the store in " + damaged)
                .hasMessageContaining("no snapshot verifies ([" + Snapshots.fileName(200));
        assertThat(contents(damaged)).isEqualTo(before);

        assertThat(Snapshots.list(dir)).extracting(Snapshots.Snapshot::position).containsExactly(200L);
        try (JournaledSeenSet<MapSeenSet> set =
                JournaledSeenSetTest.builder(dir).open()) {
            assertThat(set.checkAll(keys(1000, 1100))).containsOnly(true);
        }

        try (JournaledSeenSet<MapSeenSet> set =
                JournaledSeenSetTest.builder(dir).open()) {
            set.addAll(keys(200, 300));
            set.snapshotNow().get();
        }
        assertThat(Snapshots.list(dir)).extracting(Snapshots.Snapshot::position).containsExactly(300L, 200L);
    }

    /**
     * A journal from record 0 with a gap (a crash lost records 55 to 59 below the snapshot at 60, and journaling went
     * on at 60) cannot rebuild the store once that snapshot is damaged: the refusal says so and names the missing
     * records, instead of telling the operator that moving the snapshot out rebuilds everything.
     */
    @Test
    void theRefusalOverAJournalWithAGapDoesNotPromiseARebuild() throws Exception {
        Path dir = tmp.resolve("gap");
        try (JournaledSeenSet<MapSeenSet> set =
                JournaledSeenSetTest.builder(dir).open()) {
            set.addAll(keys(0, 50));
            set.snapshotNow().get();
            set.addAll(keys(50, 60));
        } // the final snapshot is at 60
        Path segment = dir.resolve(Segment.fileName(0));
        try (FileChannel ch = FileChannel.open(segment, StandardOpenOption.WRITE)) {
            ch.truncate(Segment.HEADER_BYTES + 55L * Segment.RECORD_BYTES); // the unsynced tail, lost
        }
        Path crashed;
        try (JournaledSeenSet<MapSeenSet> set =
                JournaledSeenSetTest.builder(dir).open()) {
            assertThat(set.recovery().problems()).anySatisfy(p -> assertThat(p).contains("journal records 55 to 59"));
            set.add(key(60), 0); // record 60, in a new segment after the gap
            crashed = Crash.copy(dir, tmp.resolve("gap-crashed"));
        }
        flip(crashed.resolve(Snapshots.fileName(60)), Snapshots.HEADER_BYTES + 5);
        assertThatThrownBy(() -> JournaledSeenSetTest.builder(crashed).open())
                .isInstanceOf(IOException.class)
                .hasMessageContaining("no snapshot verifies ([" + Snapshots.fileName(60))
                .hasMessageContaining("The journal starts at record 0, but records 55 to 59 are missing, so it cannot"
                        + " rebuild the store either: with the damaged snapshots moved out, the store would open with"
                        + " records 0 to 54 only.")
                .hasMessageNotContaining("rebuilds the store from it");
    }

    /** Each file's name and bytes (in hex, so that two listings compare by content). */
    private static Map<String, String> contents(Path dir) throws IOException {
        Map<String, String> out = new TreeMap<>();
        try (var files = Files.list(dir)) {
            for (Path f : files.toList()) {
                out.put(f.getFileName().toString(), HexFormat.of().formatHex(Files.readAllBytes(f)));
            }
        }
        return out;
    }

    /** Flips one bit of the byte at {@code at} in the file; returns the file's new content. */
    private static byte[] flip(Path file, int at) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        bytes[at] ^= 1;
        Files.write(file, bytes);
        return bytes;
    }
}
