package dev.deja.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.bloom.BloomFilter;
import dev.deja.hash.Hash128;
import dev.deja.recent.RecentFilter;
import dev.deja.seen.HashedSeenSet;
import dev.deja.seen.Verdict;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Journal and snapshot damage under the real stores, a recent filter (with owners, adds and forgets) and a small
 * bloom filter, through their own snapshot codecs. Each recovery must give, byte for byte in the store's serialised
 * form, the store that replaying exactly the changes before the recovered position gives: no acknowledged key lost
 * before the damage, and no key present that those changes did not add.
 */
class RealStoreDamageTest {

    @TempDir
    Path tmp;

    /** One journaled change: an ADD or a FORGET of a key hash with an owner. */
    private record Change(boolean add, long high, long low, long owner) {}

    /** A store kind: how to make one, its codec, and its bytes. */
    private record Kind<S extends HashedSeenSet>(String name, Supplier<S> empty, SnapshotCodec<S> codec) {
        byte[] bytes(S store) throws IOException {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            codec.write(store, out);
            return out.toByteArray();
        }
    }

    private static final Kind<RecentFilter> RECENT = new Kind<>(
            "recent",
            () -> RecentFilter.builder().buckets(4096).ways(4).owners(true).build(),
            StoreCodecs.RECENT);

    private static final Kind<BloomFilter> BLOOM = new Kind<>(
            "bloom",
            () -> BloomFilter.builder().bits(1 << 16).hashes(10).capacity(1000).build(),
            StoreCodecs.BLOOM);

    @Test
    void aRecentFilterRecoversExactlyTheChangesBeforeAnyDamage() throws IOException {
        sweep(RECENT, true);
    }

    @Test
    void aBloomFilterRecoversExactlyTheChangesBeforeAnyDamage() throws IOException {
        sweep(BLOOM, false);
    }

    private <S extends HashedSeenSet> void sweep(Kind<S> kind, boolean forgets) throws IOException {
        List<Change> changes = new ArrayList<>();
        Map<String, byte[]> files = write(kind, forgets, changes);
        List<String> segments =
                files.keySet().stream().filter(n -> n.startsWith("journal-")).toList();
        assertThat(segments).hasSizeGreaterThanOrEqualTo(3);
        String snapshot = Snapshots.fileName(150);
        assertThat(files).containsKey(snapshot);
        Path dir = tmp.resolve(kind.name());
        int cases = 0;

        // one bit of every header byte, and one byte of every third record, of every segment
        for (String name : segments) {
            byte[] pristine = files.get(name);
            long first = Segment.firstSeqOf(Path.of(name)).orElseThrow();
            int records = (pristine.length - Segment.HEADER_BYTES) / Segment.RECORD_BYTES;
            for (int at = 0; at < Segment.HEADER_BYTES; at++) {
                check(
                        kind,
                        dir,
                        files,
                        Map.of(name, flipped(pristine, at, at % 8)),
                        changes,
                        0,
                        name + " header byte " + at);
                cases++;
            }
            for (int slot = 0; slot < records; slot += 3) {
                int at = Segment.HEADER_BYTES + slot * Segment.RECORD_BYTES + slot % Segment.RECORD_BYTES;
                check(
                        kind,
                        dir,
                        files,
                        Map.of(name, flipped(pristine, at, slot % 8)),
                        changes,
                        first + slot,
                        name + " byte " + at);
                cases++;
            }
        }
        // the last segment cut at every length within its header, its first record and its last, and at every
        // 29th length besides
        String last = segments.getLast();
        long lastFirst = Segment.firstSeqOf(Path.of(last)).orElseThrow();
        int size = files.get(last).length;
        for (int length = 0; length < size; length++) {
            if (length > Segment.HEADER_BYTES + Segment.RECORD_BYTES
                    && length < size - Segment.RECORD_BYTES
                    && length % 29 != 0) {
                continue;
            }
            long kept = Math.max(0, length - Segment.HEADER_BYTES) / Segment.RECORD_BYTES;
            check(
                    kind,
                    dir,
                    files,
                    Map.of(last, Arrays.copyOf(files.get(last), length)),
                    changes,
                    lastFirst + kept,
                    last + " cut to " + length);
            cases++;
        }
        // the only snapshot damaged: recovery refuses (the snapshot could hold content the journal never had) and
        // changes nothing; with the snapshot moved out, as its error says, the whole journal is replayed
        byte[] pristine = files.get(snapshot);
        for (int at = 0; at < pristine.length; at += Math.max(1, pristine.length / 24)) {
            restore(dir, files, Map.of(snapshot, flipped(pristine, at, 4)));
            assertThatThrownBy(() -> Recovery.run(dir, kind.codec(), kind.empty()))
                    .as(snapshot + " byte " + at)
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("no snapshot verifies")
                    .hasMessageContaining("moving the damaged snapshots out of the directory rebuilds the store");
            assertThat(dir.resolve(snapshot)).as(snapshot + " byte " + at).hasBinaryContent(flipped(pristine, at, 4));
            cases++;
        }
        Map<String, byte[]> withoutSnapshot = new TreeMap<>(files);
        withoutSnapshot.remove(snapshot);
        check(kind, dir, withoutSnapshot, Map.of(), changes, changes.size(), snapshot + " moved out");
        assertThat(cases).isGreaterThan(250);
    }

