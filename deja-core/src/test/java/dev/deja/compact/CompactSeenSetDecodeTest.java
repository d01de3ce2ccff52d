package dev.deja.compact;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.SplittableRandom;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Every malformed input is rejected with an IllegalArgumentException that says what is wrong. */
class CompactSeenSetDecodeTest {

    private static final char[] ALPHABET =
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".toCharArray();

    private static final List<String> VALID = new ArrayList<>();

    @BeforeAll
    static void encodeSets() {
        SplittableRandom random = new SplittableRandom(21);
        VALID.add(CompactSeenSet.create(1, 0.01).encode());
        VALID.add(CompactSeenSetTest.fill(CompactSeenSet.create(1, 0.01), 1, random)
                .set()
                .encode());
        VALID.add(CompactSeenSetTest.fill(CompactSeenSet.create(10, 0.01), 10, random)
                .set()
                .encode());
        VALID.add(CompactSeenSetTest.fill(CompactSeenSet.create(100, 0.01), 100, random)
                .set()
                .encode());
        VALID.add(CompactSeenSetTest.fill(CompactSeenSet.create(200, 0.01), 200, random)
                .set()
                .encode());
        VALID.add(CompactSeenSetTest.fill(CompactSeenSet.create(30, 0.5), 30, random)
                .set()
                .encode());
    }

    @Test
    void everySingleCharacterChangeIsRejected() {
        for (String valid : VALID) {
            for (int at = 0; at < valid.length(); at++) {
                for (char c : ALPHABET) {
                    if (c != valid.charAt(at)) {
                        String changed = valid.substring(0, at) + c + valid.substring(at + 1);
                        assertRejected(changed, "");
                    }
                }
            }
        }
    }

    @Test
    void twoChangedCharactersGetPastTheChecksumOnlyAboutOnceIn256() {
        // What README promises beyond single changes: a probability, not a guarantee. A fixed seed, so the count
        // is the same on every run; the bounds are the claim, with room on both sides.
        String valid = VALID.get(3); // 100 keys, 140 characters
        SplittableRandom random = new SplittableRandom(23);
        int trials = 0;
        int accepted = 0;
        while (trials < 50_000) {
            char[] edited = valid.toCharArray();
            int i = random.nextInt(edited.length);
            int j = random.nextInt(edited.length);
            char ci = ALPHABET[random.nextInt(64)];
            char cj = ALPHABET[random.nextInt(64)];
            if (i == j || ci == edited[i] || cj == edited[j]) {
                continue;
            }
            edited[i] = ci;
            edited[j] = cj;
            trials++;
            try {
                CompactSeenSet.decode(new String(edited));
                accepted++;
            } catch (IllegalArgumentException expected) {
                // the common case
            }
        }
        assertThat(accepted).isBetween(trials / 1024, trials / 128);
    }

    @Test
    void everySingleByteChangeIsRejected() {
        for (String valid : VALID) {
            byte[] bytes = Base64.getUrlDecoder().decode(valid);
            for (int at = 0; at < bytes.length; at++) {
                for (int delta = 1; delta < 256; delta++) {
                    byte[] changed = bytes.clone();
                    changed[at] ^= (byte) delta;
                    assertRejected(base64(changed), "");
                }
            }
        }
    }

    @Test
    void everyTruncationAndExtensionIsRejected() {
        for (String valid : VALID) {
            for (int length = 1; length < valid.length(); length++) {
                assertRejected(valid.substring(0, length), "");
            }
            for (char c : ALPHABET) {
                assertRejected(valid + c, "");
                assertRejected(valid + c + c, "");
                assertRejected(valid + c + c + c + c, "");
            }
        }
    }

    @Test
    void truncationOrExtensionThatKeepsAValidChecksumIsRejectedByLength() {
        String valid = VALID.get(3);
        byte[] bytes = Base64.getUrlDecoder().decode(valid);
        byte[] shorter = java.util.Arrays.copyOf(bytes, bytes.length - 2);
        shorter[shorter.length - 1] = (byte) crc8(shorter, shorter.length - 1);
        assertRejected(base64(shorter), "truncated or extended");
        byte[] longer = java.util.Arrays.copyOf(bytes, bytes.length + 1);
        longer[longer.length - 1] = (byte) crc8(longer, longer.length - 1);
        assertRejected(base64(longer), "truncated or extended");
    }

    @Test
    void rejectsOtherVersionsByName() {
        byte[] bytes = Base64.getUrlDecoder().decode(VALID.get(2));
        bytes[0] = 2;
        bytes[bytes.length - 1] = (byte) crc8(bytes, bytes.length - 1);
        assertRejected(base64(bytes), "format version 2; this library reads version 1");
    }

    @Test
    void rejectsARankOutOfRangeEvenWithAValidChecksum() {
        // range 8, size 3: C(8, 3) = 56 ranks fit one byte; 56 and above are not sets
        byte[] bytes = {1, 0, 3, 56, 0};
        bytes[4] = (byte) crc8(bytes, 4);
        assertRejected(base64(bytes), "rank is not below C(8, 3)");
        bytes[3] = 55;
        bytes[4] = (byte) crc8(bytes, 4);
        assertThat(CompactSeenSet.decode(base64(bytes)).size()).isEqualTo(3);
    }

