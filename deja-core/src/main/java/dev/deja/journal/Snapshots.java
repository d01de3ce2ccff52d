package dev.deja.journal;

import dev.deja.files.Directories;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import java.util.zip.CheckedOutputStream;

/**
 * Snapshot files: a 32-byte header (position, payload length, payload CRC32C) then the codec's bytes
 * (docs/FORMAT.md, 5.2), written to a temporary file and renamed into place.
 *
 * <p>The payload is streamed through a CRC32C as the codec writes it, so a store of any size is never copied;
 * the header, which needs the length and checksum, is written last at offset 0. Only the rename publishes the
 * file, so a crash while writing leaves the previous snapshots untouched and at most a stale temporary file.
 *
 * <p>Payloads are written as sparse files ({@link SparseFileOutput}) and read back with {@link SparseFileInput},
 * which reads their holes around the page cache: a snapshot of a nearly empty 1 GiB filter then costs little to
 * write, to keep and to load.
 */
final class Snapshots {

    /** "DJSN" as it appears in the file. */
    static final int MAGIC = 0x4E534A44;

    static final int VERSION = 1;
    static final int HEADER_BYTES = 32;
    static final String TEMP_SUFFIX = ".tmp";

    private static final Pattern NAME = Pattern.compile("snapshot-(\\d{20})\\.snap");
    private static final int IO_BUFFER = 1 << 16;

    /** A snapshot file and the journal position it covers. */
    record Snapshot(Path file, long position) {}

    private Snapshots() {}

    static String fileName(long position) {
        return String.format("snapshot-%020d.snap", position);
    }

