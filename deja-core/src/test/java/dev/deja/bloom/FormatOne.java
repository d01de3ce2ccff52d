package dev.deja.bloom;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.zip.CRC32C;

/** Filters in format version 1 (scattered layout), made the only way they arise now: read from their bytes. */
final class FormatOne {

    private FormatOne() {}

    /** An empty format-1 filter of the given shape, read through {@link BloomFilter#readFrom}. */
    static BloomFilter empty(long bits, int k, long capacity) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] header = new byte[32];
        header[5] = BloomFormat.KIND_BLOOM;
        header[6] = 1; // XXH3-128
        header[7] = (byte) k;
        BloomFormat.putLong(header, 8, bits);
        BloomFormat.putLong(header, 16, capacity);
        BloomFormat.putLong(header, 24, Double.doubleToRawLongBits(0.01));
        try {
            BloomFormat.writeHeader(out, header, 1);
            byte[] zeros = new byte[(int) (bits / 8)];
            out.write(zeros);
            CRC32C crc = new CRC32C();
            crc.update(zeros);
            BloomFormat.writeCrc(out, (int) crc.getValue());
            return BloomFilter.readFrom(new ByteArrayInputStream(out.toByteArray()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The bytes of a test resource written by the format-1 code (src/test/resources/format1, see its README). */
    static byte[] resource(String name) throws IOException {
        try (InputStream in = FormatOne.class.getResourceAsStream("/format1/" + name)) {
            if (in == null) {
                throw new IllegalStateException("missing test resource format1/" + name);
            }
            return in.readAllBytes();
        }
    }
}
