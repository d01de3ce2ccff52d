package dev.deja.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * Journal segment files: their names, and their byte layout of a 20-byte header then fixed 37-byte records
 * (docs/FORMAT.md, 5.1).
 *
 * <p>Records have a fixed size so that a reader can tell a torn tail (nothing valid after the first bad record)
 * from damage in the middle (valid records after a bad one) by checking every later slot, and so that a
 * record's offset follows from its sequence number. Each record carries its own sequence number and a CRC32C, so
 * a record that is intact but out of place is rejected as surely as a flipped bit.
 */
final class Segment {

    /** "DJNL" as it appears in the file. */
    static final int MAGIC = 0x4C4E4A44;

    static final int VERSION = 1;
    static final int HEADER_BYTES = 20;
    static final int RECORD_BYTES = 37;

    static final byte ADD = 1;
    static final byte FORGET = 2;

    private static final Pattern NAME = Pattern.compile("journal-(\\d{20})\\.log");

    private Segment() {}

    /** The file name of the segment whose first record has this sequence number. */
    static String fileName(long firstSeq) {
        return String.format("journal-%020d.log", firstSeq);
    }

    /** The first sequence number encoded in a segment's file name, or empty when it is not a segment. */
    static OptionalLong firstSeqOf(Path file) {
        Matcher m = NAME.matcher(file.getFileName().toString());
        return m.matches() ? sequence(m.group(1)) : OptionalLong.empty();
    }

    /**
     * The sequence number written as these decimal digits, or empty when it exceeds {@link Long#MAX_VALUE}: such a
     * name was not written by deja, and recovery warns about it and leaves it alone.
     */
    static OptionalLong sequence(String digits) {
        try {
            return OptionalLong.of(Long.parseLong(digits));
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    /** A segment file and the sequence number of its first record. */
    record File(Path path, long firstSeq) {

        /** One past the last record slot the file has begun (a slot cut short included): where the next one starts. */
        long end() throws IOException {
            return firstSeq + slots(Files.size(path));
        }
    }

    /** The segment files in the directory, oldest first. */
    static List<File> list(Path dir) throws IOException {
        List<File> out = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                firstSeqOf(f).ifPresent(seq -> out.add(new File(f, seq)));
            }
        }
        out.sort(Comparator.comparingLong(File::firstSeq));
        return out;
    }

    /**
     * Deletes the segments whose records all precede {@code position}, as their lengths say (recovery judges them
     * the same way, 5.3), except the last, which the journal may be writing. Not the next segment's name: a stray
     * file named inside a segment's range would get records deleted that the older snapshot still needs.
     */
    static void deleteBefore(Path dir, long position) throws IOException {
        List<File> segments = list(dir);
        for (File segment : segments.subList(0, Math.max(0, segments.size() - 1))) {
            long slot = position - segment.firstSeq();
            try {
                if (slot > 0 && endsBefore(Files.size(segment.path()), slot)) {
                    Files.delete(segment.path());
                }
            } catch (NoSuchFileException gone) {
                // deleted meanwhile, as this would have done
            }
        }
    }

    /**
     * Whether a segment file of {@code size} bytes ends before record slot {@code slot} begins (a slot cut short
     * counts as begun), so that it holds no record from that slot on. Safe for any slot, without overflow.
     */
    static boolean endsBefore(long size, long slot) {
        return slot >= slots(size);
    }

    /** The record slots a segment file of {@code size} bytes has begun, a slot cut short included. */
    static long slots(long size) {
        return size <= HEADER_BYTES ? 0 : Math.ceilDiv(size - HEADER_BYTES, RECORD_BYTES);
    }

    /** A little-endian buffer of the given size. */
    static ByteBuffer buffer(int bytes) {
        return ByteBuffer.allocateDirect(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** The header of a segment starting at {@code firstSeq}, ready to write. */
    static ByteBuffer header(long firstSeq) {
        ByteBuffer b = buffer(HEADER_BYTES);
        b.putInt(MAGIC).putInt(VERSION).putLong(firstSeq);
        b.putInt(crc(b, 0, 16));
        return b.flip();
    }

    /** Whether the 20 bytes at the buffer's position are a valid header naming {@code firstSeq}. */
    static boolean validHeader(ByteBuffer b, long firstSeq) {
        int p = b.position();
        return b.remaining() >= HEADER_BYTES
                && b.getInt(p) == MAGIC
                && b.getInt(p + 4) == VERSION
                && b.getLong(p + 8) == firstSeq
                && b.getInt(p + 16) == crc(b, p, 16);
    }

    /** Appends one record at the buffer's position. */
    static void putRecord(ByteBuffer b, byte op, long seq, long high, long low, long owner) {
        int start = b.position();
        b.position(start + 4);
        b.put(op).putLong(seq).putLong(high).putLong(low).putLong(owner);
        b.putInt(start, crc(b, start + 4, RECORD_BYTES - 4));
    }

    /** Whether the record at {@code offset} has a valid checksum, a known operation and the expected sequence. */
    static boolean validRecord(ByteBuffer b, int offset, long expectedSeq) {
        if (offset + RECORD_BYTES > b.limit() || b.getInt(offset) != crc(b, offset + 4, RECORD_BYTES - 4)) {
            return false;
        }
        byte op = op(b, offset);
        return (op == ADD || op == FORGET) && b.getLong(offset + 5) == expectedSeq;
    }

    static byte op(ByteBuffer b, int offset) {
        return b.get(offset + 4);
    }

    static long high(ByteBuffer b, int offset) {
        return b.getLong(offset + 13);
    }

    static long low(ByteBuffer b, int offset) {
        return b.getLong(offset + 21);
    }

    static long owner(ByteBuffer b, int offset) {
        return b.getLong(offset + 29);
    }

    private static int crc(ByteBuffer b, int offset, int length) {
        CRC32C crc = new CRC32C();
        crc.update(b.duplicate().limit(offset + length).position(offset));
        return (int) crc.getValue();
    }
}
