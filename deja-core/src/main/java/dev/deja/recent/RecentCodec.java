package dev.deja.recent;

import dev.deja.hash.Hash128;
import dev.deja.seen.SeenSet;
import dev.deja.sizing.RecentSizing;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * Reads and writes a recent filter's buckets and count of insertions in the streamed, checksummed format of
 * {@code docs/FORMAT.md} section 3.
 *
 * <p>The header carries everything needed to rebuild the filter and its own CRC32C, so a corrupt header is
 * rejected before anything is allocated; the body is streamed set by set through a small buffer into arrays that
 * grow as it arrives, and closed by a CRC32C of its own.
 */
final class RecentCodec {

    static final byte[] MAGIC = "DEJA".getBytes(StandardCharsets.US_ASCII);
    static final byte KIND_RECENT = 'R';
    static final byte FORMAT_VERSION = 1;
    static final int FLAG_OWNERS = 1;
    static final int HEADER_BYTES = 36;
    /** Body buffer: 64 KiB, a whole number of sets for every associativity. */
    private static final int BUFFER_BYTES = 1 << 16;

    /**
     * What a stream holds: a filter's buckets and the number of keys it recorded.
     *
     * @param buckets    the buckets, filled
     * @param insertions the keys the filter had recorded when it was written
     */
    record Content(RecentBuckets buckets, long insertions) {}

    private RecentCodec() {}

    /** Writes the buckets, each set copied under its lock, and the count of insertions. */
    static void write(RecentBuckets buckets, long insertions, OutputStream out) throws IOException {
        ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        header.put(MAGIC)
                .put(KIND_RECENT)
                .put(FORMAT_VERSION)
                .putShort((short) Hash128.HASH_ID_XXH3_128)
                .put((byte) buckets.ways())
                .put((byte) (buckets.hasOwners() ? FLAG_OWNERS : 0))
                .put(new byte[6])
                .putLong(buckets.buckets())
                .putLong(insertions);
        CRC32C crc = new CRC32C();
        crc.update(header.array(), 0, HEADER_BYTES - 4);
        header.putInt((int) crc.getValue());
        out.write(header.array());

        int ways = buckets.ways();
        LongChunks fps = buckets.fingerprints();
        LongChunks owners = buckets.owners();
        ByteBuffer body = ByteBuffer.allocate(BUFFER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        CRC32C bodyCrc = new CRC32C();
        for (long set = 0; set < buckets.sets(); set++) {
            long base = set * ways;
            synchronized (buckets.lockFor(set)) {
                putSet(body, fps, base, ways);
                if (owners != null) {
                    putSet(body, owners, base, ways);
                }
            }
            if (body.remaining() < 2 * ways * Long.BYTES) {
                flush(body, bodyCrc, out);
            }
        }
        flush(body, bodyCrc, out);
        ByteBuffer trailer =
                ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt((int) bodyCrc.getValue());
        out.write(trailer.array());
    }

    /**
     * Reads what {@link #write} wrote into arrays of chunks of {@code 2^chunkShift} longs, which grow as the body
     * arrives.
     */
    static Content read(InputStream in, int chunkShift) throws IOException {
        byte[] header = readFully(in, HEADER_BYTES, "header");
        ByteBuffer h = ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN);
        byte[] magic = new byte[4];
        h.get(magic);
        byte kind = h.get();
        if (!Arrays.equals(magic, MAGIC) || kind != KIND_RECENT) {
            throw new IOException("not a deja recent filter: the stream does not start with \"DEJA\" 'R'");
        }
        int version = h.get();
        if (version != FORMAT_VERSION) {
            throw new IOException("unsupported recent filter format version " + version + " (this build reads "
                    + FORMAT_VERSION + ")");
        }
        int hashId = Short.toUnsignedInt(h.getShort());
        int ways = Byte.toUnsignedInt(h.get());
        int flags = Byte.toUnsignedInt(h.get());
        boolean reservedZero = true;
        for (int i = 0; i < 6; i++) {
            reservedZero &= h.get() == 0;
        }
        long buckets = h.getLong();
        long insertions = h.getLong();
        int storedCrc = h.getInt();
        CRC32C crc = new CRC32C();
        crc.update(header, 0, HEADER_BYTES - 4);
        if ((int) crc.getValue() != storedCrc) {
            throw new IOException("corrupt recent filter: header checksum mismatch");
        }
        if (hashId != Hash128.HASH_ID_XXH3_128) {
            throw new IOException("recent filter uses unknown hash id " + hashId + " (this build knows "
                    + Hash128.HASH_ID_XXH3_128 + ", XXH3-128)");
        }
        if ((flags & ~FLAG_OWNERS) != 0 || insertions < 0) {
            throw new IOException("corrupt recent filter: unknown flags " + flags + " or negative insertions");
        }
        if (!reservedZero) {
            // a later version may give them a meaning this build would silently ignore
            throw new IOException("corrupt recent filter: header bytes 10 to 15 are reserved and must be 0");
        }
        try {
            RecentSizing.checkShape(buckets, ways);
        } catch (IllegalArgumentException e) {
            throw new IOException("corrupt recent filter: " + e.getMessage(), e);
        }
        // The arrays grow as the body arrives (LongChunks.forFilling), so a header claiming 2^36 buckets over an
        // empty body costs a read, not 512 GiB.
        LongChunks fps = LongChunks.forFilling(buckets, chunkShift);
        LongChunks owners = (flags & FLAG_OWNERS) != 0 ? LongChunks.forFilling(buckets, chunkShift) : null;
        readBody(in, fps, owners, ways);
        return new Content(new RecentBuckets(buckets, ways, fps, owners), insertions);
    }