    /** The snapshots in the directory, newest (highest position) first. */
    static List<Snapshot> list(Path dir) throws IOException {
        List<Snapshot> out = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Matcher m = NAME.matcher(f.getFileName().toString());
                if (m.matches()) {
                    Segment.sequence(m.group(1)).ifPresent(position -> out.add(new Snapshot(f, position)));
                }
            }
        }
        out.sort(Comparator.comparingLong(Snapshot::position).reversed());
        return out;
    }

    /** Writes a snapshot of the store covering every record before {@code position}, durably, and returns it. */
    static <S> Path write(Path dir, long position, SnapshotCodec<S> codec, S store) throws IOException {
        Path target = dir.resolve(fileName(position));
        Path temp = dir.resolve(fileName(position) + TEMP_SUFFIX);
        Files.deleteIfExists(temp);
        try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.allocate(HEADER_BYTES)); // placeholder until length and CRC are known
            CRC32C crc = new CRC32C();
            OutputStream out =
                    new BufferedOutputStream(new CheckedOutputStream(new SparseFileOutput(ch), crc), IO_BUFFER);
            codec.write(store, out);
            out.flush(); // not close(): that would close the channel before the header is written
            long length = ch.position() - HEADER_BYTES;
            ByteBuffer header = Segment.buffer(HEADER_BYTES);
            header.putInt(MAGIC)
                    .putInt(VERSION)
                    .putLong(position)
                    .putLong(length)
                    .putInt((int) crc.getValue());
            header.putInt(crc(header, 28));
            header.flip();
            ch.write(header, 0);
            ch.force(true);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(temp);
            throw e;
        }
        Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        Directories.force(dir);
        return target;
    }

    /**
     * Makes {@code content} the whole of what the directory of a closed store holds, so that a crash at any point
     * leaves the old content or the new one: it is written as a snapshot past every record and snapshot in the
     * directory and made durable, and only then are the older snapshots and the journal deleted.
     *
     * @return the snapshot written
     */
    static <S> Path replaceContent(Path dir, SnapshotCodec<S> codec, S content) throws IOException {
        List<Snapshot> snapshots = list(dir);
        List<Segment.File> segments = Segment.list(dir);
        long position = 0;
        for (Snapshot snapshot : snapshots) {
            position = Math.max(position, snapshot.position());
        }
        for (Segment.File segment : segments) {
            position = Math.max(position, segment.end());
        }
        Path written = write(dir, position, codec, content);
        for (Snapshot snapshot : snapshots) {
            if (snapshot.position() < position) { // one at the position itself was just replaced by the new one
                Files.deleteIfExists(snapshot.file());
            }
        }
        for (Segment.File segment : segments) {
            Files.deleteIfExists(segment.path()); // every record in it is before the new snapshot's position
        }
        return written;
    }

    /**
     * Checks the header and the payload checksum, streaming the payload once.
     *
     * @return null when the snapshot is valid, otherwise why it is not
     */
    static String verify(Snapshot snapshot) throws IOException {
        int expectedCrc;
        try (FileChannel ch = FileChannel.open(snapshot.file(), StandardOpenOption.READ)) {
            ByteBuffer header = Segment.buffer(HEADER_BYTES);
            while (header.hasRemaining() && ch.read(header) >= 0) {
                // read the whole header or reach the end
            }
            header.flip();
            if (header.remaining() < HEADER_BYTES) {
                return "shorter than its " + HEADER_BYTES + "-byte header (" + ch.size() + " bytes)";
            }
            if (header.getInt(0) != MAGIC || header.getInt(4) != VERSION || header.getInt(28) != crc(header, 28)) {
                return "header is not a version " + VERSION + " snapshot header or fails its CRC";
            }
            if (header.getLong(8) != snapshot.position()) {
                return "header position " + header.getLong(8) + " differs from the file name";
            }
            long length = header.getLong(16);
            if (length != ch.size() - HEADER_BYTES) {
                return "header says " + length + " payload bytes, file holds " + (ch.size() - HEADER_BYTES);
            }
            expectedCrc = header.getInt(24);
        }
        CRC32C crc = new CRC32C();
        try (SparseFileInput in = new SparseFileInput(snapshot.file(), HEADER_BYTES)) {
            in.checksumRest(crc);
        }
        if ((int) crc.getValue() != expectedCrc) {
            return "payload CRC32C mismatch";
        }
        return null;
    }

    /** Decodes a verified snapshot's payload. */
    static <S> S read(Snapshot snapshot, SnapshotCodec<S> codec) throws IOException {
        try (InputStream in = new SparseFileInput(snapshot.file(), HEADER_BYTES)) {
            return codec.read(in);
        }
    }

    /**
     * Deletes all but the two newest snapshots.
     *
     * @return the position of the older snapshot kept (the journal must reach back to it), or empty when fewer than
     *         two snapshots exist
     */
    static OptionalLong prune(Path dir) throws IOException {
        List<Snapshot> kept = keepNewest(dir, 2);
        return kept.size() < 2
                ? OptionalLong.empty()
                : OptionalLong.of(kept.get(1).position());
    }

    /**
     * Deletes every snapshot but the newest, after a change the journal does not record (a filter merged in) was
     * written into it: an older snapshot lacks that change, and recovering from one because the newest was damaged
     * would drop it without a word. With the newest the only one, its damage stops the open instead
     * ({@link Recovery}). Journal segments are left alone: the next snapshot prunes them as usual.
     */
    static void pruneToNewest(Path dir) throws IOException {
        keepNewest(dir, 1);
    }

    /** Deletes all but the {@code keep} newest snapshots; returns those kept, newest first. */
    private static List<Snapshot> keepNewest(Path dir, int keep) throws IOException {
        List<Snapshot> snapshots = list(dir);
        int kept = Math.min(keep, snapshots.size());
        for (Snapshot old : snapshots.subList(kept, snapshots.size())) {
            Files.deleteIfExists(old.file());
        }
        return snapshots.subList(0, kept);
    }

    /** Deletes temporary files a crash left behind while writing a snapshot. */
    static void deleteTemporaryFiles(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                String name = f.getFileName().toString();
                if (name.startsWith("snapshot-") && name.endsWith(TEMP_SUFFIX)) {
                    Files.deleteIfExists(f);
                }
            }
        }
    }

    private static int crc(ByteBuffer b, int length) {
        CRC32C crc = new CRC32C();
        crc.update(b.duplicate().limit(length).position(0));
        return (int) crc.getValue();
    }
}
