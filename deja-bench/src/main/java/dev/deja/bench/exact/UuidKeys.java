package dev.deja.bench.exact;

import java.nio.charset.StandardCharsets;

/**
 * The load driver's keys: random-looking version-4 UUIDs, one for each (thread, index), so that every thread draws
 * new keys of its own and can name a duplicate by its index.
 */
final class UuidKeys {

    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    private UuidKeys() {}

    /** A random-looking version-4 UUID, a bijection of (thread, index), as 16 bytes. */
    static byte[] bytes(int thread, long index) {
        long hi = mix(index * 2 + ((long) thread << 48));
        long lo = mix(index * 2 + 1 + ((long) thread << 48));
        hi = (hi & ~0xF000L) | 0x4000L;
        lo = (lo & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
        byte[] out = new byte[16];
        for (int i = 0; i < 8; i++) {
            out[i] = (byte) (hi >>> (56 - 8 * i));
            out[8 + i] = (byte) (lo >>> (56 - 8 * i));
        }
        return out;
    }

    /** The same UUID as 36 bytes of canonical text, as a client would send it. */
    static byte[] text(int thread, long index) {
        byte[] b = bytes(thread, index);
        byte[] out = new byte[36];
        int o = 0;
        for (int i = 0; i < 16; i++) {
            if (i == 4 || i == 6 || i == 8 || i == 10) {
                out[o++] = '-';
            }
            out[o++] = HEX[(b[i] >>> 4) & 0xF];
            out[o++] = HEX[b[i] & 0xF];
        }
        return out;
    }

    /** Stafford's variant 13 of the SplitMix64 finalizer: a bijection on 64-bit values. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
