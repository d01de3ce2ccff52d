package dev.deja.bloom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnels;
import dev.deja.seen.ErrorEstimate;
import dev.deja.seen.Verdict;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class GuavaBloomFiltersTest {

    @Test
    void answersExactlyAsGuavaForByteArrayKeys() throws IOException {
        BloomFilter<byte[]> guava = BloomFilter.create(Funnels.byteArrayFunnel(), 20_000, 0.01);
        byte[][] added = Keys.random(21, 20_000);
        for (byte[] key : added) {
            guava.put(key);
        }
        byte[] serialised = serialise(guava);
        GuavaBloomFilter migrated =
                GuavaBloomFilters.read(new ByteArrayInputStream(serialised), GuavaBloomFilter.Funnel.BYTE_ARRAY);
        for (byte[] key : added) {
            assertThat(migrated.check(key)).isTrue();
        }
        // Fresh keys include Guava's false positives (about 1%): the answers must agree on every one of them.
        int positives = 0;
        for (byte[] key : Keys.random(22, 500_000)) {
            boolean expected = guava.mightContain(key);
            assertThat(migrated.check(key)).isEqualTo(expected);
            positives += expected ? 1 : 0;
        }
        assertThat(positives).isGreaterThan(1000);
        // Adding goes on exactly as in Guava: checkThenAdd is NEW when put returns true, and the bytes stay equal.
        for (byte[] key : Keys.random(23, 20_000)) {
            boolean changed = guava.put(key);
            assertThat(migrated.checkThenAdd(key)).isEqualTo(changed ? Verdict.NEW : Verdict.DUPLICATE);
        }
        ByteArrayOutputStream back = new ByteArrayOutputStream();
        migrated.writeTo(back);
        assertThat(back.toByteArray()).isEqualTo(serialise(guava));
        ErrorEstimate.Bloom estimate = (ErrorEstimate.Bloom) migrated.stats().estimate();
        assertThat(estimate.currentFpp()).isEqualTo(guava.expectedFpp());
        assertThat(estimate.targetFpp()).isEqualTo(Math.pow(0.5, migrated.hashes()));
        assertThat(migrated.stats().insertions()).isEqualTo(guava.approximateElementCount());
    }

    @Test
    void answersExactlyAsGuavaForUtf8StringKeys() throws IOException {
        BloomFilter<CharSequence> guava = BloomFilter.create(Funnels.stringFunnel(StandardCharsets.UTF_8), 5_000, 0.03);
        SplittableRandom random = new SplittableRandom(24);
        String[] added = new String[5_000];
        for (int i = 0; i < added.length; i++) {
            // Mix ASCII, Cyrillic and astral-plane characters so the UTF-8 encoding path matters.
            added[i] = "msg-" + random.nextLong() + "-\u0436\u0443\u0440\u043d\u0430\u043b-"
                    + Character.toString(0x1F600 + i % 50);
            guava.put(added[i]);
        }
        GuavaBloomFilter migrated =
                GuavaBloomFilters.read(new ByteArrayInputStream(serialise(guava)), GuavaBloomFilter.Funnel.UTF8_STRING);
        assertThat(migrated.funnel()).isEqualTo(GuavaBloomFilter.Funnel.UTF8_STRING);
        for (String key : added) {
            assertThat(migrated.check(key)).isTrue();
        }
        for (int i = 0; i < 200_000; i++) {
            String key = "other-" + random.nextLong() + "-\u00e9";
            assertThat(migrated.check(key)).as(key).isEqualTo(guava.mightContain(key));
        }
    }

    @Test
    void theEmptyKeyIsAnsweredAsGuavaAnswersIt() throws IOException {
        BloomFilter<CharSequence> strings = BloomFilter.create(Funnels.stringFunnel(StandardCharsets.UTF_8), 100, 0.01);
        GuavaBloomFilter before = GuavaBloomFilters.read(
                new ByteArrayInputStream(serialise(strings)), GuavaBloomFilter.Funnel.UTF8_STRING);
        assertThat(before.check("")).isEqualTo(strings.mightContain("")).isFalse();
        strings.put("");
        GuavaBloomFilter after = GuavaBloomFilters.read(
                new ByteArrayInputStream(serialise(strings)), GuavaBloomFilter.Funnel.UTF8_STRING);
        assertThat(after.check("")).isEqualTo(strings.mightContain("")).isTrue();
        assertThat(after.check(new byte[0])).isTrue();
        assertThat(after.checkThenAdd("")).isEqualTo(Verdict.DUPLICATE);

        BloomFilter<byte[]> bytes = BloomFilter.create(Funnels.byteArrayFunnel(), 100, 0.01);
        GuavaBloomFilter migrated = read(serialise(bytes));
        Verdict expected = bytes.put(new byte[0]) ? Verdict.NEW : Verdict.DUPLICATE;
        assertThat(migrated.checkThenAdd(new byte[0])).isEqualTo(expected);
        assertThat(migrated.check(new byte[0]))
                .isEqualTo(bytes.mightContain(new byte[0]))
                .isTrue();
        migrated.add(new byte[0]);
        ByteArrayOutputStream back = new ByteArrayOutputStream();
        migrated.writeTo(back);
        assertThat(back.toByteArray()).isEqualTo(serialise(bytes));
        assertThatThrownBy(() -> migrated.check((byte[]) null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("key must not be null");
    }

    @Test
    void rejectsTruncatedAndUnsupportedStreams() throws IOException {
        BloomFilter<byte[]> guava = BloomFilter.create(Funnels.byteArrayFunnel(), 1000, 0.01);
        byte[] good = serialise(guava);
        assertThatThrownBy(() -> read(Arrays.copyOf(good, good.length - 3)))
                .isInstanceOf(EOFException.class)
                .hasMessageContaining("truncated Guava bloom filter");
        byte[] oldStrategy = good.clone();
        oldStrategy[0] = 0;
        assertThatThrownBy(() -> read(oldStrategy))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("only MURMUR128_MITZ_64 (1)");
        byte[] noHashes = good.clone();
        noHashes[1] = 0;
        assertThatThrownBy(() -> read(noHashes)).hasMessageContaining("0 hash functions");
        GuavaBloomFilter migrated = read(good);
        assertThatThrownBy(() -> migrated.forget("x".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void aHeaderClaimingMoreWordsThanTheStreamHoldsEndsInTruncationNotInAnAllocation() {
        // 2^31 - 1 words: past the VM's array limit; 2^28 words: 2 GiB, the test heap.
        assertThatThrownBy(() -> read(new byte[] {1, 5, 0x7f, -1, -1, -1}))
                .isInstanceOf(EOFException.class)
                .hasMessage("truncated Guava bloom filter stream: its header announces 2147483647 data words "
                        + "(17179869176 bytes), the stream ends in word 0");
        assertThatThrownBy(() -> read(new byte[] {1, 5, 0x10, 0, 0, 0}))
                .isInstanceOf(EOFException.class)
                .hasMessageContaining("announces 268435456 data words");
        byte[] megabyte = Arrays.copyOf(new byte[] {1, 5, 0x7f, -1, -1, -1}, 6 + (1 << 20));
        assertThat(dev.deja.seen.Allocations.of(() -> read(megabyte))).isLessThan(16L << 20);
        // A whole but longer filter grows through several doublings and keeps every word.
        BloomFilter<byte[]> guava = BloomFilter.create(Funnels.byteArrayFunnel(), 100_000, 0.01);
        for (byte[] key : Keys.random(25, 100_000)) {
            guava.put(key);
        }
        assertThatCode(() -> {
                    ByteArrayOutputStream back = new ByteArrayOutputStream();
                    read(serialise(guava)).writeTo(back);
                    assertThat(back.toByteArray()).isEqualTo(serialise(guava));
                })
                .doesNotThrowAnyException();
    }

    @Test
    void impossibleHeadersAreRefusedByName() {
        assertThatThrownBy(() -> read(new byte[] {1, 5, -1, -1, -1, -1}))
                .isInstanceOf(IOException.class)
                .hasMessage("Guava bloom filter has -1 data words; must be > 0");
        assertThatThrownBy(() -> read(new byte[] {1, 5, -128, 0, 0, 0}))
                .isInstanceOf(IOException.class)
                .hasMessage("Guava bloom filter has -2147483648 data words; must be > 0");
        assertThatThrownBy(() -> read(new byte[] {1, 5, 0, 0, 0, 0}))
                .isInstanceOf(IOException.class)
                .hasMessage("Guava bloom filter has 0 data words; must be > 0");
        assertThatThrownBy(() -> read(new byte[] {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0}))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("0 hash functions");
        assertThatThrownBy(() -> read(new byte[] {1, 5, 0}))
                .isInstanceOf(EOFException.class)
                .hasMessage("truncated Guava bloom filter stream: the 6-byte header is cut short");
    }

    @Test
    void aFilterWithEveryBitSetReportsAFiniteCountOfAtLeastItsCapacity() throws IOException {
        BloomFilter<byte[]> guava = BloomFilter.create(Funnels.byteArrayFunnel(), 100, 0.01);
        for (int i = 0; i < 100_000; i++) {
            guava.put(("key-" + i).getBytes(StandardCharsets.UTF_8));
        }
        GuavaBloomFilter full = read(serialise(guava));
        assertThat(full.stats().estimate()).isEqualTo(new ErrorEstimate.Bloom(1.0, 1.0, Math.pow(0.5, full.hashes())));
        // -ln(1 - fill) is infinite with every bit set: the count was 2^63 - 1, as BloomFilter's once was
        assertThat(full.stats().insertions()).isBetween(100L, 100_000L);
    }

    @Test
    void aBatchHoldingANullKeyIsRefusedBeforeAnyKeyIsRecorded() throws IOException {
        GuavaBloomFilter filter = read(serialise(BloomFilter.create(Funnels.byteArrayFunnel(), 100, 0.01)));
        List<byte[]> keys = Arrays.asList("a".getBytes(StandardCharsets.UTF_8), null);
        // refused as a whole: "a" is not recorded before the null is met, so no refused call half happens
        assertThatThrownBy(() -> filter.checkThenAddAll(keys))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("key must not be null");
        assertThatThrownBy(() -> filter.addAll(keys))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("key must not be null");
        assertThat(filter.check("a")).isFalse();
        assertThat(filter.checkThenAddAll(Arrays.asList(new byte[0], new byte[0])))
                .containsExactly(Verdict.NEW, Verdict.DUPLICATE); // the empty key, as Guava takes it
    }

    private static GuavaBloomFilter read(byte[] bytes) throws IOException {
        return GuavaBloomFilters.read(new ByteArrayInputStream(bytes), GuavaBloomFilter.Funnel.BYTE_ARRAY);
    }

    private static <T> byte[] serialise(BloomFilter<T> guava) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        guava.writeTo(out);
        return out.toByteArray();
    }
}