    /**
     * Recovers from the files with {@code replaced}, and compares with replaying the changes before the position,
     * which must be at least {@code lowest}: the sequence number of the damaged record, all before it being intact.
     */
    private <S extends HashedSeenSet> void check(
            Kind<S> kind,
            Path dir,
            Map<String, byte[]> files,
            Map<String, byte[]> replaced,
            List<Change> changes,
            long lowest,
            String what)
            throws IOException {
        restore(dir, files, replaced);
        Recovery.Result<S> result = Recovery.run(dir, kind.codec(), kind.empty());
        long next = result.nextSeq();
        assertThat(next).as(what).isBetween(Math.min(lowest, changes.size()), (long) changes.size());
        S expected = kind.empty().get();
        for (Change c : changes.subList(0, (int) next)) {
            if (c.add()) {
                expected.addHash(c.high(), c.low(), c.owner());
            } else {
                expected.forgetHash(c.high(), c.low(), c.owner());
            }
        }
        assertThat(kind.bytes(result.store())).as(what).isEqualTo(kind.bytes(expected));
    }

    private static byte[] flipped(byte[] bytes, int at, int bit) {
        byte[] damaged = bytes.clone();
        damaged[at] ^= (byte) (1 << bit);
        return damaged;
    }

    /**
     * 300 changes through a journaled store with 4 KiB segments and a snapshot after 150, with adds under owners
     * and (when the store can) forgets; returns the crashed files and fills {@code changes} with what was journaled.
     */
    private <S extends HashedSeenSet> Map<String, byte[]> write(Kind<S> kind, boolean forgets, List<Change> changes)
            throws IOException {
        Path live = tmp.resolve(kind.name() + "-live");
        Random random = new Random(11);
        try (JournaledSeenSet<S> set = JournaledSeenSet.builder(live, kind.codec(), kind.empty())
                .segmentBytes(4096)
                .snapshotInterval(Duration.ZERO)
                .fsync(FsyncPolicy.NO)
                .open()) {
            while (changes.size() < 300) {
                byte[] key = ("key-" + random.nextInt(400)).getBytes(StandardCharsets.UTF_8);
                Hash128 hash = Hash128.of(key);
                long owner = forgets ? 1 + random.nextInt(3) : 0;
                if (forgets && random.nextInt(4) == 0) {
                    if (set.forget(key, owner)) {
                        changes.add(new Change(false, hash.high(), hash.low(), owner));
                    }
                } else if (set.checkThenAdd(key, owner) == Verdict.NEW) {
                    changes.add(new Change(true, hash.high(), hash.low(), owner));
                }
                if (changes.size() == 150 && Snapshots.list(live).isEmpty()) {
                    set.snapshotNow().join();
                }
            }
            Path crashed = Crash.copy(live, tmp.resolve(kind.name() + "-crashed"));
            Map<String, byte[]> files = new TreeMap<>();
            try (Stream<Path> list = Files.list(crashed)) {
                for (Path f : list.toList()) {
                    if (!f.getFileName().toString().equals("lock")) {
                        files.put(f.getFileName().toString(), Files.readAllBytes(f));
                    }
                }
            }
            return files;
        }
    }

    private static void restore(Path dir, Map<String, byte[]> files, Map<String, byte[]> replaced) throws IOException {
        if (Files.exists(dir)) {
            try (Stream<Path> list = Files.list(dir)) {
                for (Path f : list.toList()) {
                    Files.delete(f);
                }
            }
        }
        Files.createDirectories(dir);
        Map<String, byte[]> all = new TreeMap<>(files);
        all.putAll(replaced);
        for (Map.Entry<String, byte[]> f : all.entrySet()) {
            Files.write(dir.resolve(f.getKey()), f.getValue());
        }
    }
}
