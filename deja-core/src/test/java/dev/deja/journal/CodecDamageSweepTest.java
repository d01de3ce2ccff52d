package dev.deja.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.bloom.BloomFilter;
import dev.deja.bloom.WindowedBloomFilter;
import dev.deja.recent.RecentFilter;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The stores' own serialised forms, as a snapshot's payload, damaged bit by bit and cut at every length. The
 * snapshot's payload checksum catches all of this first; these check the next line of defence, for a payload
 * that passes it (rewritten by hand, or a checksum collision): every single-bit change and every truncation is
 * refused with an {@link IOException} saying what is wrong, never decoded into a filter that answers differently,
 * and never thrown as another exception.
 */
class CodecDamageSweepTest {

    @FunctionalInterface
    private interface Reader {
        Object read(InputStream in) throws IOException;
    }

    @Test
    void bloomFilterPayloadsRefuseEveryFlippedBitAndEveryCut() throws IOException {
        for (BloomFilter filter : new BloomFilter[] {
            BloomFilter.builder().bits(1024).hashes(7).capacity(50).build(),
            BloomFilter.builder().bits(2048).hashes(32).capacity(10).build()
        }) {
            for (int i = 0; i < 20; i++) {
                filter.add("key-" + i);
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            filter.writeTo(out);
            sweep(out.toByteArray(), BloomFilter::readFrom, 1);
        }
    }

    @Test
    void windowedBloomFilterPayloadsRefuseEveryFlippedBitAndEveryCut() throws IOException {
        WindowedBloomFilter filter = WindowedBloomFilter.builder()
                .capacity(20)
                .fpp(0.01)
                .generations(3)
                .window(Duration.ofMinutes(5))
                .build();
        for (int i = 0; i < 25; i++) {
            filter.add("key-" + i);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        filter.writeTo(out);
        // three filters and their headers: every third bit keeps the sweep short and still reaches every byte
        sweep(out.toByteArray(), WindowedBloomFilter::readFrom, 3);
    }

    @Test
    void recentFilterPayloadsRefuseEveryFlippedBitAndEveryCut() throws IOException {
        for (boolean owners : new boolean[] {false, true}) {
            RecentFilter filter =
                    RecentFilter.builder().buckets(32).ways(4).owners(owners).build();
            for (int i = 0; i < 24; i++) {
                filter.checkThenAdd(("key-" + i).getBytes(StandardCharsets.UTF_8), owners ? i % 3 : 0);
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            filter.writeTo(out);
            sweep(out.toByteArray(), RecentFilter::readFrom, 1);
        }
    }

    /** Every bit of every byte, or every {@code bitStep}-th bit, and every length. */
    private static void sweep(byte[] pristine, Reader reader, int bitStep) throws IOException {
        assertThat(reader.read(new ByteArrayInputStream(pristine))).isNotNull();
        for (int at = 0; at < pristine.length; at++) {
            for (int bit = 0; bit < 8; bit += bitStep) {
                byte[] damaged = pristine.clone();
                damaged[at] ^= (byte) (1 << bit);
                int flippedBit = bit;
                assertThatThrownBy(() -> reader.read(new ByteArrayInputStream(damaged)))
                        .as("bit %d of byte %d of %d", flippedBit, at, pristine.length)
                        .isInstanceOf(IOException.class)
                        .message()
                        .isNotBlank();
            }
        }
        for (int length = 0; length < pristine.length; length++) {
            byte[] cut = Arrays.copyOf(pristine, length);
            assertThatThrownBy(() -> reader.read(new ByteArrayInputStream(cut)))
                    .as("cut to %d of %d bytes", length, pristine.length)
                    .isInstanceOf(IOException.class)
                    .message()
                    .isNotBlank();
        }
    }
}
