package dev.deja.redis;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The 64-bit CRC Redis checks a {@code DUMP} payload with (CRC-64/Jones: polynomial {@code 0xad93d23594c935a9}, bits
 * reflected, initial value and final XOR 0), computed eight bytes a step with eight tables.
 */
final class Crc64 {

    private static final long[][] TABLES = tables();

    private static final VarHandle LITTLE_ENDIAN_LONGS =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private Crc64() {}

    /** The CRC of {@code length} bytes of {@code data} from {@code offset}. */
    static long of(byte[] data, int offset, int length) {
        long crc = 0;
        int i = offset;
        int end = offset + length;
        for (; i + 8 <= end; i += 8) {
            crc ^= (long) LITTLE_ENDIAN_LONGS.get(data, i);
            crc = TABLES[7][(int) crc & 0xff]
                    ^ TABLES[6][(int) (crc >>> 8) & 0xff]
                    ^ TABLES[5][(int) (crc >>> 16) & 0xff]
                    ^ TABLES[4][(int) (crc >>> 24) & 0xff]
                    ^ TABLES[3][(int) (crc >>> 32) & 0xff]
                    ^ TABLES[2][(int) (crc >>> 40) & 0xff]
                    ^ TABLES[1][(int) (crc >>> 48) & 0xff]
                    ^ TABLES[0][(int) (crc >>> 56) & 0xff];
        }
        for (; i < end; i++) {
            crc = TABLES[0][(int) (crc ^ data[i]) & 0xff] ^ (crc >>> 8);
        }
        return crc;
    }

    /** Table k gives the CRC of a byte followed by k zero bytes. */
    private static long[][] tables() {
        long poly = Long.reverse(0xad93d23594c935a9L);
        long[][] t = new long[8][256];
        for (int b = 0; b < 256; b++) {
            long crc = b;
            for (int bit = 0; bit < 8; bit++) {
                crc = (crc & 1) != 0 ? (crc >>> 1) ^ poly : crc >>> 1;
            }
            t[0][b] = crc;
        }
        for (int k = 1; k < 8; k++) {
            for (int b = 0; b < 256; b++) {
                long prev = t[k - 1][b];
                t[k][b] = t[0][(int) prev & 0xff] ^ (prev >>> 8);
            }
        }
        return t;
    }
}
