package dev.deja.journal;

import dev.deja.files.Directories;
import dev.deja.seen.HashedSeenSet;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rebuilds a store from its directory: the newest snapshot that verifies, then the journal records after it.
 *
 * <p>Damage is handled by where it is. A bad record with nothing valid after it in the last segment is a write
 * torn by a crash: the segment is truncated at the last valid record. A bad record followed by valid ones, a bad
 * record in an older segment, or a gap between segments is real corruption: replay stops there, and the bytes
 * after it and every later segment are kept aside as {@code *.corrupt} files instead of being deleted, because
 * they may hold acknowledged writes someone will want to inspect. Every case is logged and reported. A store with
 * snapshots none of which verifies, or with no snapshot and a journal that no longer starts at its first record, is
 * not opened at all: it could come back empty ({@link #refuseWhenNothingRebuildsTheContent}).
 *
 * <p>Only what replay needs is read: records below the loaded snapshot's position are in it, so a segment wholly
 * before the position (kept for the older snapshot) is skipped, and reading a segment that holds the position
 * starts at the position's slot. Damage there, which an older snapshot would need, must not cost the records
 * after the newest one.
 *
 * @param <S> the store type
 */
final class Recovery<S extends HashedSeenSet> {

    /**
     * The suffix of the files recovery sets aside in the directory (rejected snapshots, damaged journal data): never
     * read, and never replaced or deleted by the store; whoever clears the directory should keep them too.
     */
    static final String SET_ASIDE_SUFFIX = ".corrupt";

    private static final Logger LOG = LoggerFactory.getLogger(Recovery.class);
    private static final Pattern JOURNAL_OR_SNAPSHOT =
            Pattern.compile("journal-(?<seq>\\d{20})\\.log|snapshot-(?<pos>\\d{20})\\.snap");

    /** The rebuilt store, where the journal continues, and what happened. */
    record Result<S>(S store, long nextSeq, RecoveryReport report) {}

    private final Path dir;
    private final List<String> rejected = new ArrayList<>();
    private final List<Path> setAside = new ArrayList<>();
    private final List<String> problems = new ArrayList<>();
    private long bytesCut;
    private long replayed;

    /** Whether a store the journal alone cannot rebuild is opened from what its files still hold, not refused. */
    private final boolean whatIsReadable;

    private Recovery(Path dir, boolean whatIsReadable) {
        this.dir = dir;
        this.whatIsReadable = whatIsReadable;
    }

    /**
     * Recovers the store kept in {@code dir}, starting from {@code empty} when it has no snapshot and its journal
     * starts at the first record (a new store, or one never snapshotted).
     *
     * @throws IOException when a file cannot be read, or when no snapshot loads and the journal alone cannot rebuild
     *                     the content ({@link #refuseWhenNothingRebuildsTheContent}); nothing is changed then
     */
    static <S extends HashedSeenSet> Result<S> run(Path dir, SnapshotCodec<S> codec, Supplier<S> empty)
            throws IOException {
        return new Recovery<S>(dir, /* whatIsReadable= */ false).recover(codec, empty);
    }

    /**
     * Recovers as {@link #run} does, but where {@link #run} refuses a store that no snapshot and no whole journal can
     * rebuild, opens it from what is readable: empty, then every journal record from the first segment's first
     * record (the records before it, which only the damaged or missing snapshots held, are lost and the report says
     * so). Damaged snapshots are set aside as usual. For an operator who chose to lose what cannot be read.
     */
    static <S extends HashedSeenSet> Result<S> runFromWhatIsReadable(
            Path dir, SnapshotCodec<S> codec, Supplier<S> empty) throws IOException {
        return new Recovery<S>(dir, /* whatIsReadable= */ true).recover(codec, empty);
    }

    private Result<S> recover(SnapshotCodec<S> codec, Supplier<S> empty) throws IOException {
        Snapshots.deleteTemporaryFiles(dir);
        warnAboutUnusableNames();
        S store = null;
        Snapshots.Snapshot loaded = null;
        List<Path> rejectedFiles = new ArrayList<>();
        for (Snapshots.Snapshot candidate : Snapshots.list(dir)) {
            String problem;
            try {
                problem = Snapshots.verify(candidate);
            } catch (IOException e) {
                throw cannotRead(candidate.file(), e);
            }
            if (problem == null) {
                try {
                    store = Snapshots.read(candidate, codec);
                    loaded = candidate;
                    break;
                } catch (IOException | RuntimeException e) {
                    problem = "payload verifies but cannot be decoded: " + e;
                }
            }
            LOG.warn("{}: snapshot {} rejected: {}", dir, candidate.file().getFileName(), problem);
            rejected.add(candidate.file().getFileName() + ": " + problem);
            rejectedFiles.add(candidate.file());
        }
        long position = loaded == null ? 0 : loaded.position();
        // listed once: setting rejected snapshots aside below does not touch the segments
        List<Segment.File> segments = Segment.list(dir);
        if (store == null) {
            if (whatIsReadable) {
                position = startOfWhatIsReadable(segments);
            } else {
                refuseWhenNothingRebuildsTheContent(segments);
            }
            store = empty.get();
        }
        for (Path file : rejectedFiles) {
            // out of the way, so it is neither retried nor counted among the two snapshots kept
            setAside.add(moveAside(file));
        }
        long next = replay(store, position, segments);
        if (loaded != null) {
            keepOnlyTheLoadedSnapshotWhenTheJournalStopsShort(position);
        }
        RecoveryReport report = new RecoveryReport(
                Optional.ofNullable(loaded).map(Snapshots.Snapshot::file),
                position,
                rejected,
                replayed,
                next,
                bytesCut,
                setAside,
                problems);
        (report.clean() ? LOG.atInfo() : LOG.atWarn()).log("{}: {}", dir, report.summary());
        return new Result<>(store, next, report);
    }

    /**
     * With no snapshot loaded, the store can be rebuilt only by replaying its journal from the first record, and
     * only if the journal ever held all of its content. Recovery stops instead of opening the store empty or nearly
     * so, which would answer every key it had seen "new" with no sign of it but a log line, when:
     * <ul>
     *   <li>a snapshot was there and none verifies: whatever the journal still holds, content that was never
     *       journaled (a dump loaded, a filter merged in) was only in the snapshots;</li>
     *   <li>there is no snapshot and the journal no longer starts at record 0 (the records before it were pruned
     *       after a snapshot that is now gone).</li>
     * </ul>
     * It stops before it moves or cuts anything, so each start repeats the refusal until an operator acts, and the
     * error says how.
     */
    private void refuseWhenNothingRebuildsTheContent(List<Segment.File> segments) throws IOException {
        long firstRecord = segments.isEmpty() ? 0 : segments.get(0).firstSeq();
        if (rejected.isEmpty() && firstRecord == 0) {
            return; // no snapshot was ever written, and every record is there (or none was ever written)
        }
        StringBuilder why = new StringBuilder("cannot rebuild the store in " + dir + ": ");
        why.append(rejected.isEmpty() ? "there is no snapshot" : "no snapshot verifies (" + rejected + ")");
        if (segments.isEmpty()) {
            why.append(" and there is no journal.");
        } else if (firstRecord > 0) {
            why.append(" and the journal starts at record ")
                    .append(firstRecord)
                    .append(", so records 0 to ")
                    .append(firstRecord - 1)
                    .append(" are lost.");
        } else {
            long[] gap = firstGap(segments);
            if (gap != null) {
                why.append(". The journal starts at record 0, but records ")
                        .append(gap[0])
                        .append(" to ")
                        .append(gap[1] - 1)
                        .append(" are missing, so it cannot rebuild the store either: with the"
                                + " damaged snapshots moved out, the store would open with records 0 to ")
                        .append(gap[0] - 1)
                        .append(" only.");
            } else {
                why.append(". The journal starts at record 0: unless a dump was loaded into the store or a filter"
                        + " merged into it, it holds everything, and moving the damaged snapshots out of the directory"
                        + " rebuilds the store from it.");
            }
        }
        throw new IOException(why + " Nothing was changed. To start the store empty instead, losing what it held,"
                + " move its snapshot-* and journal-* files out of the directory (keep them to inspect), or restore"
                + " them from a backup");
    }

    /**
     * Where replay starts when the store is opened from what is readable: the first segment's first record, so that
     * a journal pruned after a snapshot that is now unreadable is replayed from what it still holds.
     */
    private long startOfWhatIsReadable(List<Segment.File> segments) {
        long first = segments.isEmpty() ? 0 : segments.get(0).firstSeq();
        if (!rejected.isEmpty() || first > 0) {
            problem("opened from what is readable: "
                    + (rejected.isEmpty() ? "no snapshot" : "no snapshot verifies (" + rejected + ")")
                    + (first > 0 ? "; journal records 0 to " + (first - 1) + " are lost" : "")
                    + "; replayed from record " + first);
        }
        return first;
    }

    /**
     * The first gap between segments, as {first record missing, first record after it}, or null: a segment that
     * starts past the end of the one before (journaling went on at a snapshot's position after a crash had lost
     * the journal's tail below it).
     */
    private static long[] firstGap(List<Segment.File> segments) throws IOException {
        for (int i = 1; i < segments.size(); i++) {
            long end = end(segments.get(i - 1));
            if (segments.get(i).firstSeq() > end) {
                return new long[] {end, segments.get(i).firstSeq()};
            }
        }
        return null;
    }

    /** Replays every segment's records from {@code position} on; returns the next sequence number. */
    private long replay(S store, long position, List<Segment.File> segments) throws IOException {
        long expected = position;
        for (int i = 0; i < segments.size(); i++) {
            Segment.File segment = segments.get(i);
            boolean last = i == segments.size() - 1;
            if (segment.firstSeq() > expected) {
                problem("journal records " + expected + " to " + (segment.firstSeq() - 1) + " are missing before "
                        + segment.path().getFileName());
                setAsideFrom(segments, i);
                break;
            }
            // Records before the expected one are in the snapshot: their slots are skipped unread, so damage in
            // them does not stop replay. A segment whose length ends before the expected record's slot (one kept
            // for an older snapshot) is not read at all. Its length decides, not the next segment's name: a stray
            // file named inside this segment's range must not hide the records after the position.
            long skipped = expected - segment.firstSeq();
            ByteBuffer bytes;
            try {
                if (skipped > 0 && Segment.endsBefore(Files.size(segment.path()), skipped)) {
                    continue;
                }
                bytes = readAll(segment.path());
            } catch (IOException e) {
                throw cannotRead(segment.path(), e);
            }
            int offset = Math.toIntExact(Segment.HEADER_BYTES + skipped * Segment.RECORD_BYTES);
            if (!Segment.validHeader(bytes, segment.firstSeq())) {
                if (last && bytes.limit() < Segment.HEADER_BYTES) {
                    // A crash right after the file was created: it never held a record.
                    Files.delete(segment.path());
                    cut(segment.path(), bytes.limit(), "incomplete segment header, file removed");
                    break;
                }
                if (!Segment.validRecord(bytes, offset, expected)) {
                    problem(segment.path().getFileName() + " has a damaged header");
                    setAsideFrom(segments, i);
                    break;
                }
                // Each record carries its sequence number and a checksum, and the file's name gives the first
                // sequence number, so the records check out without the header: replaying them keeps the
                // acknowledged changes they hold, where setting the file aside would lose them.
                problem(segment.path().getFileName() + " has a damaged header; its records pass their own checks"
                        + " and are replayed");
            }
            long seq = expected;
            while (Segment.validRecord(bytes, offset, seq)) {
                apply(store, bytes, offset);
                replayed++;
                expected = seq + 1;
                offset += Segment.RECORD_BYTES;
                seq++;
            }
            if (offset == bytes.limit()) {
                continue;
            }
            if (last && !anyValidAfter(bytes, offset, seq)) {
                truncate(segment.path(), offset);
                cut(segment.path(), bytes.limit() - offset, "torn tail after record " + (seq - 1));
                break;
            }
            problem(segment.path().getFileName() + ": record " + seq + " at byte " + offset
                    + " is damaged and valid data follows; replay stops there");
            Path aside = writeAside(
                    segment.path().getFileName() + "." + offset,
                    bytes.duplicate().position(offset));
            setAside.add(aside);
            truncate(segment.path(), offset);
            setAsideFrom(segments, i + 1);
            break;
        }
        return expected;
    }

    /**
     * A journal that stops short of the loaded snapshot's position (a crash kept the snapshot but lost the journal's
     * unsynced tail, or segments are gone) leaves the records between only in that snapshot. An older snapshot can
     * no longer be brought up to date across the gap: falling back to one, were the loaded snapshot damaged later,
     * would open the store without those records and, since replay stops at a gap, without every record after
     * them. Only the loaded snapshot is kept, so that such damage stops the open instead
     * ({@link #refuseWhenNothingRebuildsTheContent}).
     */
    private void keepOnlyTheLoadedSnapshotWhenTheJournalStopsShort(long position) throws IOException {
        long end = 0;
        for (Segment.File segment : Segment.list(dir)) {
            end = Math.max(end, end(segment));
        }
        if (end < position && Snapshots.list(dir).size() > 1) {
            problem("journal records " + end + " to " + (position - 1) + " are gone; the loaded snapshot holds them,"
                    + " and the older snapshots, which the journal can no longer bring up to date, were deleted");
            Snapshots.pruneToNewest(dir);
        }
    }

    /** {@link Segment.File#end}, a read error reported as {@link #cannotRead} does. */
    private static long end(Segment.File segment) throws IOException {
        try {
            return segment.end();
        } catch (IOException e) {
            throw cannotRead(segment.path(), e);
        }
    }

    /**
     * Reports files named like a segment or snapshot whose number is not a sequence number (above 2^63 - 1): deja
     * never wrote them, so they are ignored, and left in place for whoever put them there.
     */
    private void warnAboutUnusableNames() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Matcher m = JOURNAL_OR_SNAPSHOT.matcher(f.getFileName().toString());
                if (!m.matches()) {
                    continue;
                }
                String digits = m.group("seq") != null ? m.group("seq") : m.group("pos");
                if (Segment.sequence(digits).isEmpty()) {
                    problem(f + " ignored: " + digits + " is not a sequence number (the largest is " + Long.MAX_VALUE
                            + "); the file is left in place and never read");
                }
            }
        }
    }

    private static void apply(HashedSeenSet store, ByteBuffer b, int offset) {
        long high = Segment.high(b, offset);
        long low = Segment.low(b, offset);
        long owner = Segment.owner(b, offset);
        if (Segment.op(b, offset) == Segment.ADD) {
            store.addHash(high, low, owner);
        } else {
            store.forgetHash(high, low, owner);
        }
    }

    /** Whether any whole record slot after {@code offset} holds a valid record with the sequence it should have. */
    private static boolean anyValidAfter(ByteBuffer bytes, int offset, long seq) {
        for (int at = offset + Segment.RECORD_BYTES;
                at + Segment.RECORD_BYTES <= bytes.limit();
                at += Segment.RECORD_BYTES) {
            seq++;
            if (Segment.validRecord(bytes, at, seq)) {
                return true;
            }
        }
        return false;
    }

    private void setAsideFrom(List<Segment.File> segments, int from) throws IOException {
        for (Segment.File later : segments.subList(from, segments.size())) {
            Path aside = moveAside(later.path());
            setAside.add(aside);
            problem(later.path().getFileName() + " set aside as " + aside.getFileName());
        }
    }

    /**
     * Renames the file to {@code <name>.corrupt}, or {@code <name>.<n>.corrupt} with the smallest {@code n >= 2}
     * free when earlier damage of the same name was set aside: set-aside files are never replaced.
     */
    private Path moveAside(Path file) throws IOException {
        for (int n = 1; ; n++) {
            Path aside = asideName(file.getFileName().toString(), n);
            try {
                Files.move(file, aside); // refuses to replace an existing file
                Directories.force(dir);
                return aside;
            } catch (FileAlreadyExistsException taken) {
                // set aside before: try the next name
            }
        }
    }

    /** Writes the bytes, durably, to a new {@code <name>.corrupt} (or {@code <name>.<n>.corrupt}, as above). */
    private Path writeAside(String name, ByteBuffer bytes) throws IOException {
        for (int n = 1; ; n++) {
            Path aside = asideName(name, n);
            try (FileChannel ch = FileChannel.open(aside, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                while (bytes.hasRemaining()) {
                    ch.write(bytes);
                }
                ch.force(true);
            } catch (FileAlreadyExistsException taken) {
                continue;
            }
            Directories.force(dir);
            return aside;
        }
    }

    private Path asideName(String name, int n) {
        return dir.resolve(name + (n == 1 ? "" : "." + n) + SET_ASIDE_SUFFIX);
    }

    private void cut(Path file, long bytes, String why) {
        bytesCut += bytes;
        problem(file.getFileName() + ": cut " + bytes + " bytes (" + why + ")");
    }

    private void problem(String line) {
        LOG.warn("{}: {}", dir, line);
        problems.add(line);
    }

    /**
     * A read error (a failing disk, a directory where a file should be) stops recovery, naming the file: unlike bad
     * bytes it says nothing about the content, so the file is neither cut nor set aside, and the store does not
     * open without it.
     */
    private static IOException cannotRead(Path file, IOException e) {
        if (e instanceof FileSystemException named && file.toString().equals(named.getFile())) {
            return e; // already names it
        }
        return new IOException("cannot read " + file + ": " + e.getMessage(), e);
    }

    private static ByteBuffer readAll(Path file) throws IOException {
        return ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
    }

    private static void truncate(Path file, long size) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.truncate(size);
            ch.force(true);
        }
    }
}
