package dev.deja.journal;

import static dev.deja.journal.JournaledSeenSetTest.key;
import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.hash.Hash128;
import dev.deja.seen.Verdict;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Damage to every part of a journal, byte by byte and bit by bit, and what recovery makes of it. The journal is
 * written by a real store (single changes, so that segments roll over every 110 records; adds and forgets with
 * owners; two snapshots, so that the oldest segment was pruned), and the state after each change is known, so each
 * recovery is checked exactly: it must give the state after the first {@code next} changes, for the {@code next}
 * that the damage allows and no lower, and keep every byte it did not replay in a {@code .corrupt} file.
 */
class JournalDamageSweepTest {

    @TempDir
    static Path shared;

    @TempDir
    Path tmp;

    /** The crashed store's files and the state after each change. */
    static History history;

    @BeforeAll
    static void writeHistory() throws IOException {
        history = History.write(shared.resolve("live"), 400, 150, 300);
        // the fixture the cases below reason about: pruned, rolled over, the newest snapshot inside a segment
        assertThat(history.segmentFirsts()).containsExactly(110L, 220L, 330L);
        assertThat(history.files).containsKeys(Snapshots.fileName(150), Snapshots.fileName(300));
    }

    @Test
    void bitsFlippedInEverySegmentsHeaderAndRecordsCostNothingBeforeThem() throws IOException {
        Path dir = tmp.resolve("d");
        int cases = 0;
        for (long first : history.segmentFirsts()) {
            String name = Segment.fileName(first);
            byte[] pristine = history.files.get(name);
            int records = (pristine.length - Segment.HEADER_BYTES) / Segment.RECORD_BYTES;
            // every bit of the header; one bit of every byte of the first two records, of two in the middle (one
            // where the newest snapshot's position falls) and of the last two, a different bit from byte to byte
            for (int at = 0; at < Segment.HEADER_BYTES; at++) {
                for (int bit = 0; bit < 8; bit++) {
                    checkJournalDamage(dir, name, flipped(pristine, at, bit), at, cases++ % 32 == 0);
                }
            }
            for (int slot : new int[] {0, 1, records / 2 - 30, records / 2 + 25, records - 2, records - 1}) {
                for (int at = offsetOf(slot); at < offsetOf(slot + 1); at++) {
                    checkJournalDamage(dir, name, flipped(pristine, at, at * 3 % 8), at, cases++ % 32 == 0);
                }
            }
        }
        assertThat(cases).isGreaterThan(1_000);
    }

    @Test
    void randomBitsFlippedAnywhereInTheJournal() throws IOException {
        Path dir = tmp.resolve("d");
        Random random = new Random(20261123);
        List<Long> firsts = history.segmentFirsts();
        for (int trial = 0; trial < 600; trial++) {
            String name = Segment.fileName(firsts.get(random.nextInt(firsts.size())));
            byte[] pristine = history.files.get(name);
            int at = random.nextInt(pristine.length);
            checkJournalDamage(dir, name, flipped(pristine, at, random.nextInt(8)), at, trial % 32 == 0);
        }
    }

    @Test
    void anySegmentCutAtAnyByteOfItsHeaderOrLastRecords() throws IOException {
        Path dir = tmp.resolve("d");
        List<Long> firsts = history.segmentFirsts();
        for (int i = 0; i < firsts.size(); i++) {
            String name = Segment.fileName(firsts.get(i));
            byte[] pristine = history.files.get(name);
            boolean last = i == firsts.size() - 1;
            // every length within the header, the first two records and the last three; of the last segment every
            // seventh length besides
            int lastThree = pristine.length - 3 * Segment.RECORD_BYTES;
            for (int length = 0; length < pristine.length; length++) {
                if (length >= offsetOf(2) && length < lastThree && !(last && length % 7 == 0)) {
                    continue;
                }
                restore(dir, Map.of(name, Arrays.copyOf(pristine, length)));
                Recovery.Result<MapSeenSet> result = recover(dir);
                long kept = firsts.get(i) + Math.max(0, length - Segment.HEADER_BYTES) / Segment.RECORD_BYTES;
                long expected = !needed(firsts.get(i)) ? history.changes() : Math.max(history.newest(), kept);
                String what = name + " cut to " + length + " bytes";
                assertState(result, expected, what);
                RecoveryReport report = result.report();
                if (last) {
                    assertThat(report.setAside()).as(what).isEmpty();
                    assertThat(report.bytesCut())
                            .as(what)
                            .isEqualTo(
                                    length < Segment.HEADER_BYTES
                                            ? length
                                            : (length - Segment.HEADER_BYTES) % Segment.RECORD_BYTES);
                }
                assertStable(dir, result, what, length % 32 == 0);
            }
        }
    }

