package dev.deja.compact;

import dev.deja.checks.Require;
import java.math.BigInteger;
import java.util.Base64;

/**
 * Version 1 of the compact seen-set encoding ({@code docs/FORMAT.md} section 4): its layout, limits and checks.
 *
 * <p>Layout: version byte, range code byte, size as a LEB128 varint, the subset rank big-endian in exactly
 * ceil(bitLength(C(range, size) - 1) / 8) bytes, CRC-8; then unpadded URL-safe base64. The length is fixed by
 * the header, so truncated or extended input is always rejected; the CRC rejects every change of one byte or one
 * base64 character.
 *
 * <p>The range is stored as one byte (a 3-bit mantissa and 5-bit exponent, (8 + m) * 2^e) rather than a
 * two-byte varint: with the size's byte that is what lets 100 keys at 1% fit 140 characters for every set.
 * Rounding the range up to the next code costs at most log2(9/8) = 0.17 bits per key and only lowers the
 * false-positive probability.
 */
final class CompactFormat {

    /** The format version this class writes and reads. */
    static final int VERSION = 1;

    /** The most fingerprints an encoding holds (and never more than its range). */
    static final int MAX_SIZE = 1024;

    /** The largest fingerprint range a code can express: 15 * 2^31. */
    static final long MAX_RANGE = 15L << 31;

    /** Version, range code and checksum bytes; the size varint and the rank come on top. */
    private static final int FIXED_BYTES = 3;

    private static final Base64.Encoder BASE64 = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder BASE64_DECODER = Base64.getUrlDecoder();

    private CompactFormat() {}

    /**
     * Makes the caller's value of what an encoding holds, so that this class decodes without knowing the type of the
     * set.
     *
     * @param <T> the type of the decoded set
     */
    @FunctionalInterface
    interface Content<T> {
        /** The set of these sorted distinct fingerprints drawn from {@code range}. */
        T of(long range, long[] fingerprints);
    }

    /** The smallest range a code expresses that is at least {@code min}; min in [1, MAX_RANGE]. */
    static long rangeAtLeast(long min) {
        for (int code = 0; ; code++) {
            if (range(code) >= min) {
                return range(code);
            }
        }
    }

    /** Encodes sorted distinct fingerprints drawn from a range {@link #rangeAtLeast} returned. */
    static String encode(long range, long[] fingerprints) {
        int size = fingerprints.length;
        BigInteger total = Binomial.coefficient(range, size);
        int rankBytes = rankBytes(total);
        byte[] out = new byte[FIXED_BYTES + varintLength(size) + rankBytes];
        int at = 0;
        out[at++] = VERSION;
        out[at++] = (byte) rangeCode(range);
        for (int rest = size; ; rest >>>= 7) {
            if (rest < 0x80) {
                out[at++] = (byte) rest;
                break;
            }
            out[at++] = (byte) ((rest & 0x7F) | 0x80);
        }
        byte[] rank = SubsetRank.rank(fingerprints).toByteArray();
        // toByteArray is minimal two's complement: drop its sign byte, or left-pad with zeros to rankBytes
        int significant = Math.min(rank.length, rankBytes);
        System.arraycopy(rank, rank.length - significant, out, at + rankBytes - significant, significant);
        at += rankBytes;
        out[at] = (byte) crc8(out, at);
        return BASE64.encodeToString(out);
    }

    /**
     * Decodes an encoding into its range and sorted fingerprints, handed to {@code content}, or says precisely why it
     * cannot; a set of more than {@code maxSize} fingerprints is refused once its header is read, before the costly
     * unranking.
     */
    static <T> T decode(String encoded, int maxSize, Content<T> content) {
        if (Require.nonNull("encoded", encoded).isEmpty()) {
            throw new IllegalArgumentException("encoded must not be empty");
        }
        byte[] in;
        try {
            in = BASE64_DECODER.decode(encoded);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("encoded is not URL-safe base64: " + e.getMessage(), e);
        }
        if (!BASE64.encodeToString(in).equals(encoded)) {
            throw new IllegalArgumentException(
                    "encoded must be unpadded URL-safe base64 whose unused trailing bits are zero");
        }
        if (in.length < FIXED_BYTES + 1) {
            throw new IllegalArgumentException("encoded is truncated: " + in.length
                    + " bytes, a compact seen-set takes at least " + (FIXED_BYTES + 1));
        }
        int version = in[0] & 0xFF;
        if (version != VERSION) {
            throw new IllegalArgumentException(
                    "encoded has format version " + version + "; this library reads version " + VERSION);
        }
        int end = in.length - 1;
        if ((in[end] & 0xFF) != crc8(in, end)) {
            throw new IllegalArgumentException("encoded is corrupted or truncated: its checksum does not match");
        }
        long range = range(in[1] & 0xFF);
        int at = 2;
        long size = 0;
        for (int shift = 0; ; shift += 7) {
            if (at == end || shift > 14) {
                throw new IllegalArgumentException("encoded has a malformed size field");
            }
            int b = in[at++] & 0xFF;
            size |= (long) (b & 0x7F) << shift;
            if (b < 0x80) {
                if (b == 0 && shift > 0) {
                    throw new IllegalArgumentException("encoded has a malformed size field (not minimal)");
                }
                break;
            }
        }
        long mostInRange = Math.min(range, MAX_SIZE);
        if (size > mostInRange) {
            throw new IllegalArgumentException(
                    "encoded holds " + size + " fingerprints; a range of " + range + " holds at most " + mostInRange);
        }
        if (size > maxSize) {
            throw new IllegalArgumentException(
                    "encoded holds " + size + " fingerprints; the caller accepts at most " + maxSize);
        }
        BigInteger total = Binomial.coefficient(range, (int) size);
        int rankBytes = rankBytes(total);
        if (end - at != rankBytes) {
            throw new IllegalArgumentException("encoded is truncated or extended: " + size
                    + " fingerprints in a range of " + range + " take " + (at + rankBytes + 1) + " bytes, got "
                    + in.length);
        }
        BigInteger rank = new BigInteger(1, in, at, rankBytes);
        if (rank.compareTo(total) >= 0) {
            throw new IllegalArgumentException(
                    "encoded is corrupted: its rank is not below C(" + range + ", " + size + ")");
        }
        return content.of(range, SubsetRank.unrank(rank, (int) size, range));
    }

    /** The range a code stands for: (8 + low 3 bits) shifted left by the high 5 bits. */
    private static long range(int code) {
        return (8L + (code & 7)) << (code >>> 3);
    }

    private static int rangeCode(long range) {
        int exponent = Math.max(0, 60 - Long.numberOfLeadingZeros(range));
        return exponent << 3 | (int) (range >>> exponent) - 8;
    }

    /** Bytes that hold every rank below total: 0 when total is 1 (the empty and the full set). */
    private static int rankBytes(BigInteger total) {
        return (total.subtract(BigInteger.ONE).bitLength() + 7) / 8;
    }

    private static int varintLength(int value) {
        return value < 0x80 ? 1 : value < 0x4000 ? 2 : 3;
    }

    /** CRC-8/SMBUS: polynomial 0x07, initial value 0, no reflection, no final xor. */
    private static int crc8(byte[] data, int length) {
        int crc = 0;
        for (int i = 0; i < length; i++) {
            crc ^= data[i] & 0xFF;
            for (int bit = 0; bit < 8; bit++) {
                crc = (crc & 0x80) != 0 ? (crc << 1 ^ 0x07) & 0xFF : crc << 1 & 0xFF;
            }
        }
        return crc;
    }
}
