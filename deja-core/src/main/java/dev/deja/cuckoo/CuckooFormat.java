package dev.deja.cuckoo;

import dev.deja.hash.Hash128;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * deja's cuckoo filter format (docs/FORMAT.md section 2.5), used for snapshots and for {@code CF.SCANDUMP} /
 * {@code CF.LOADCHUNK}: a 48-byte header (magic {@code DJCF}, version, hash id, fingerprint bits, the shape and the
 * counters) and its CRC32C, then every table's slots as little-endian 16-bit fingerprints and one CRC32C of them all.
 *
 * <p>The tables' sizes are not stored: they follow from the shape (the first from capacity and bucket size, each next
 * one {@code expansion} rounded up to a power of two times larger), so a damaged size cannot make the reader
 * allocate what the shape does not say. The reader checks everything (header, sizes, table checksum, the item count
 * against the fingerprints held) before it returns a filter, so damaged input changes nothing.
 */
final class CuckooFormat {

    static final byte[] MAGIC = {'D', 'J', 'C', 'F'};
    static final int VERSION = 1;
    static final int HEADER_BYTES = 48;

    private static final int FINGERPRINT_BITS = 16;
    private static final int BUFFER_SLOTS = 32 * 1024;

    private CuckooFormat() {}

    static void write(OutputStream out, CuckooFilter shape, CuckooTable[] tables, long items, long deletes)
            throws IOException {
        ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        header.put(MAGIC)
                .put((byte) VERSION)
                .put((byte) Hash128.HASH_ID_XXH3_128)
                .put((byte) FINGERPRINT_BITS)
                .put((byte) 0)
                .putLong(shape.capacity())
                .putInt(shape.bucketSize())
                .putInt(shape.maxIterations())
                .putInt(shape.expansion())
                .putInt(tables.length)
                .putLong(items)
                .putLong(deletes);
        out.write(header.array());
        writeInt(out, crc(header.array(), HEADER_BYTES));
        CRC32C crc = new CRC32C();
        ByteBuffer buffer = ByteBuffer.allocate(2 * BUFFER_SLOTS).order(ByteOrder.LITTLE_ENDIAN);
        for (CuckooTable table : tables) {
            short[] slots = table.slots;
            for (int from = 0; from < slots.length; from += BUFFER_SLOTS) {
                int n = Math.min(BUFFER_SLOTS, slots.length - from);
                buffer.clear();
                buffer.asShortBuffer().put(slots, from, n);
                crc.update(buffer.array(), 0, 2 * n);
                out.write(buffer.array(), 0, 2 * n);
            }
        }
        writeInt(out, (int) crc.getValue());
    }