    private static void readBody(InputStream in, LongChunks fps, LongChunks owners, int ways) throws IOException {
        long sets = fps.length() / ways;
        int setBytes = ways * Long.BYTES * (owners == null ? 1 : 2);
        int setsPerBuffer = BUFFER_BYTES / setBytes;
        long totalBytes = sets * setBytes;
        CRC32C crc = new CRC32C();
        long done = 0;
        for (long set = 0; set < sets; ) {
            int n = (int) Math.min(setsPerBuffer, sets - set);
            byte[] bytes = in.readNBytes(n * setBytes);
            if (bytes.length < n * setBytes) {
                throw new EOFException("truncated recent filter: body ends after " + (done + bytes.length) + " of "
                        + totalBytes + " bytes");
            }
            crc.update(bytes);
            ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
            for (int i = 0; i < n; i++, set++) {
                long base = set * ways;
                getSet(b, fps, base, ways);
                if (owners != null) {
                    getSet(b, owners, base, ways);
                }
                checkSet(fps, owners, base, ways, set);
            }
            done += bytes.length;
        }
        byte[] trailer = readFully(in, 4, "body checksum");
        if (ByteBuffer.wrap(trailer).order(ByteOrder.LITTLE_ENDIAN).getInt() != (int) crc.getValue()) {
            throw new IOException("corrupt recent filter: body checksum mismatch");
        }
    }

    /**
     * Rejects a set whose empty slots are not all at the end, an empty slot with an owner, or a fingerprint held
     * twice. The filter never stores one twice in a set (checkThenAdd finds it first), and a forged set that did
     * would keep a key after {@code forget} erased one copy, with its owner unclear.
     */
    private static void checkSet(LongChunks fps, LongChunks owners, long base, int ways, long set) throws IOException {
        long[] chunk = fps.chunk(base);
        int off = fps.offset(base);
        boolean emptySeen = false;
        for (int i = 0; i < ways; i++) {
            long fingerprint = chunk[off + i];
            boolean empty = fingerprint == RecentBuckets.EMPTY;
            if ((!empty && emptySeen) || (empty && owners != null && owners.chunk(base)[off + i] != SeenSet.NO_OWNER)) {
                throw new IOException("corrupt recent filter: set " + set + " is malformed");
            }
            for (int j = 0; j < i && !empty; j++) {
                if (chunk[off + j] == fingerprint) {
                    throw new IOException("corrupt recent filter: set " + set + " holds fingerprint "
                            + Long.toHexString(fingerprint) + " twice (slots " + j + " and " + i + ")");
                }
            }
            emptySeen |= empty;
        }
    }

    private static void putSet(ByteBuffer buffer, LongChunks array, long base, int ways) {
        long[] chunk = array.chunk(base);
        int off = array.offset(base);
        for (int i = 0; i < ways; i++) {
            buffer.putLong(chunk[off + i]);
        }
    }

    private static void getSet(ByteBuffer buffer, LongChunks array, long base, int ways) {
        long[] chunk = array.chunkForFill(base, ways);
        int off = array.offset(base);
        for (int i = 0; i < ways; i++) {
            chunk[off + i] = buffer.getLong();
        }
    }

    private static void flush(ByteBuffer buffer, CRC32C crc, OutputStream out) throws IOException {
        crc.update(buffer.array(), buffer.arrayOffset(), buffer.position());
        out.write(buffer.array(), buffer.arrayOffset(), buffer.position());
        buffer.clear();
    }

    private static byte[] readFully(InputStream in, int length, String what) throws IOException {
        byte[] bytes = in.readNBytes(length);
        if (bytes.length < length) {
            throw new EOFException(
                    "truncated recent filter: " + what + " ends after " + bytes.length + " of " + length + " bytes");
        }
        return bytes;
    }
}