    private static byte[] flipped(byte[] bytes, int at, int bit) {
        byte[] damaged = bytes.clone();
        damaged[at] ^= (byte) (1 << bit);
        return damaged;
    }

    /** Which segments recovery from the newest snapshot needs: those holding records at or after its position. */
    private static boolean needed(long first) {
        List<Long> firsts = history.segmentFirsts();
        int i = firsts.indexOf(first);
        return i == firsts.size() - 1 || firsts.get(i + 1) > history.newest();
    }

    /**
     * Recovers from the history with {@code name} replaced by {@code damaged} (byte {@code at} changed) and checks the
     * outcome: damage in a record replay needs stops replay exactly there, anywhere else it costs nothing.
     */
    private void checkJournalDamage(Path dir, String name, byte[] damaged, int at, boolean continueWriting)
            throws IOException {
        restore(dir, Map.of(name, damaged));
        Recovery.Result<MapSeenSet> result = recover(dir);
        long first = Segment.firstSeqOf(Path.of(name)).orElseThrow();
        long seq = at < Segment.HEADER_BYTES ? -1 : first + (at - Segment.HEADER_BYTES) / Segment.RECORD_BYTES;
        boolean costs = seq >= history.newest();
        long expected = costs ? seq : history.changes();
        String what = name + " byte " + at + " flipped";
        assertState(result, expected, what);
        RecoveryReport report = result.report();
        if (costs) {
            // nothing after the damage is deleted: the segment from the damaged record on and every later
            // segment are kept aside (a damaged last record of the last segment is a torn write, and cut)
            boolean lastRecord = at >= damaged.length - Segment.RECORD_BYTES
                    && first == history.segmentFirsts().getLast();
            if (lastRecord) {
                assertThat(report.bytesCut()).as(what).isEqualTo(Segment.RECORD_BYTES);
            } else {
                int offset = offsetOf((int) (seq - first));
                assertThat(Files.readAllBytes(dir.resolve(name + "." + offset + ".corrupt")))
                        .as(what)
                        .isEqualTo(Arrays.copyOfRange(damaged, offset, damaged.length));
                for (long later : history.segmentFirsts()) {
                    if (later > first) {
                        assertThat(Files.readAllBytes(dir.resolve(Segment.fileName(later) + ".corrupt")))
                                .as(what)
                                .isEqualTo(history.files.get(Segment.fileName(later)));
                    }
                }
            }
        } else {
            assertThat(report.setAside()).as(what).isEmpty();
            assertThat(report.bytesCut()).as(what).isZero();
        }
        assertStable(dir, result, what, continueWriting);
    }

    /** The store is the state after the first {@code next} changes, and the journal continues from there. */
    static void assertState(Recovery.Result<MapSeenSet> result, long next, String what) {
        assertThat(result.nextSeq()).as(what).isEqualTo(next);
        assertThat(new HashMap<>(result.store().owners)).as(what).isEqualTo(history.stateAfter.get((int) next));
    }

    /**
     * A second recovery finds nothing more to cut or set aside and gives the same state; and (when asked, as it
     * costs a store) a change written after recovery survives the next crash with everything recovered before it.
     */
    private void assertStable(Path dir, Recovery.Result<MapSeenSet> first, String what, boolean continueWriting)
            throws IOException {
        Map<Hash128, Long> recovered = new HashMap<>(first.store().owners);
        if (continueWriting) {
            byte[] fresh = key(1_000_000);
            Path crashed;
            try (JournaledSeenSet<MapSeenSet> set =
                    JournaledSeenSetTest.builder(dir).open()) {
                assertThat(set.recovery().setAside()).as(what + ", reopened").isEmpty();
                assertThat(set.recovery().bytesCut()).as(what + ", reopened").isZero();
                set.add(fresh, 9);
                crashed = Crash.copy(dir, tmp.resolve("after-" + System.nanoTime()));
            }
            Recovery.Result<MapSeenSet> again = recover(crashed);
            assertThat(again.report().setAside()).as(what + ", after a write").isEmpty();
            assertThat(again.nextSeq()).as(what + ", after a write").isEqualTo(first.nextSeq() + 1);
            recovered.put(Hash128.of(fresh), 9L);
            assertThat(new HashMap<>(again.store().owners))
                    .as(what + ", after a write")
                    .isEqualTo(recovered);
        } else {
            Recovery.Result<MapSeenSet> again = recover(dir);
            assertThat(again.report().setAside()).as(what + ", again").isEmpty();
            assertThat(again.report().bytesCut()).as(what + ", again").isZero();
            assertThat(again.nextSeq()).as(what + ", again").isEqualTo(first.nextSeq());
            assertThat(new HashMap<>(again.store().owners)).as(what + ", again").isEqualTo(recovered);
        }
    }

