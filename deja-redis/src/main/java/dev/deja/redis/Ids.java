package dev.deja.redis;

import dev.deja.hash.Hash128;
import java.nio.ByteBuffer;

/**
 * How a key and an owner are written into a bucket, as Tapjoy's Redis design does: a key that is a textual UUID
 * (36 characters, either case) becomes its 16 bytes; any other key its 128-bit hash ({@link Hash128}), also 16 bytes.
 * An owner becomes its big-endian bytes without leading zeros, the empty string for none (docs/FORMAT.md section 7).
 */
final class Ids {

    private static final byte[] NO_OWNER = new byte[0];

    private Ids() {}

    /** The 16 bytes a key is stored as. */
    static byte[] field(byte[] key, Hash128 hash) {
        if (key.length == 36) {
            byte[] uuid = uuidBytes(key);
            if (uuid != null) {
                return uuid;
            }
        }
        return ByteBuffer.allocate(16).putLong(hash.high()).putLong(hash.low()).array();
    }

    /** The bytes an owner is stored as. */
    static byte[] owner(long owner) {
        if (owner == 0) {
            return NO_OWNER;
        }
        int length = (71 - Long.numberOfLeadingZeros(owner)) / 8;
        byte[] out = new byte[length];
        for (int i = length - 1; i >= 0; i--) {
            out[i] = (byte) owner;
            owner >>>= 8;
        }
        return out;
    }

    /** The 16 bytes of a UUID in its canonical text form (8-4-4-4-12 hex digits), or null if the key is not one. */
    private static byte[] uuidBytes(byte[] text) {
        byte[] out = new byte[16];
        int nibble = 0;
        for (int i = 0; i < 36; i++) {
            byte c = text[i];
            if (i == 8 || i == 13 || i == 18 || i == 23) {
                if (c != '-') {
                    return null;
                }
                continue;
            }
            int v = Character.digit(c, 16);
            if (v < 0 || c > 'f') {
                return null;
            }
            out[nibble / 2] |= (byte) (nibble % 2 == 0 ? v << 4 : v);
            nibble++;
        }
        return out;
    }
}
