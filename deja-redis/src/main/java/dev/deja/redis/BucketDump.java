package dev.deja.redis;

/**
 * A whole bucket in the form Redis's {@code DUMP} gives a small hash and {@code RESTORE} takes: the fields and values
 * in a listpack (the compact encoding Redis itself keeps a hash of a few hundred short entries in), wrapped as an RDB
 * object with the RDB version and a CRC-64 (docs/FORMAT.md section 7). The listpack is laid out as Redis's own
 * {@code HSET} lays it out: a value that reads as a canonical decimal 64-bit integer is stored as an integer in the
 * smallest of Redis's integer encodings, any other as a string.
 */
final class BucketDump {

    /** RDB object type of a hash in a listpack (RDB version 10, Redis 7.0). */
    private static final int RDB_TYPE_HASH_LISTPACK = 16;

    /** The RDB version written: the first with {@link #RDB_TYPE_HASH_LISTPACK}; later versions of Redis load it. */
    static final int RDB_VERSION = 10;

    private static final int LISTPACK_HEADER = 6;
    private static final int LISTPACK_END = 0xff;

    private BucketDump() {}

    /** A bucket's entries, read by position; each is written into a buffer of at least {@link #maxLength()} bytes. */
    interface Entries {

        /** The number of fields; they must differ. */
        int count();

        /** The longest field or value, in bytes. */
        int maxLength();

        /** Writes field {@code j} into {@code into} from index 0 and returns its length. */
        int field(int j, byte[] into);

        /** Writes the value of field {@code j} into {@code into} from index 0 and returns its length. */
        int value(int j, byte[] into);

        /**
         * Whether every field is the decimal text of a {@code long}, {@link #fieldValue(int)}: Redis stores those as
         * integers, so they are encoded from the number without being written out and read back.
         */
        default boolean fieldsAreLongs() {
            return false;
        }

        /** The number whose decimal text field {@code j} is, when {@link #fieldsAreLongs()}. */
        default long fieldValue(int j) {
            throw new UnsupportedOperationException();
        }
    }

    /** The payload of a hash holding these entries, in their order. */
    static byte[] of(Entries entries) {
        byte[] scratch = new byte[entries.maxLength()];
        int count = entries.count();
        long listpackBytes = LISTPACK_HEADER + 1L;
        boolean longs = entries.fieldsAreLongs();
        for (int j = 0; j < count; j++) {
            listpackBytes +=
                    longs ? integerEntrySize(entries.fieldValue(j)) : entrySize(scratch, entries.field(j, scratch));
            listpackBytes += entrySize(scratch, entries.value(j, scratch));
        }
        if (listpackBytes > Integer.MAX_VALUE - 32) {
            throw new IllegalArgumentException("a bucket of " + listpackBytes + " bytes is too large to restore");
        }
        int lp = (int) listpackBytes;
        int prefix = 1 + lengthSize(lp);
        byte[] out = new byte[prefix + lp + 2 + 8];
        out[0] = (byte) RDB_TYPE_HASH_LISTPACK;
        writeLength(out, 1, lp);
        int at = prefix;
        putIntLe(out, at, lp, 4);
        putIntLe(out, at + 4, Math.min(2 * count, 65535), 2);
        at += LISTPACK_HEADER;
        for (int j = 0; j < count; j++) {
            if (longs) {
                int start = at;
                at = writeInteger(out, at, entries.fieldValue(j));
                at = writeBackLength(out, at, at - start);
            } else {
                at = writeEntry(out, at, scratch, entries.field(j, scratch));
            }
            at = writeEntry(out, at, scratch, entries.value(j, scratch));
        }
        out[at++] = (byte) LISTPACK_END;
        putIntLe(out, at, RDB_VERSION, 2);
        at += 2;
        long crc = Crc64.of(out, 0, at);
        putIntLe(out, at, crc, 8);
        return out;
    }

    /** Bytes an entry of the first {@code n} bytes of {@code value} takes: encoding, data, length written backwards. */
    private static int entrySize(byte[] value, int n) {
        int encoded = isInteger(value, n) ? integerSize(parseInteger(value, n)) : (n < 64 ? 1 : n < 4096 ? 2 : 5) + n;
        return encoded + backLengthSize(encoded);
    }

    private static int integerEntrySize(long v) {
        int encoded = integerSize(v);
        return encoded + backLengthSize(encoded);
    }