    static Recovery.Result<MapSeenSet> recover(Path dir) throws IOException {
        return Recovery.run(dir, MapSeenSet.CODEC, MapSeenSet::new);
    }

    /** Empties {@code dir} and fills it with the history's files, {@code replaced} instead of those it names. */
    static void restore(Path dir, Map<String, byte[]> replaced) throws IOException {
        if (Files.exists(dir)) {
            try (Stream<Path> files = Files.list(dir)) {
                for (Path f : files.toList()) {
                    Files.delete(f);
                }
            }
        } else {
            Files.createDirectories(dir);
        }
        Map<String, byte[]> all = new TreeMap<>(history.files);
        all.putAll(replaced);
        for (Map.Entry<String, byte[]> f : all.entrySet()) {
            if (f.getValue() != null) {
                Files.write(dir.resolve(f.getKey()), f.getValue());
            }
        }
    }

    static int offsetOf(int slot) {
        return Segment.HEADER_BYTES + slot * Segment.RECORD_BYTES;
    }

    /** A crashed store's files, the snapshots it took, and the state after each journaled change. */
    static final class History {

        /** File name to content; a null content in a replacement map deletes the file. */
        final Map<String, byte[]> files = new TreeMap<>();
        /** {@code stateAfter.get(n)}: the store after the first n changes. */
        final List<Map<Hash128, Long>> stateAfter = new ArrayList<>();

        final long[] snapshots;

        private History(long[] snapshots) {
            this.snapshots = snapshots;
        }

        /**
         * Makes {@code changes} changes (check-then-adds and forgets of 150 keys under 3 owners, only those that
         * change the store counted) through a store with 4 KiB segments, snapshots after the given numbers of
         * changes, and takes the files as a crash leaves them.
         */
        static History write(Path dir, int changes, long... snapshotsAt) throws IOException {
            History h = new History(snapshotsAt);
            MapSeenSet shadow = new MapSeenSet();
            h.stateAfter.add(Map.of());
            Random random = new Random(20261122);
            try (JournaledSeenSet<MapSeenSet> set = JournaledSeenSetTest.builder(dir)
                    .segmentBytes(4096)
                    .fsync(FsyncPolicy.NO)
                    .open()) {
                while (h.stateAfter.size() <= changes) {
                    byte[] key = key(random.nextInt(150));
                    long owner = random.nextInt(3);
                    boolean changed;
                    if (random.nextInt(10) < 7) {
                        Verdict verdict = set.checkThenAdd(key, owner);
                        assertThat(shadow.checkThenAdd(key, owner)).isEqualTo(verdict);
                        changed = verdict == Verdict.NEW;
                    } else {
                        boolean erased = set.forget(key, owner);
                        assertThat(shadow.forget(key, owner)).isEqualTo(erased);
                        changed = erased;
                    }
                    if (changed) {
                        h.stateAfter.add(Map.copyOf(shadow.owners));
                        if (Arrays.stream(snapshotsAt).anyMatch(at -> at == h.stateAfter.size() - 1)) {
                            set.snapshotNow().join();
                        }
                    }
                }
                Path crashed = Crash.copy(dir, dir.resolveSibling("crashed"));
                try (Stream<Path> files = Files.list(crashed)) {
                    for (Path f : files.toList()) {
                        if (!f.getFileName().toString().equals("lock")) {
                            h.files.put(f.getFileName().toString(), Files.readAllBytes(f));
                        }
                    }
                }
            }
            return h;
        }

        long changes() {
            return stateAfter.size() - 1L;
        }

        /** The newest snapshot's position. */
        long newest() {
            return snapshots[snapshots.length - 1];
        }

        List<Long> segmentFirsts() {
            return files.keySet().stream()
                    .map(n -> Segment.firstSeqOf(Path.of(n)))
                    .filter(s -> s.isPresent())
                    .map(s -> s.getAsLong())
                    .sorted()
                    .toList();
        }
    }
}