    static CuckooFilter read(InputStream in) throws IOException {
        byte[] bytes = new byte[HEADER_BYTES];
        readRange(in, bytes, 0, 8, "header");
        ByteBuffer header = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < MAGIC.length; i++) {
            if (bytes[i] != MAGIC[i]) {
                throw new IOException("not a deja cuckoo filter: bad magic (expected \"DJCF\")");
            }
        }
        if (bytes[4] != VERSION) {
            throw new IOException("unsupported cuckoo filter format version " + (bytes[4] & 0xFF)
                    + " (this reader knows version " + VERSION + ")");
        }
        readRange(in, bytes, 8, HEADER_BYTES, "header");
        if (readInt(in, "header checksum") != crc(bytes, HEADER_BYTES)) {
            throw new IOException("corrupt cuckoo filter header: checksum mismatch");
        }
        if (bytes[5] != Hash128.HASH_ID_XXH3_128 || bytes[6] != FINGERPRINT_BITS) {
            throw new IOException("cuckoo filter uses hash id " + (bytes[5] & 0xFF) + " and " + (bytes[6] & 0xFF)
                    + "-bit fingerprints (this reader knows hash id " + Hash128.HASH_ID_XXH3_128 + " = XXH3-128 with "
                    + FINGERPRINT_BITS + "-bit fingerprints)");
        }
        long capacity = header.getLong(8);
        int bucketSize = header.getInt(16);
        int maxIterations = header.getInt(20);
        int expansion = header.getInt(24);
        int tableCount = header.getInt(28);
        long items = header.getLong(32);
        long deletes = header.getLong(40);
        long[] buckets = shape(capacity, bucketSize, maxIterations, expansion, tableCount, items, deletes);
        CRC32C crc = new CRC32C();
        CuckooTable[] tables = new CuckooTable[tableCount];
        byte[] buffer = new byte[2 * BUFFER_SLOTS];
        ByteBuffer view = ByteBuffer.wrap(buffer).order(ByteOrder.LITTLE_ENDIAN);
        long held = 0;
        for (int t = 0; t < tableCount; t++) {
            short[] slots = new short[Math.toIntExact(buckets[t] * bucketSize)];
            for (int from = 0; from < slots.length; from += BUFFER_SLOTS) {
                int n = Math.min(BUFFER_SLOTS, slots.length - from);
                readFully(in, buffer, 2 * n, "table " + t + " at slot " + from);
                crc.update(buffer, 0, 2 * n);
                view.clear();
                view.asShortBuffer().get(slots, from, n);
            }
            tables[t] = new CuckooTable(slots, bucketSize);
            held += tables[t].held;
        }
        if (readInt(in, "table checksum") != (int) crc.getValue()) {
            throw new IOException("corrupt cuckoo filter: table checksum mismatch");
        }
        if (held != items) {
            throw new IOException(
                    "corrupt cuckoo filter: the header counts " + items + " items but the tables hold " + held);
        }
        return CuckooFilter.of(capacity, bucketSize, maxIterations, expansion, tables, items, deletes);
    }

    /** Checks the header's shape and returns the tables' bucket counts. */
    private static long[] shape(
            long capacity, int bucketSize, int maxIterations, int expansion, int tables, long items, long deletes)
            throws IOException {
        if (capacity < 1
                || bucketSize < 1
                || bucketSize > CuckooFilter.MAX_BUCKET_SIZE
                || maxIterations < 1
                || maxIterations > 65535
                || expansion < 0
                || expansion > CuckooFilter.MAX_EXPANSION
                || tables < 1
                || tables > CuckooFilter.MAX_TABLES
                || (expansion == 0 && tables > 1)
                || items < 0
                || deletes < 0) {
            throw new IOException("cuckoo filter header holds impossible parameters: capacity=" + capacity
                    + ", bucketSize=" + bucketSize + ", maxIterations=" + maxIterations + ", expansion=" + expansion
                    + ", tables=" + tables + ", items=" + items + ", deletes=" + deletes);
        }
        long[] buckets = new long[tables];
        try {
            buckets[0] = CuckooFilter.firstBuckets(capacity, bucketSize);
        } catch (IllegalArgumentException e) {
            throw new IOException("cuckoo filter header holds impossible parameters: " + e.getMessage(), e);
        }
        for (int t = 1; t < tables; t++) {
            buckets[t] = CuckooFilter.nextBuckets(buckets[t - 1], bucketSize, expansion);
            if (buckets[t] < 0) {
                throw new IOException("cuckoo filter header holds impossible parameters: table " + t + " would pass "
                        + CuckooFilter.MAX_SLOTS + " slots");
            }
        }
        return buckets;
    }

    private static int crc(byte[] b, int length) {
        CRC32C c = new CRC32C();
        c.update(b, 0, length);
        return (int) c.getValue();
    }

    private static void writeInt(OutputStream out, int v) throws IOException {
        out.write(
                ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(v).array());
    }

    private static int readInt(InputStream in, String what) throws IOException {
        byte[] b = new byte[4];
        readFully(in, b, 4, what);
        return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).getInt();
    }

    /** Fills the first {@code length} bytes of {@code b} or names the part cut short. */
    private static void readFully(InputStream in, byte[] b, int length, String what) throws IOException {
        readRange(in, b, 0, length, what);
    }

    private static void readRange(InputStream in, byte[] b, int from, int to, String what) throws IOException {
        int n = in.readNBytes(b, from, to - from);
        if (n < to - from) {
            throw new EOFException(
                    "truncated cuckoo filter: " + what + " ended after " + n + " of " + (to - from) + " bytes");
        }
    }
}