    private static int writeEntry(byte[] out, int at, byte[] value, int n) {
        int start = at;
        if (isInteger(value, n)) {
            at = writeInteger(out, at, parseInteger(value, n));
        } else {
            if (n < 64) {
                out[at++] = (byte) (0x80 | n);
            } else if (n < 4096) {
                out[at++] = (byte) (0xe0 | n >> 8);
                out[at++] = (byte) n;
            } else {
                out[at++] = (byte) 0xf0;
                putIntLe(out, at, n, 4);
                at += 4;
            }
            System.arraycopy(value, 0, out, at, n);
            at += n;
        }
        return writeBackLength(out, at, at - start);
    }

    private static int integerSize(long v) {
        if (v >= 0 && v <= 127) {
            return 1;
        } else if (v >= -4096 && v <= 4095) {
            return 2;
        } else if (v >= -32768 && v <= 32767) {
            return 3;
        } else if (v >= -8388608 && v <= 8388607) {
            return 4;
        } else if (v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE) {
            return 5;
        }
        return 9;
    }

    private static int writeInteger(byte[] out, int at, long v) {
        switch (integerSize(v)) {
            case 1 -> out[at] = (byte) v;
            case 2 -> {
                long u = v & 0x1fff;
                out[at] = (byte) (0xc0 | u >> 8);
                out[at + 1] = (byte) u;
            }
            case 3 -> {
                out[at] = (byte) 0xf1;
                putIntLe(out, at + 1, v, 2);
            }
            case 4 -> {
                out[at] = (byte) 0xf2;
                putIntLe(out, at + 1, v, 3);
            }
            case 5 -> {
                out[at] = (byte) 0xf3;
                putIntLe(out, at + 1, v, 4);
            }
            default -> {
                out[at] = (byte) 0xf4;
                putIntLe(out, at + 1, v, 8);
            }
        }
        return at + integerSize(v);
    }

    private static int backLengthSize(int l) {
        return l <= 127 ? 1 : l < 16383 ? 2 : l < 2097151 ? 3 : l < 268435455 ? 4 : 5;
    }

    /** An entry's length after it, in 7-bit groups read from its end, each but the last read flagged by bit 8. */
    private static int writeBackLength(byte[] out, int at, int l) {
        int n = backLengthSize(l);
        for (int k = n - 1; k >= 0; k--) {
            int group = (l >>> (7 * (n - 1 - k))) & 127;
            out[at + k] = (byte) (k == 0 ? group : group | 128);
        }
        return at + n;
    }

    /**
     * Whether Redis's listpack reads the first {@code n} bytes of {@code s} as an integer: a canonical decimal long.
     */
    static boolean isInteger(byte[] s, int n) {
        if (n == 0 || n > 20) {
            return false;
        }
        if (n == 1 && s[0] == '0') {
            return true;
        }
        int i = s[0] == '-' ? 1 : 0;
        if (i == n || s[i] < '1' || s[i] > '9') {
            return false;
        }
        long magnitude = 0; // negated, so that Long.MIN_VALUE fits
        for (; i < n; i++) {
            int d = s[i] - '0';
            if (d < 0 || d > 9 || magnitude < (Long.MIN_VALUE + d) / 10) {
                return false;
            }
            magnitude = magnitude * 10 - d;
        }
        return s[0] == '-' || magnitude != Long.MIN_VALUE;
    }

    /** The value of bytes {@link #isInteger} accepts. */
    private static long parseInteger(byte[] s, int n) {
        long magnitude = 0;
        for (int i = s[0] == '-' ? 1 : 0; i < n; i++) {
            magnitude = magnitude * 10 - (s[i] - '0');
        }
        return s[0] == '-' ? magnitude : -magnitude;
    }

    /** RDB's length prefix: 6 bits, 14 bits big-endian, or a marker and 32 bits big-endian. */
    private static int lengthSize(int n) {
        return n < 1 << 6 ? 1 : n < 1 << 14 ? 2 : 5;
    }

    private static void writeLength(byte[] out, int at, int n) {
        if (n < 1 << 6) {
            out[at] = (byte) n;
        } else if (n < 1 << 14) {
            out[at] = (byte) (0x40 | n >> 8);
            out[at + 1] = (byte) n;
        } else {
            out[at] = (byte) 0x80;
            for (int k = 0; k < 4; k++) {
                out[at + 1 + k] = (byte) (n >>> (24 - 8 * k));
            }
        }
    }

    private static void putIntLe(byte[] out, int at, long v, int bytes) {
        for (int k = 0; k < bytes; k++) {
            out[at + k] = (byte) (v >>> (8 * k));
        }
    }
}
