package dev.deja.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnels;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The Guava filters the benchmarks measure hold exactly the bits Guava's own {@code put} would have set. */
class GuavaFillTest {

    private static List<byte[]> keys(int n, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        return IntStream.range(0, n)
                .mapToObj(i -> {
                    byte[] key = new byte[1 + random.nextInt(40)];
                    random.nextBytes(key);
                    return key;
                })
                .toList();
    }

    @Test
    void anEmptyFilterGivenKeysEqualsOneFilledThroughPut() throws IOException {
        for (double fpp : new double[] {0.01, 0.001, 0.3}) {
            List<byte[]> keys = keys(20_000, 7);
            BloomFilter<byte[]> expected = BloomFilter.create(Funnels.byteArrayFunnel(), 50_000, fpp);
            keys.forEach(expected::put);

            BloomFilter<byte[]> filled = GuavaFill.filter(50_000, fpp, false, keys);

            assertThat(filled).isEqualTo(expected);
            assertThat(serialised(filled)).isEqualTo(serialised(expected));
        }
    }

    @Test
    void aHalfFullFilterHoldsItsKeysAndGainsNoBitWhenTheyArePutAgain() throws IOException {
        List<byte[]> keys = keys(5_000, 8);
        BloomFilter<byte[]> filled = GuavaFill.filter(100_000, 0.01, true, keys);
        BloomFilter<byte[]> empty = GuavaFill.filter(100_000, 0.01, true, List.of());
        assertThat(empty.approximateElementCount()).isLessThan(filled.approximateElementCount());

        assertThat(keys).allMatch(filled::mightContain);
        assertThat(keys).noneMatch(filled::put); // put answers whether it changed a bit
    }

    private static byte[] serialised(BloomFilter<byte[]> filter) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        filter.writeTo(out);
        return out.toByteArray();
    }
}
