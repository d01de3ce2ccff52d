package dev.deja.journal;

import dev.deja.files.Directories;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The journal segment being written: its file, its good end (the end of its last whole group), and whether it holds
 * writes not yet fsynced.
 *
 * <p>A failed write or fsync cuts the segment back to its good end, so the file never keeps part of a group; when
 * even the cut fails, the next write (or the segment's close) cuts first. A segment is forced before the next one is
 * started, whatever the policy, so a later segment never outlives an earlier one.
 *
 * <p>Not thread-safe: the {@link Journal} calls it under its write lock, except for the fsync of a channel taken
 * with {@link #channelToFsync}, which may run while the next group is written.
 */
final class SegmentWriter {

    private static final Logger LOG = LoggerFactory.getLogger(SegmentWriter.class);

    private final Path dir;
    private final long segmentBytes;
    private final ChannelOpener opener;

    private FileChannel channel;
    /** The file {@link #channel} writes, to notice when it is deleted under the journal. */
    private Path segmentPath;

    private long segmentSize;
    private boolean dirty;
    /** Whether a failed write may have left bytes beyond {@link #segmentSize} (asking the file costs an fstat). */
    private boolean mayBeTorn;

    private long lastForceNanos = System.nanoTime();

    /** No segment open yet: {@link #start} opens one. */
    SegmentWriter(Path dir, long segmentBytes, ChannelOpener opener) {
        this.dir = dir;
        this.segmentBytes = segmentBytes;
        this.opener = opener;
    }

    /** Whether a segment is open. */
    boolean isOpen() {
        return channel != null;
    }

    /**
     * Whether a group of {@code records} must start a new segment: none is open, or this one holds records and the
     * group would take it past the size limit.
     */
    boolean needsNewSegmentFor(int records) {
        return channel == null
                || (segmentSize > Segment.HEADER_BYTES
                        && segmentSize + (long) records * Segment.RECORD_BYTES > segmentBytes);
    }

    /** Whether the segment holds writes not yet fsynced. */
    boolean dirty() {
        return dirty;
    }

    /** When the segment was last fsynced (or started), on {@link System#nanoTime}'s clock. */
    long lastForceNanos() {
        return lastForceNanos;
    }

    /**
     * Closes the current segment (forced, whatever the policy, so a later segment never outlives an earlier one)
     * and starts a new one whose first record is {@code firstSeq}.
     */
    void start(long firstSeq) throws IOException {
        if (channel != null) {
            if (mayBeTorn && channel.size() != segmentSize) {
                // What a failed write left after the last good record is cut before the next write, and this
                // segment gets none: cut it now. Recovery reads bytes after the last record of a segment that is
                // not the last as damage, and would set aside the new segment with every write it holds.
                channel.truncate(segmentSize);
            }
            channel.force(false);
            channel.close();
            channel = null;
        }
        Path file = dir.resolve(Segment.fileName(firstSeq));
        FileChannel ch = opener.open(file);
        try {
            ByteBuffer header = Segment.header(firstSeq);
            long at = 0;
            while (header.hasRemaining()) {
                at += ch.write(header, at);
            }
            ch.force(false);
            Directories.force(dir);
        } catch (IOException e) {
            ch.close();
            Files.deleteIfExists(file);
            throw e;
        }
        channel = ch;
        segmentPath = file;
        segmentSize = Segment.HEADER_BYTES;
        dirty = false;
        mayBeTorn = false;
    }

    /**
     * Writes a group of records at the segment's good end. On failure the group is cut off again, so the segment
     * ends at its last whole group.
     */
    void write(ByteBuffer group) throws IOException {
        append(group, false);
    }

    /** Writes a group of records as {@link #write} does, and fsyncs it; a failed fsync cuts the group off too. */
    void writeAndForce(ByteBuffer group) throws IOException {
        append(group, true);
    }

    private void append(ByteBuffer group, boolean force) throws IOException {
        long goodEnd = segmentSize;
        try {
            writeAt(group);
            if (force) {
                force();
            }
        } catch (IOException e) {
            // Cut the group off: after a failed fsync the kernel may have dropped its pages anyway.
            segmentSize = goodEnd;
            mayBeTorn = true;
            try {
                channel.truncate(goodEnd);
            } catch (IOException again) {
                e.addSuppressed(again); // retried before the next write
            }
            throw e;
        }
    }

    /** Writes the buffer at the segment's good end, first cutting off what a failed write may have left. */
    private void writeAt(ByteBuffer buffer) throws IOException {
        if (mayBeTorn) {
            if (channel.size() != segmentSize) {
                channel.truncate(segmentSize); // a previous failed write left a partial group
            }
            mayBeTorn = false;
        }
        long at = segmentSize;
        while (buffer.hasRemaining()) {
            at += channel.write(buffer, at);
        }
        segmentSize = at;
        dirty = true;
    }

    private void force() throws IOException {
        channel.force(false);
        dirty = false;
        lastForceNanos = System.nanoTime();
    }

    /**
     * The channel to fsync outside the journal's write lock, counted as fsynced from now on, so that appenders keep
     * writing meanwhile (a file may be forced while it is written); null when nothing waits for an fsync. Should the
     * fsync fail, {@link #fsyncFailed} says so.
     */
    FileChannel channelToFsync() {
        if (!dirty) {
            return null;
        }
        dirty = false; // a write from now on makes it dirty again
        lastForceNanos = System.nanoTime();
        return channel;
    }

    /** The fsync of a channel from {@link #channelToFsync} failed: the segment still waits for one. */
    void fsyncFailed() {
        dirty = true;
    }

    /**
     * Notices a segment file deleted while it is written (a clean-up of {@code *.log} files, say): writes would go on
     * into the unlinked file and be lost at the next restart. Drops it, so that the next write starts a new segment,
     * and returns true; the journal's owner then writes a snapshot to keep the changes only the deleted file held.
     */
    boolean dropIfDeleted() {
        if (channel == null || !Files.notExists(segmentPath)) {
            return false; // still there, or its state cannot be told (an unreadable directory is not a deleted file)
        }
        LOG.error(
                "journal {}: {} was deleted while in use; the next write starts a new segment, and a snapshot is"
                        + " written now to keep the changes it held",
                dir,
                segmentPath.getFileName());
        try {
            channel.close();
        } catch (IOException e) {
            LOG.warn("journal {}: closing the deleted segment: {}", dir, e.toString());
        }
        channel = null;
        dirty = false; // nothing left to fsync: the file is gone
        return true;
    }

    /** Fsyncs and closes the segment; logs a failure. */
    void close() {
        close(true);
    }

    /** Closes the segment without an fsync, which would fail as the writes do; logs a failure. */
    void closeWithoutFsync() {
        close(false);
    }

    private void close(boolean force) {
        if (channel == null) {
            return;
        }
        try {
            if (force) {
                channel.force(false);
            }
            channel.close();
        } catch (IOException e) {
            LOG.error("journal {}: closing the segment failed", dir, e);
        }
    }
}
