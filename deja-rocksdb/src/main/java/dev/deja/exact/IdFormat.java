package dev.deja.exact;

import dev.deja.checks.Require;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/**
 * How a textual id is turned into the bytes the exact store keeps: as given, or in its binary form.
 *
 * <p>A UUID written as text takes 36 bytes; kept as its 16 binary bytes it costs less than half on disk (Tapjoy's
 * Redis design makes the same point). The layout is in docs/FORMAT.md. The conversion is strict, so two spellings
 * of one id never become two keys by accident except for letter case, which both binary formats ignore.
 */
public enum IdFormat {
    /** Keys are stored byte for byte. */
    RAW {
        @Override
        byte[] encode(byte[] key) {
            return Require.key(key);
        }
    },
    /**
     * Keys are UUIDs in canonical 8-4-4-4-12 hex text, stored as their 16 bytes with bytes 6 and 8 (those holding
     * the version and variant bits) moved to the front: {@code b6 b8 b0 b1 b2 b3 b4 b5 b7 b9 ... b15}.
     *
     * <p>Why: in a random (version 4) UUID those two bytes carry 10 bits of information instead of 16, and in a
     * sorted table file each key is stored as the suffix it does not share with its predecessor. Leading with the
     * low-information bytes makes neighbours share about 6 more bits, which saves about 0.75 bytes per key on
     * disk; the order of keys does not matter to a seen-set.
     */
    UUID {
        private static final int[] ORDER = {6, 8, 0, 1, 2, 3, 4, 5, 7, 9, 10, 11, 12, 13, 14, 15};

        @Override
        byte[] encode(byte[] key) {
            Require.key(key);
            if (key.length != 36 || key[8] != '-' || key[13] != '-' || key[18] != '-' || key[23] != '-') {
                throw invalid("a UUID in 8-4-4-4-12 hex form", key);
            }
            // Every other place must hold a hex digit: skipping any dash met on the way would read a dash in a
            // digit's place as a shift, making such text another UUID's key.
            byte[] bytes = new byte[16];
            int o = 0;
            for (int i = 0; i < 36; i += 2) {
                if (i == 8 || i == 13 || i == 18 || i == 23) {
                    i++;
                }
                bytes[o++] = (byte) (digit(key, i) << 4 | digit(key, i + 1));
            }
            byte[] out = new byte[16];
            for (int j = 0; j < 16; j++) {
                out[j] = bytes[ORDER[j]];
            }
            return out;
        }
    },
    /** Keys are hex text of even length, stored as the bytes they spell. */
    HEX {
        @Override
        byte[] encode(byte[] key) {
            Require.key(key);
            if ((key.length & 1) != 0) {
                throw invalid("hex text of even length", key);
            }
            byte[] out = new byte[key.length / 2];
            for (int i = 0; i < out.length; i++) {
                out[i] = (byte) (digit(key, 2 * i) << 4 | digit(key, 2 * i + 1));
            }
            return out;
        }
    };

    /** The bytes stored for this key; throws IllegalArgumentException naming the expected form when malformed. */
    abstract byte[] encode(byte[] key);

    private static int digit(byte[] key, int i) {
        int c = key[i];
        if (!HexFormat.isHexDigit(c)) {
            throw new IllegalArgumentException(
                    "key must be hex text; byte " + i + " is not a hex digit (got \"" + printable(key) + "\")");
        }
        return HexFormat.fromHexDigit(c);
    }

    private static IllegalArgumentException invalid(String form, byte[] key) {
        return new IllegalArgumentException(
                "key must be " + form + " (got \"" + printable(key) + "\", " + key.length + " bytes)");
    }

    private static String printable(byte[] key) {
        String s = new String(key, 0, Math.min(key.length, 64), StandardCharsets.UTF_8);
        return key.length > 64 ? s + "..." : s;
    }
}
