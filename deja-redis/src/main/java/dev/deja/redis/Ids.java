package dev.deja.redis;

import dev.deja.hash.Hash128;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * How a key and an owner are written into a bucket (docs/FORMAT.md section 7). With 16-byte ids, as Tapjoy's Redis
 * design stores them, a key that is a textual UUID (36 characters, either case) becomes its 16 bytes and any other
 * key its 128-bit hash ({@link Hash128}), also 16 bytes: two keys share an id only if they share that hash. With
 * 8-byte ids a key becomes the high 64 bits of its hash ({@link #hash(byte[], byte[])}: a UUID's is the hash of its
 * 16 bytes), written in decimal so that Redis keeps it in a bucket as an 8-byte integer: two keys of one bucket then
 * share an id with probability 2^-64. An owner becomes its big-endian
 * bytes without leading zeros, the empty string for none.
 *
 * @param bytes 16 or 8
 */
record Ids(int bytes) {

    /** Exact ids: a UUID's 16 bytes or a key's 128-bit hash. */
    static final Ids EXACT = new Ids(16);

    /** 64-bit fingerprints: the high half of a key's 128-bit hash. */
    static final Ids FINGERPRINT = new Ids(8);

    private static final byte[] NO_OWNER = new byte[0];

    private static final VarHandle BIG_ENDIAN_LONGS =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    Ids {
        if (bytes != 16 && bytes != 8) {
            throw new IllegalArgumentException("ids are 16 or 8 bytes (got " + bytes + ")");
        }
    }

    /**
     * The hash a key is placed (its slice) and fingerprinted by: for a textual UUID, the hash of its 16 bytes, so that
     * its upper- and lower-case spellings are one key in every respect; for any other key, the hash of its bytes.
     *
     * @param uuid the key's {@link #uuid(byte[])}
     */
    static Hash128 hash(byte[] key, byte[] uuid) {
        return Hash128.of(uuid != null ? uuid : key);
    }

    /** The 16 bytes of a key that is a UUID in its canonical text form (8-4-4-4-12 hex digits), or null. */
    static byte[] uuid(byte[] key) {
        return key.length == 36 ? uuidBytes(key) : null;
    }

    /**
     * The id a key is stored under in its bucket, as two longs written to {@code into[at]} and {@code into[at + 1]}:
     * the 16 bytes big-endian, or the 64-bit fingerprint and 0.
     *
     * @param uuid the key's {@link #uuid(byte[])}
     * @param hash the key's {@link #hash(byte[], byte[])}
     */
    void id(byte[] uuid, Hash128 hash, long[] into, int at) {
        if (bytes == 8) {
            into[at] = hash.high();
            into[at + 1] = 0;
        } else if (uuid != null) {
            into[at] = (long) BIG_ENDIAN_LONGS.get(uuid, 0);
            into[at + 1] = (long) BIG_ENDIAN_LONGS.get(uuid, 8);
        } else {
            into[at] = hash.high();
            into[at + 1] = hash.low();
        }
    }

    /** The bytes of an id given by {@link #id}: 16 bytes, or the decimal digits of a 64-bit fingerprint. */
    byte[] field(long high, long low) {
        if (bytes == 8) {
            return Long.toString(high).getBytes(StandardCharsets.US_ASCII);
        }
        byte[] out = new byte[16];
        field(high, low, out);
        return out;
    }

    /** Writes {@link #field(long, long)} into {@code into} from index 0 and returns its length (at most 20). */
    int field(long high, long low, byte[] into) {
        if (bytes == 8) {
            String digits = Long.toString(high);
            for (int k = 0; k < digits.length(); k++) {
                into[k] = (byte) digits.charAt(k);
            }
            return digits.length();
        }
        BIG_ENDIAN_LONGS.set(into, 0, high);
        BIG_ENDIAN_LONGS.set(into, 8, low);
        return 16;
    }

    /** The bytes an owner is stored as. */
    static byte[] owner(long owner) {
        if (owner == 0) {
            return NO_OWNER;
        }
        byte[] out = new byte[ownerLength(owner)];
        owner(owner, out);
        return out;
    }

    /** Writes {@link #owner(long)} into {@code into} from index 0 and returns its length (at most 8). */
    static int owner(long owner, byte[] into) {
        int length = ownerLength(owner);
        for (int i = length - 1; i >= 0; i--) {
            into[i] = (byte) owner;
            owner >>>= 8;
        }
        return length;
    }

    /** The bytes of an owner without its leading zero bytes: 0 for none. */
    private static int ownerLength(long owner) {
        return (71 - Long.numberOfLeadingZeros(owner)) / 8;
    }

    /** Each ASCII character's hex digit value, -1 for a character that is not one. */
    private static final byte[] HEX = hexDigits();

    private static byte[] hexDigits() {
        byte[] out = new byte[128];
        Arrays.fill(out, (byte) -1);
        for (int c = '0'; c <= '9'; c++) {
            out[c] = (byte) (c - '0');
        }
        for (int c = 'a'; c <= 'f'; c++) {
            out[c] = (byte) (c - 'a' + 10);
            out[c - 'a' + 'A'] = (byte) (c - 'a' + 10);
        }
        return out;
    }

    /** The 16 bytes of a UUID in its canonical text form (8-4-4-4-12 hex digits), or null if the text is not one. */
    private static byte[] uuidBytes(byte[] text) {
        if (text[8] != '-' || text[13] != '-' || text[18] != '-' || text[23] != '-') {
            return null;
        }
        long a = hex(text, 0, 8);
        long b = hex(text, 9, 4);
        long c = hex(text, 14, 4);
        long d = hex(text, 19, 4);
        long e = hex(text, 24, 12);
        if ((a | b | c | d | e) < 0) {
            return null;
        }
        byte[] out = new byte[16];
        BIG_ENDIAN_LONGS.set(out, 0, a << 32 | b << 16 | c);
        BIG_ENDIAN_LONGS.set(out, 8, d << 48 | e);
        return out;
    }

    /** The value of {@code n} hex digits from {@code at}, or a negative number if one is not a hex digit. */
    private static long hex(byte[] text, int at, int n) {
        long v = 0;
        int bad = 0;
        for (int i = at; i < at + n; i++) {
            byte ch = text[i];
            int digit = HEX[ch & 0x7f] | (ch >> 7); // a byte of 128 or more reads as -1
            bad |= digit;
            v = v << 4 | (digit & 0xf);
        }
        return bad < 0 ? -1 : v;
    }
}
