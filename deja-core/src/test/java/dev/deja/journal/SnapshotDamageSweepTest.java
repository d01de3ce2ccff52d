package dev.deja.journal;

import static dev.deja.journal.JournalDamageSweepTest.assertState;
import static dev.deja.journal.JournalDamageSweepTest.recover;
import static dev.deja.journal.JournalDamageSweepTest.restore;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Damaged snapshots, stray and missing files, and the moments of a snapshot's pruning at which a crash may stop it,
 * over the same crashed store as {@link JournalDamageSweepTest}: snapshots at 150 and 300, segments from 110 on,
 * 400 changes.
 */
class SnapshotDamageSweepTest {

    @TempDir
    static Path shared;

    @TempDir
    Path tmp;

    private static final String NEWEST = Snapshots.fileName(300);
    private static final String OLDER = Snapshots.fileName(150);

    @BeforeAll
    static void writeHistory() throws IOException {
        if (JournalDamageSweepTest.history == null) {
            JournalDamageSweepTest.history =
                    JournalDamageSweepTest.History.write(shared.resolve("live"), 400, 150, 300);
        }
    }

    private static JournalDamageSweepTest.History history() {
        return JournalDamageSweepTest.history;
    }

    @Test
    void aDamagedNewestSnapshotFallsBackToTheOlderOneAndLosesNothing() throws IOException {
        Path dir = tmp.resolve("d");
        byte[] pristine = history().files.get(NEWEST);
        List<byte[]> damaged = new ArrayList<>();
        List<String> what = new ArrayList<>();
        for (int at = 0; at < Snapshots.HEADER_BYTES; at++) { // every bit of the header
            for (int bit = 0; bit < 8; bit++) {
                damaged.add(flipped(pristine, at, bit));
                what.add("bit " + bit + " of header byte " + at);
            }
        }
        Random random = new Random(7);
        for (int i = 0; i < 300; i++) { // the payload: its first and last bytes, and anywhere
            int at = i < 40
                    ? Snapshots.HEADER_BYTES + i
                    : i < 80
                            ? pristine.length - 1 - (i - 40)
                            : Snapshots.HEADER_BYTES + random.nextInt(pristine.length - Snapshots.HEADER_BYTES);
            int bit = random.nextInt(8);
            damaged.add(flipped(pristine, at, bit));
            what.add("bit " + bit + " of byte " + at);
        }
        for (int length = 0; length < pristine.length; length += length < 80 ? 1 : 13) {
            damaged.add(Arrays.copyOf(pristine, length));
            what.add("cut to " + length + " bytes");
        }
        damaged.add(Arrays.copyOf(pristine, pristine.length + 1));
        what.add("one zero byte longer");

        for (int i = 0; i < damaged.size(); i++) {
            restore(dir, Map.of(NEWEST, damaged.get(i)));
            Recovery.Result<MapSeenSet> result = recover(dir);
            assertState(result, history().changes(), what.get(i));
            RecoveryReport report = result.report();
            assertThat(report.snapshotPosition()).as(what.get(i)).isEqualTo(150);
            assertThat(report.rejectedSnapshots())
                    .as(what.get(i))
                    .singleElement()
                    .asString()
                    .startsWith(NEWEST);
            assertThat(Files.readAllBytes(dir.resolve(NEWEST + ".corrupt")))
                    .as(what.get(i))
                    .isEqualTo(damaged.get(i));
            assertThat(report.bytesCut()).isZero();
            assertThat(report.setAside()).as(what.get(i)).containsExactly(dir.resolve(NEWEST + ".corrupt"));
        }
    }

    @Test
    void aDamagedOlderSnapshotIsNotNeeded() throws IOException {
        Path dir = tmp.resolve("d");
        byte[] pristine = history().files.get(OLDER);
        for (int at = 0; at < pristine.length; at += 7) {
            restore(dir, Map.of(OLDER, flipped(pristine, at, at % 8)));
            Recovery.Result<MapSeenSet> result = recover(dir);
            assertState(result, history().changes(), "older snapshot byte " + at);
            assertThat(result.report().clean()).isTrue();
        }
    }

