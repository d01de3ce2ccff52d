package dev.deja.bloom;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/** Streams with headers whose checksums are right whatever they say, as anyone can recompute a CRC32C. */
final class Forged {

    private Forged() {}

    /** A copy of {@code stream} with the u64 at {@code at} replaced and the header's CRC32C recomputed. */
    static byte[] withLong(byte[] stream, int headerLength, int at, long value) {
        byte[] copy = stream.clone();
        BloomFormat.putLong(copy, at, value);
        int crc = BloomFormat.crc(copy, headerLength);
        for (int b = 0; b < 4; b++) {
            copy[headerLength + b] = (byte) (crc >>> (8 * b));
        }
        return copy;
    }

    /** The bytes of a header whose fields are those of {@code header}, with magic, version and checksum filled in. */
    static byte[] header(byte[] header, int version) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            BloomFormat.writeHeader(out, header, version);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }
}
