package dev.deja.bloom;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * The framing shared by deja's bloom serialisations (docs/FORMAT.md section 2.3): magic, version, kind, a header
 * protected by its own CRC32C, and little-endian integers.
 *
 * <p>The header has its own checksum so that a corrupt parameter is rejected before it is used to size anything.
 * Versions count per kind: a bloom filter is version 1 (scattered bits) or 2 (sectored bits), a windowed filter's
 * own framing is version 1 whatever its generations are.
 */
final class BloomFormat {

    static final byte[] MAGIC = {'D', 'J', 'B', 'F'};
    static final int KIND_BLOOM = 1;
    static final int KIND_WINDOWED = 2;
    static final int KIND_SCALING = 3;
    /** Bytes of bit array copied per read or write, so a 1 GiB filter streams through a small buffer. */
    static final int BUFFER_BYTES = 64 * 1024;

    private static final VarHandle LE_LONG =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LE_INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private BloomFormat() {}

    static void putLong(byte[] b, int at, long v) {
        LE_LONG.set(b, at, v);
    }

    static long getLong(byte[] b, int at) {
        return (long) LE_LONG.get(b, at);
    }

    /** Writes a header (its first 8 bytes are magic, version, kind, then two bytes given) followed by its CRC32C. */
    static void writeHeader(OutputStream out, byte[] header, int version) throws IOException {
        System.arraycopy(MAGIC, 0, header, 0, 4);
        header[4] = (byte) version;
        out.write(header);
        writeCrc(out, crc(header, header.length));
    }

    /**
     * Reads a header of {@code length} bytes and its checksum; checks magic, version (1 to {@code newestVersion}),
     * kind and checksum. The version is byte 4 of the header returned.
     *
     * @throws IOException naming what is wrong: not a deja bloom stream, unknown version, wrong kind, checksum
     *                     mismatch or truncation
     */
    static byte[] readHeader(InputStream in, int expectedKind, int newestVersion, int length, String what)
            throws IOException {
        byte[] header = new byte[length];
        readFully(in, header, 0, 8, what + " header");
        for (int i = 0; i < 4; i++) {
            if (header[i] != MAGIC[i]) {
                throw new IOException("not a deja bloom stream: bad magic (expected \"DJBF\")");
            }
        }
        if (header[5] != expectedKind) {
            throw new IOException("stream holds a " + kindName(header[5]) + ", not a " + kindName(expectedKind)
                    + "; read it with the matching class");
        }
        if (header[4] < 1 || header[4] > newestVersion) {
            throw new IOException("unsupported " + what + " format version " + (header[4] & 0xFF)
                    + " (this reader knows versions 1 to " + newestVersion + ")");
        }
        readFully(in, header, 8, length - 8, what + " header");
        int stored = readCrc(in, what + " header checksum");
        if (stored != crc(header, length)) {
            throw new IOException("corrupt " + what + " header: checksum mismatch");
        }
        return header;
    }

    static int crc(byte[] b, int length) {
        CRC32C c = new CRC32C();
        c.update(b, 0, length);
        return (int) c.getValue();
    }

    static void writeCrc(OutputStream out, int crc) throws IOException {
        byte[] b = new byte[4];
        LE_INT.set(b, 0, crc);
        out.write(b);
    }

    static int readCrc(InputStream in, String what) throws IOException {
        byte[] b = new byte[4];
        readFully(in, b, 0, 4, what);
        return (int) LE_INT.get(b, 0);
    }

    /** Fills the range or throws an EOFException saying which part of the stream was cut short. */
    static void readFully(InputStream in, byte[] b, int off, int len, String what) throws IOException {
        int n = in.readNBytes(b, off, len);
        if (n < len) {
            throw new EOFException("truncated bloom stream: " + what + " ended after " + n + " of " + len + " bytes");
        }
    }

    private static String kindName(int kind) {
        return switch (kind) {
            case KIND_BLOOM -> "bloom filter (kind 1)";
            case KIND_WINDOWED -> "windowed bloom filter (kind 2)";
            case KIND_SCALING -> "scaling bloom filter (kind 3)";
            default -> "structure of unknown kind " + (kind & 0xFF);
        };
    }
}