    @Test
    void strayTemporaryAndEmptyFilesCostNothing() throws IOException {
        Path dir = tmp.resolve("d");
        Map<String, byte[]> stray = new HashMap<>();
        // a snapshot being written when the process died, newer than every other, and an empty one
        stray.put(
                Snapshots.fileName(400) + Snapshots.TEMP_SUFFIX,
                Arrays.copyOf(history().files.get(NEWEST), 100));
        stray.put(Snapshots.fileName(350) + Snapshots.TEMP_SUFFIX, new byte[0]);
        // a segment created just before the crash, before its header was written
        stray.put(Segment.fileName(history().changes()), new byte[0]);
        restore(dir, stray);
        Recovery.Result<MapSeenSet> result = recover(dir);
        assertState(result, history().changes(), "stray files");
        assertThat(result.report().setAside()).isEmpty();
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(f -> f.getFileName().toString()))
                    .noneMatch(n -> n.endsWith(".tmp"))
                    .doesNotContain(Segment.fileName(history().changes()));
        }
    }

    @Test
    void anEmptyNewestSnapshotIsRejectedByName() throws IOException {
        Path dir = tmp.resolve("d");
        restore(dir, Map.of(Snapshots.fileName(400), new byte[0]));
        Recovery.Result<MapSeenSet> result = recover(dir);
        assertState(result, history().changes(), "empty snapshot");
        assertThat(result.report().rejectedSnapshots())
                .singleElement()
                .asString()
                .startsWith(Snapshots.fileName(400))
                .contains("shorter than its 32-byte header");
    }

    /**
     * A zero-length file named like a segment that starts inside the range of the segment holding the newest
     * snapshot's position (a crash never leaves one there, but a copy or a clean-up may): it holds no record, so it
     * must not hide the records of that segment, whether a segment follows it or not.
     */
    @Test
    void anEmptySegmentNamedInsideAnotherSegmentHidesNoRecord() throws IOException {
        Path dir = tmp.resolve("d");
        for (boolean lastSegmentLost : new boolean[] {false, true}) {
            for (long first : new long[] {221, 250, 300, 301, 329, 340, 399}) {
                if (lastSegmentLost && first > 330) {
                    continue; // beyond the journal's end: a gap, set aside
                }
                Map<String, byte[]> files = new HashMap<>();
                files.put(Segment.fileName(first), new byte[0]);
                if (lastSegmentLost) {
                    files.put(Segment.fileName(330), null);
                }
                restore(dir, files);
                Recovery.Result<MapSeenSet> result = recover(dir);
                String what = "an empty journal-" + first + ".log" + (lastSegmentLost ? ", the last segment lost" : "");
                assertState(result, lastSegmentLost ? 330 : history().changes(), what);
                assertThat(result.report().setAside()).as(what).isEmpty();
            }
        }
    }

    /**
     * The same stray file when a snapshot prunes the journal: the segment it is named inside still holds records the
     * older kept snapshot needs, so it must stay, for a recovery that falls back to that snapshot.
     */
    @Test
    void anEmptySegmentNamedInsideAnotherSegmentDoesNotGetItPruned() throws IOException {
        Path dir = tmp.resolve("d");
        restore(dir, Map.of(Segment.fileName(250), new byte[0]));
        try (JournaledSeenSet<MapSeenSet> set =
                JournaledSeenSetTest.builder(dir).open()) {
            set.snapshotNow().join(); // at 400: keeps the snapshot at 300 and the journal from it
        }
        assertThat(Snapshots.list(dir)).extracting(Snapshots.Snapshot::position).containsExactly(400L, 300L);
        Path newest = dir.resolve(Snapshots.fileName(400));
        byte[] damaged = Files.readAllBytes(newest);
        damaged[damaged.length - 1] ^= 1;
        Files.write(newest, damaged);

        Recovery.Result<MapSeenSet> result = recover(dir);
        assertThat(result.report().snapshotPosition()).isEqualTo(300);
        assertState(result, history().changes(), "the newest snapshot damaged after pruning");
    }

    @Test
    void aSnapshotNewerThanTheJournalIsLoadedAndTheJournalContinuesAfterIt() throws IOException {
        Path dir = tmp.resolve("d");
        // the journal after the newest snapshot was lost: the snapshot holds everything up to its position
        Map<String, byte[]> lost = new HashMap<>();
        lost.put(Segment.fileName(330), null);
        restore(dir, lost);
        Recovery.Result<MapSeenSet> result = recover(dir);
        assertState(result, 330, "the last segment lost");

        lost.put(Segment.fileName(220), null);
        restore(dir, lost);
        result = recover(dir);
        assertState(result, 300, "the segments holding the newest snapshot's position lost");
        assertThat(result.report().setAside()).isEmpty();
        // writing goes on after the snapshot's position, and a crash after that recovers it
        continueAndRecover(dir, 300);

        // a snapshot far ahead of every journal record (restored from elsewhere): loaded, the journal continues
        MapSeenSet all = new MapSeenSet();
        all.owners.putAll(history().stateAfter.get((int) history().changes()));
        restore(dir, Map.of());
        Snapshots.write(dir, 1_000, MapSeenSet.CODEC, all);
        result = recover(dir);
        assertThat(result.nextSeq()).isEqualTo(1_000);
        assertThat(new HashMap<>(result.store().owners)).isEqualTo(all.owners);
        continueAndRecover(dir, 1_000);
    }

    /**
     * A journal that ends below the newest snapshot's position (here at record 219, the snapshot at 300) cannot bring
     * the older snapshot (150) up to date any more. Kept, that one was loaded once the newest was damaged: replay
     * stopped at the gap, and the store opened without records 220 on, those written after the crash included. Now
     * only the newest is kept, and its damage stops the open.
     */
    @Test
    void aSnapshotAheadOfTheJournalIsTheOnlyOneKeptSoItsDamageStopsTheOpen() throws IOException {
        Path dir = tmp.resolve("d");
        Map<String, byte[]> lost = new HashMap<>();
        lost.put(Segment.fileName(220), null);
        lost.put(Segment.fileName(330), null);
        restore(dir, lost);
        Recovery.Result<MapSeenSet> result = recover(dir);
        assertState(result, 300, "the journal ends at record 219");
        assertThat(result.report().problems())
                .anySatisfy(p -> assertThat(p).contains("journal records 220 to 299" + " are gone"));
        Path crashed;
        try (JournaledSeenSet<MapSeenSet> set =
                JournaledSeenSetTest.builder(dir).open()) {
            set.add(JournaledSeenSetTest.key(2_000_000), 4); // record 300, after the gap
            crashed = Crash.copy(dir, tmp.resolve("crashed"));
        }
        assertThat(Snapshots.list(crashed))
                .extracting(Snapshots.Snapshot::position)
                .containsExactly(300L);

        Path newest = crashed.resolve(NEWEST);
        byte[] damaged = Files.readAllBytes(newest);
        damaged[damaged.length - 1] ^= 1;
        Files.write(newest, damaged);
        assertThatThrownBy(() -> recover(crashed))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("no snapshot verifies ([" + NEWEST);
    }

    @Test
    void aGapBetweenTheSnapshotAndTheJournalStopsReplayAndKeepsTheRest() throws IOException {
        Path dir = tmp.resolve("d");
        Map<String, byte[]> lost = new HashMap<>();
        lost.put(NEWEST, null);
        lost.put(Segment.fileName(110), null); // the older snapshot is at 150: records 150 to 219 are missing
        restore(dir, lost);
        Recovery.Result<MapSeenSet> result = recover(dir);
        assertState(result, 150, "journal from 220 only");
        assertThat(result.report().problems()).first().asString().contains("journal records 150 to 219 are missing");
        assertThat(result.report().setAside())
                .containsExactlyInAnyOrder(
                        dir.resolve(Segment.fileName(220) + ".corrupt"),
                        dir.resolve(Segment.fileName(330) + ".corrupt"));
    }

    /**
     * Writing a snapshot renames it into place, then deletes the snapshots beyond the two newest, then the segments
     * wholly before the older kept one. A crash may stop that anywhere; at each point both the new snapshot and, if it
     * is damaged, the one before it must recover every change.
     */
    @Test
    void aCrashAnywhereInPruningAfterASnapshotLosesNothingEvenWithTheNewestSnapshotDamaged() throws IOException {
        Path dir = tmp.resolve("d");
        MapSeenSet all = new MapSeenSet();
        all.owners.putAll(history().stateAfter.get((int) history().changes()));
        restore(dir, Map.of());
        Path third = Snapshots.write(dir, history().changes(), MapSeenSet.CODEC, all);
        byte[] thirdBytes = Files.readAllBytes(third);
        // the deletions prune makes, in its order
        List<String> deletions = new ArrayList<>(List.of(OLDER));
        Segment.list(dir).stream()
                .filter(s -> s.firstSeq() < 220)
                .forEach(s -> deletions.add(s.path().getFileName().toString()));
        assertThat(deletions).containsExactly(OLDER, Segment.fileName(110));

        for (int done = 0; done <= deletions.size(); done++) {
            for (boolean damaged : new boolean[] {false, true}) {
                Map<String, byte[]> state = new HashMap<>();
                state.put(
                        third.getFileName().toString(),
                        damaged ? flipped(thirdBytes, thirdBytes.length - 5, 2) : thirdBytes);
                for (String deleted : deletions.subList(0, done)) {
                    state.put(deleted, null);
                }
                restore(dir, state);
                String what = done + " deletions made, newest " + (damaged ? "damaged" : "intact");
                Recovery.Result<MapSeenSet> result = recover(dir);
                assertState(result, history().changes(), what);
                assertThat(result.report().snapshotPosition()).as(what).isEqualTo(damaged ? 300 : 400);
            }
        }

        // and the real pruning ends in the last of those states
        restore(dir, Map.of());
        try (JournaledSeenSet<MapSeenSet> set =
                JournaledSeenSetTest.builder(dir).open()) {
            assertThat(set.snapshotNow().join().getFileName().toString()).isEqualTo(Snapshots.fileName(400));
        }
        assertThat(Snapshots.list(dir)).extracting(Snapshots.Snapshot::position).containsExactly(400L, 300L);
        assertThat(Segment.list(dir)).extracting(Segment.File::firstSeq).containsExactly(220L, 330L, 400L);
    }

    /** Opens the store, writes one new key, and checks that a crash afterwards recovers it and all before it. */
    private void continueAndRecover(Path dir, long next) throws IOException {
        Map<dev.deja.hash.Hash128, Long> before = new HashMap<>(recover(dir).store().owners);
        byte[] fresh = JournaledSeenSetTest.key(2_000_000);
        Path crashed;
        try (JournaledSeenSet<MapSeenSet> set =
                JournaledSeenSetTest.builder(dir).open()) {
            set.add(fresh, 4);
            crashed = Crash.copy(dir, tmp.resolve("crashed-" + System.nanoTime()));
        }
        Recovery.Result<MapSeenSet> result = recover(crashed);
        before.put(dev.deja.hash.Hash128.of(fresh), 4L);
        assertThat(result.nextSeq()).isEqualTo(next + 1);
        assertThat(new HashMap<>(result.store().owners)).isEqualTo(before);
    }

    private static byte[] flipped(byte[] bytes, int at, int bit) {
        byte[] damaged = bytes.clone();
        damaged[at] ^= (byte) (1 << bit);
        return damaged;
    }
}
