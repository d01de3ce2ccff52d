package dev.deja.compact;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnels;
import dev.deja.hash.Hash128;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class CompactSeenSetTest {

    /** A set of {@code size} distinct fingerprints from random 16-byte keys, with the keys that were added. */
    record Filled(CompactSeenSet set, List<byte[]> keys) {}

    static Filled fill(CompactSeenSet empty, int size, SplittableRandom random) {
        CompactSeenSet set = empty;
        List<byte[]> keys = new ArrayList<>();
        while (set.size() < size) {
            byte[] key = randomKey(random);
            set = set.with(key);
            keys.add(key);
        }
        return new Filled(set, keys);
    }

    static byte[] randomKey(SplittableRandom random) {
        byte[] key = new byte[16];
        random.nextBytes(key);
        return key;
    }

    @Test
    void roundTripsSetsOfEverySizeAndDensity() {
        SplittableRandom random = new SplittableRandom(1);
        int[][] capacityAndSize = {{1, 0}, {1, 1}, {10, 3}, {10, 10}, {100, 100}, {100, 180}, {1000, 1000}};
        double[] fpps = {0.5, 0.01, 1e-6};
        for (double fpp : fpps) {
            for (int[] c : capacityAndSize) {
                Filled filled = fill(CompactSeenSet.create(c[0], fpp), c[1], random);
                String encoded = filled.set().encode();
                CompactSeenSet decoded = CompactSeenSet.decode(encoded);
                assertThat(decoded).isEqualTo(filled.set()).hasSameHashCodeAs(filled.set());
                assertThat(decoded.encode()).isEqualTo(encoded);
                assertThat(decoded.range()).isEqualTo(filled.set().range());
                for (byte[] key : filled.keys()) {
                    assertThat(decoded.contains(key)).isTrue();
                }
            }
        }
    }

    @Test
    void fullSetOfTheWholeRangeRoundTrips() {
        CompactSeenSet set =
                fill(CompactSeenSet.create(1, 0.5), 8, new SplittableRandom(2)).set();
        assertThat(set.range()).isEqualTo(8);
        assertThat(set.expectedFpp()).isEqualTo(1.0);
        assertThat(CompactSeenSet.decode(set.encode())).isEqualTo(set);
        assertThat(set.encode()).hasSize(6); // version, range code, size, no rank byte: C(8, 8) = 1, checksum
    }

    @Test
    void addedKeysAreAlwaysFoundAndTheOriginalIsUnchanged() {
        CompactSeenSet empty = CompactSeenSet.create(100, 0.01);
        CompactSeenSet one = empty.with("https://example.com/a");
        assertThat(empty.contains("https://example.com/a")).isFalse();
        assertThat(empty.size()).isZero();
        assertThat(one.contains("https://example.com/a")).isTrue();
        assertThat(one.contains("https://example.com/a".getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                .isTrue();
        assertThat(one.with("https://example.com/a")).isSameAs(one);

        SplittableRandom random = new SplittableRandom(3);
        CompactSeenSet set = empty;
        List<byte[]> added = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            byte[] key = randomKey(random);
            set = set.with(key);
            added.add(key);
            if (i % 97 == 0) {
                set = CompactSeenSet.decode(set.encode());
            }
        }
        for (byte[] key : added) {
            assertThat(set.contains(key)).isTrue();
        }
    }

    @Test
    void aKeyWhoseFingerprintIsPresentIsReportedSeenAndCollapses() {
        CompactSeenSet set = CompactSeenSet.create(1, 0.5); // range 8: collisions are easy to find
        SplittableRandom random = new SplittableRandom(4);
        byte[] first = randomKey(random);
        set = set.with(first);
        byte[] twin;
        do {
            twin = randomKey(random);
        } while (Hash128.reduce(Hash128.of(twin).high(), 8)
                != Hash128.reduce(Hash128.of(first).high(), 8));
        assertThat(set.contains(twin)).isTrue();
        assertThat(set.with(twin)).isSameAs(set);
        assertThat(set.size()).isEqualTo(1);
    }

    @Test
    void fingerprintIsTheHighHalfOfTheHashReducedOntoTheRange() {
        CompactSeenSet set = CompactSeenSet.create(100, 0.01);
        byte[] key = "k".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        long fingerprint = Hash128.reduce(Hash128.of(key).high(), set.range());
        assertThat(CompactSeenSet.decode(set.with(key).encode()))
                .isEqualTo(new CompactSeenSet(set.range(), new long[] {fingerprint}));
    }

    @Test
    void rangeIsTheSmallestEncodableValueAtLeastCapacityOverFpp() {
        assertThat(CompactSeenSet.create(100, 0.01).range()).isEqualTo(10 << 10);
        assertThat(CompactSeenSet.create(1, 0.01).range()).isEqualTo(13 << 3);
        assertThat(CompactSeenSet.create(1, 0.5).range()).isEqualTo(8);
        assertThat(CompactSeenSet.create(8, 0.5).range()).isEqualTo(16);
        assertThat(CompactSeenSet.create(9, 0.5).range()).isEqualTo(18);
        assertThat(CompactSeenSet.create(1024, 3.2e-8).range()).isEqualTo(15L << 31);
        for (int capacity = 1; capacity <= 300; capacity++) {
            for (double fpp : new double[] {0.3, 0.01, 0.0007}) {
                long range = CompactSeenSet.create(capacity, fpp).range();
                long needed = (long) Math.ceil(capacity / fpp);
                assertThat(range).isGreaterThanOrEqualTo(needed);
                assertThat((double) capacity / range).isLessThanOrEqualTo(fpp);
                // consecutive codes differ by at most a ninth of the larger, (8 + m) << e against (9 + m) << e
                assertThat((double) range).isLessThanOrEqualTo(Math.max(8, needed * 9 / 8.0));
            }
        }
    }

    @Test
    void measuredFalsePositiveRateMatchesSizeOverRangeAndStaysBelowFpp() {
        SplittableRandom random = new SplittableRandom(5);
        CompactSeenSet set = fill(CompactSeenSet.create(100, 0.01), 100, random).set();
        set = CompactSeenSet.decode(set.encode());
        double expected = set.expectedFpp();
        assertThat(expected).isEqualTo(100.0 / 10_240).isLessThanOrEqualTo(0.01);

        int queries = 4_000_000;
        int falsePositives = 0;
        for (int i = 0; i < queries; i++) {
            if (set.contains(randomKey(random))) {
                falsePositives++;
            }
        }
        double measured = (double) falsePositives / queries;
        // binomial standard deviation ~4.9e-5; 6 of them around the exact prediction
        double sigma = Math.sqrt(expected * (1 - expected) / queries);
        assertThat(measured).isCloseTo(expected, org.assertj.core.data.Offset.offset(6 * sigma));
        // the target 1% lies 4.7 sigma above the prediction
        assertThat(measured).isLessThan(0.01);
    }

    @Test
    void expectedFppGrowsPastCapacity() {
        SplittableRandom random = new SplittableRandom(6);
        CompactSeenSet set = fill(CompactSeenSet.create(10, 0.01), 10, random).set();
        assertThat(set.expectedFpp()).isLessThanOrEqualTo(0.01);
        CompactSeenSet over = fill(set, 30, random).set();
        assertThat(over.expectedFpp()).isEqualTo(30.0 / over.range()).isGreaterThan(0.02);
    }

    @Test
    void everySetOfOneHundredKeysAtOnePercentTakesExactly140Characters() {
        assertThat(expectedLength(10_240, 100)).isEqualTo(140);
        SplittableRandom random = new SplittableRandom(7);
        for (int trial = 0; trial < 1_000; trial++) {
            CompactSeenSet set = CompactSeenSet.create(100, 0.01);
            for (int i = 0; i < 100; i++) {
                set = set.with(randomKey(random));
            }
            // collisions leave 99 or fewer fingerprints in about 4 sets in 10: shorter still
            String encoded = set.encode();
            assertThat(encoded.length()).isLessThanOrEqualTo(140).isEqualTo(expectedLength(set.range(), set.size()));
        }
        for (int trial = 0; trial < 200; trial++) {
            assertThat(fill(CompactSeenSet.create(100, 0.01), 100, random).set().encode())
                    .hasSize(140);
        }
        for (int size = 0; size <= 100; size++) {
            assertThat(expectedLength(10_240, size)).isLessThanOrEqualTo(140);
        }
    }

    @Test
    void smallSetsStaySmallAndBeatGuava() throws IOException {
        // capacity n at 1% holding n keys: characters of this encoding, and of Guava's writeTo in unpadded base64
        int[] expected = {7, 8, 10, 11, 12, 14, 15, 16, 18, 19};
        SplittableRandom random = new SplittableRandom(8);
        for (int n = 1; n <= 10; n++) {
            CompactSeenSet set = fill(CompactSeenSet.create(n, 0.01), n, random).set();
            assertThat(set.encode()).hasSize(expected[n - 1]).hasSize(expectedLength(set.range(), n));
            assertThat(guavaBase64Length(n, 0.01)).isEqualTo(GUAVA_SMALL[n - 1]).isGreaterThan(expected[n - 1]);
        }
        assertThat(guavaBase64Length(100, 0.01)).isEqualTo(168);
    }

    @Test
    void aCookieSizedForOneHundredGrowsFromSixCharacters() {
        int[] expected = {6, 8, 11, 12, 15, 16, 18, 20, 22, 23, 24};
        SplittableRandom random = new SplittableRandom(10);
        for (int n = 0; n <= 10; n++) {
            assertThat(fill(CompactSeenSet.create(100, 0.01), n, random).set().encode())
                    .hasSize(expected[n]);
        }
    }

    /** Guava 33.8 BloomFilter.create(byteArrayFunnel(), n, 0.01).writeTo: 14 bytes up to n = 6, then 22. */
    private static final int[] GUAVA_SMALL = {19, 19, 19, 19, 19, 19, 30, 30, 30, 30};

    @Test
    void rejectsBadArgumentsNamingThem() {
        assertThatThrownBy(() -> CompactSeenSet.create(0, 0.01))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("capacity")
                .hasMessageContaining("[1, 1024]");
        assertThatThrownBy(() -> CompactSeenSet.create(1025, 0.01))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("capacity");
        for (double fpp : new double[] {0, 1, -0.1, Double.NaN, 2}) {
            assertThatThrownBy(() -> CompactSeenSet.create(10, fpp))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("fpp")
                    .hasMessageContaining("(0, 1)");
        }
        assertThatThrownBy(() -> CompactSeenSet.create(1024, 1e-8))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("capacity / fpp must be at most 32212254720");
        CompactSeenSet set = CompactSeenSet.create(10, 0.01);
        assertThatThrownBy(() -> set.contains((String) null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("key");
        assertThatThrownBy(() -> set.with(new byte[0]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("key");
    }

    @Test
    void refusesToGrowPastMaxSize() {
        SplittableRandom random = new SplittableRandom(9);
        CompactSeenSet full = fill(
                        CompactSeenSet.create(CompactSeenSet.MAX_SIZE, 0.01), CompactSeenSet.MAX_SIZE, random)
                .set();
        byte[] key;
        do {
            key = randomKey(random);
        } while (full.contains(key));
        byte[] fresh = key;
        assertThatThrownBy(() -> full.with(fresh))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("at most " + CompactSeenSet.MAX_SIZE);
        assertThat(full.size()).isEqualTo(CompactSeenSet.MAX_SIZE);
    }

    @Test
    void encodesTheDocumentedExample() {
        CompactSeenSet set = CompactSeenSet.create(3, 0.01).with("a").with("b").with("c");
        assertThat(set.range()).isEqualTo(320);
        assertThat(set.encode()).isEqualTo(FORMAT_EXAMPLE);
        assertThat(CompactSeenSet.decode(FORMAT_EXAMPLE))
                .isEqualTo(set)
                .isEqualTo(new CompactSeenSet(320, new long[] {23, 93, 211}));
        // rank C(23, 1) + C(93, 2) + C(211, 3), written in the 3 bytes that hold every rank below C(320, 3)
        assertThat(23 + 93 * 92 / 2 + 211 * 210 * 209 / 6).isEqualTo(0x179DF6);
        assertThat(set).hasToString("CompactSeenSet{size=3, range=320, expectedFpp=0.009375}");
    }

    /** The example of docs/FORMAT.md section 4: bytes 01 2a 03 17 9d f6 da. */
    private static final String FORMAT_EXAMPLE = "ASoDF5322g";

    /** docs/FORMAT.md section 4: 3 fixed bytes + size varint + ceil(bitLength(C(range, size) - 1) / 8), in base64. */
    static int expectedLength(long range, int size) {
        int varint = size < 128 ? 1 : 2;
        int rank = (BinomialTest.naive(range, size).subtract(BigInteger.ONE).bitLength() + 7) / 8;
        int bytes = 3 + varint + rank;
        return (int) Math.ceil(bytes * 8 / 6.0);
    }

    private static int guavaBase64Length(int n, double fpp) throws IOException {
        BloomFilter<byte[]> filter = BloomFilter.create(Funnels.byteArrayFunnel(), n, fpp);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        filter.writeTo(out);
        return Base64.getUrlEncoder()
                .withoutPadding()
                .encodeToString(out.toByteArray())
                .length();
    }
}