    @Test
    void rejectsSizesBeyondTheRangeOrTheMaximumAndMalformedSizes() {
        assertRejected(withChecksum(1, 0, 9), "holds 9 fingerprints; a range of 8 holds at most 8");
        assertRejected(
                withChecksum(1, (byte) 0xFF, 0x81, 0x40),
                "holds 8193 fingerprints; a range of " + (15L << 31) + " holds at most 1024");
        assertRejected(withChecksum(1, 0, 0x83, 0x00), "malformed size field");
        assertRejected(withChecksum(1, 0, 0x83), "malformed size field");
        assertRejected(withChecksum(1, 0, 0x80, 0x80, 0x80, 0x01), "malformed size field");
    }

    @Test
    void aCallerBoundsTheWorkOfDecodingBySize() {
        String hundred = VALID.get(3);
        assertThat(CompactSeenSet.decode(hundred, 100).size()).isEqualTo(100);
        assertRefused(
                () -> CompactSeenSet.decode(hundred, 99),
                "encoded holds 100 fingerprints; the caller accepts at most 99");
        assertThatThrownBy(() -> CompactSeenSet.decode(hundred, 1025))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxSize must be in [0, 1024] (got 1025)");

        // The costliest valid input: 1024 fingerprints over the largest range, 4,503 characters. Refused by size,
        // it costs a header's read; decoded, megabytes of big-integer products (allocations stand for the work,
        // exactly counted, where a time would flake).
        String costliest = crafted(0xFF, 1024, new SplittableRandom(24));
        assertThat(costliest).hasSize(4503);
        assertRefused(() -> CompactSeenSet.decode(costliest, 100), "encoded holds 1024 fingerprints");
        long refused = dev.deja.seen.Allocations.of(() -> CompactSeenSet.decode(costliest, 100));
        long decoded = dev.deja.seen.Allocations.of(() -> CompactSeenSet.decode(costliest));
        assertThat(CompactSeenSet.decode(costliest).size()).isEqualTo(1024);
        assertThat(refused).isLessThan(256L << 10);
        assertThat(decoded).isGreaterThan(100 * refused);
    }

    /** A valid encoding of {@code size} fingerprints with a random rank, as a client may craft one. */
    private static String crafted(int rangeCode, int size, SplittableRandom random) {
        long range = (8L + (rangeCode & 7)) << (rangeCode >>> 3);
        BigInteger total = Binomial.coefficient(range, size);
        int rankBytes = (total.subtract(BigInteger.ONE).bitLength() + 7) / 8;
        byte[] bytes = new byte[5 + rankBytes];
        bytes[0] = 1;
        bytes[1] = (byte) rangeCode;
        bytes[2] = (byte) ((size & 0x7F) | 0x80); // size >= 128: two varint bytes
        bytes[3] = (byte) (size >>> 7);
        BigInteger rank;
        do {
            byte[] randomBits = new byte[rankBytes];
            random.nextBytes(randomBits);
            rank = new BigInteger(1, randomBits);
        } while (rank.compareTo(total) >= 0);
        byte[] magnitude = rank.toByteArray();
        int significant = Math.min(magnitude.length, rankBytes);
        System.arraycopy(magnitude, magnitude.length - significant, bytes, 4 + rankBytes - significant, significant);
        bytes[bytes.length - 1] = (byte) crc8(bytes, bytes.length - 1);
        return base64(bytes);
    }

    @Test
    void rejectsGarbageEmptyAndNullWithClearMessages() {
        assertRejected(null, "encoded must not be null");
        assertRejected("", "encoded must not be empty");
        assertRejected("not base64!", "not URL-safe base64");
        assertRejected("ab+/", "not URL-safe base64");
        assertRejected("A", "not URL-safe base64");
        assertRejected(VALID.get(1) + "=", "unpadded");
        assertRejected("AQ", "truncated");
        SplittableRandom random = new SplittableRandom(22);
        for (int trial = 0; trial < 20_000; trial++) {
            byte[] garbage = new byte[random.nextInt(1, 40)];
            random.nextBytes(garbage);
            String input = base64(garbage);
            try {
                CompactSeenSet decoded = CompactSeenSet.decode(input);
                assertThat(decoded.encode()).isEqualTo(input); // the rare valid one is a real set
            } catch (IllegalArgumentException expected) {
                assertThat(expected).hasMessageStartingWith("encoded ");
            }
        }
    }

    @Test
    void checksumOracleHasTheStandardCheckValue() {
        byte[] check = "123456789".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        assertThat(crc8(check, check.length)).isEqualTo(0xF4);
    }

    private static void assertRejected(String input, String message) {
        assertThatThrownBy(() -> CompactSeenSet.decode(input))
                .as("decode(%s)", input)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("encoded ")
                .hasMessageContaining(message);
    }

    private static void assertRefused(ThrowingCallable decode, String message) {
        assertThatThrownBy(decode)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("encoded ")
                .hasMessageContaining(message);
    }

    private static String withChecksum(int... header) {
        byte[] bytes = new byte[header.length + 1];
        for (int i = 0; i < header.length; i++) {
            bytes[i] = (byte) header[i];
        }
        bytes[header.length] = (byte) crc8(bytes, header.length);
        return base64(bytes);
    }

    private static String base64(byte[] bytes) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /** CRC-8/SMBUS, written out from its definition in docs/FORMAT.md, independently of the main code. */
    static int crc8(byte[] data, int length) {
        int crc = 0;
        for (int i = 0; i < length; i++) {
            crc ^= data[i] & 0xFF;
            for (int bit = 0; bit < 8; bit++) {
                crc = ((crc & 0x80) != 0 ? (crc << 1) ^ 0x07 : crc << 1) & 0xFF;
            }
        }
        return crc;
    }
}
