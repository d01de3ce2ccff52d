package dev.deja.hash;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * XXH3-128 (seed 0, default secret) of keys of 9 to 128 bytes: the two short-input paths of the XXH3 specification
 * ({@code XXH3_len_9to16_128b} and {@code XXH3_len_17to128_128b}), written out so that they compile into the caller
 * and allocate nothing.
 *
 * <p>Why not only hash4j: its one entry point for every length, {@code hashBytesTo128Bits}, is far more bytecode than
 * HotSpot inlines, so each hash would be a full call returning a heap-allocated {@code HashValue128}, on every single
 * call of every store. Ids are nearly always in this range (a binary UUID is 16 bytes, its text form 36, a ULID 26).
 * Every other length still goes to hash4j, and the tests hold these paths to hash4j's answers for every length from 1
 * to 300 bytes.
 */
final class Xxh3Short {

    /** The XXH3 primes. */
    private static final long PRIME64_1 = 0x9E3779B185EBCA87L;

    private static final long PRIME64_2 = 0xC2B2AE3D27D4EB4FL;
    private static final long PRIME64_4 = 0x85EBCA77C2B2AE63L;
    private static final long PRIME32_2 = 0x85EBCA77L;

    /** The first 128 bytes of XXH3's default 192-byte secret ({@code XXH3_kSecret}), as little-endian words. */
    private static final long[] SECRET = {
        0xbe4ba423396cfeb8L, 0x1cad21f72c81017cL, 0xdb979083e96dd4deL, 0x1f67b3b7a4a44072L,
        0x78e5c0cc4ee679cbL, 0x2172ffcc7dd05a82L, 0x8e2443f7744608b8L, 0x4c263a81e69035e0L,
        0xcb00c391bb52283cL, 0xa32e531b8b65d088L, 0x4ef90da297486471L, 0xd8acdea946ef1938L,
        0x3f349ce33f76faa8L, 0x1d4f0bc7c7bbdcf9L, 0x3159b4cd4be0518aL, 0x647378d9c97e9fc8L,
    };

    private static final long BITFLIP_LOW = SECRET[4] ^ SECRET[5];
    private static final long BITFLIP_HIGH = SECRET[6] ^ SECRET[7];

    private static final VarHandle LE_LONG =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private Xxh3Short() {}

    /**
     * Makes the caller's value of a hash's two halves, so that this class returns the hash without an allocation of
     * its own and without knowing the type that holds it.
     *
     * @param <T> the type of the hash's value
     */
    @FunctionalInterface
    interface Halves<T> {
        /** The value of the hash whose most significant half is {@code high} and least significant {@code low}. */
        T of(long high, long low);
    }

    /** Whether this class hashes keys of this length. */
    static boolean covers(int length) {
        return length > 8 && length <= 128;
    }

    /** The hash of {@code length} bytes, 9 to 128, of {@code b} from {@code off}. */
    static <T> T hash(byte[] b, int off, int length, Halves<T> value) {
        return length <= 16 ? hash9To16(b, off, length, value) : hash17To128(b, off, length, value);
    }

    /** The hash of {@code length} bytes, 9 to 16, of {@code b} from {@code off}. */
    static <T> T hash9To16(byte[] b, int off, int length, Halves<T> value) {
        long inputHigh = word(b, off + length - 8);
        long m = word(b, off) ^ inputHigh ^ BITFLIP_LOW;
        inputHigh ^= BITFLIP_HIGH;
        long mLow = m * PRIME64_1 + ((length - 1L) << 54);
        long mHigh = Math.unsignedMultiplyHigh(m, PRIME64_1) + inputHigh + (inputHigh & 0xFFFFFFFFL) * (PRIME32_2 - 1);
        mLow ^= Long.reverseBytes(mHigh);
        long high = Math.unsignedMultiplyHigh(mLow, PRIME64_2) + mHigh * PRIME64_2;
        return value.of(avalanche(high), avalanche(mLow * PRIME64_2));
    }

    private static <T> T hash17To128(byte[] b, int off, int length, Halves<T> value) {
        long accLow = length * PRIME64_1;
        long accHigh = 0;
        // Pairs of 16-byte lanes from both ends, innermost first; each pair mixes into both accumulators.
        for (int i = (length - 1) >>> 5; i >= 0; i--) {
            int front = off + 16 * i;
            int back = off + length - 16 * (i + 1);
            long f0 = word(b, front);
            long f1 = word(b, front + 8);
            long b0 = word(b, back);
            long b1 = word(b, back + 8);
            accLow = (accLow + fold(f0 ^ SECRET[4 * i], f1 ^ SECRET[4 * i + 1])) ^ (b0 + b1);
            accHigh = (accHigh + fold(b0 ^ SECRET[4 * i + 2], b1 ^ SECRET[4 * i + 3])) ^ (f0 + f1);
        }
        long low = avalanche(accLow + accHigh);
        long high = -avalanche(accLow * PRIME64_1 + accHigh * PRIME64_4 + length * PRIME64_2);
        return value.of(high, low);
    }

    /** The 128-bit product folded to 64 bits by XOR of its halves. */
    private static long fold(long a, long b) {
        return a * b ^ Math.unsignedMultiplyHigh(a, b);
    }

    /** XXH3's final mix. */
    private static long avalanche(long h) {
        h ^= h >>> 37;
        h *= 0x165667919E3779F9L;
        return h ^ (h >>> 32);
    }

    private static long word(byte[] b, int at) {
        return (long) LE_LONG.get(b, at);
    }
}
