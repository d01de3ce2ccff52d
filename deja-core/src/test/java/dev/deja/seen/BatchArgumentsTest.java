package dev.deja.seen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.bloom.BloomFilter;
import dev.deja.bloom.WindowedBloomFilter;
import dev.deja.hash.Hash128;
import dev.deja.recent.RecentFilter;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every store refuses a malformed batch the same way, with a message naming the argument, and leaves itself as it was:
 * a caller that passes null or arrays of the wrong length learns which, rather than meeting a NullPointerException or
 * an ArrayIndexOutOfBoundsException from inside the store after half the batch was recorded.
 */
class BatchArgumentsTest {

    static Stream<HashedSeenSet> stores() {
        return Stream.of(
                BloomFilter.builder().capacity(1000).fpp(0.01).build(),
                WindowedBloomFilter.builder().capacity(1000).fpp(0.01).build(),
                RecentFilter.builder().buckets(1024).build(),
                RecentFilter.builder().buckets(1024).owners(true).build());
    }

    @ParameterizedTest
    @MethodSource("stores")
    void aNullListOfKeysIsRefusedByNameInEveryBatchForm(HashedSeenSet store) {
        assertThatThrownBy(() -> store.checkAll(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("keys must not be null");
        assertThatThrownBy(() -> store.addAll(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("keys must not be null");
        assertThatThrownBy(() -> store.checkThenAddAll(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("keys must not be null");
    }

    @ParameterizedTest
    @MethodSource("stores")
    void aBatchHoldingANullOrEmptyKeyIsRefusedBeforeAnyKeyIsRecorded(HashedSeenSet store) {
        List<byte[]> withNull = Arrays.asList(utf8("fresh"), null);
        List<byte[]> withEmpty = List.of(utf8("fresh"), new byte[0]);
        assertThatThrownBy(() -> store.checkThenAddAll(withNull))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("got null");
        assertThatThrownBy(() -> store.addAll(withEmpty))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("got an empty array");
        assertThatThrownBy(() -> store.checkThenAddAll(withEmpty, new long[2]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("got an empty array");
        assertThat(store.check("fresh")).isFalse();
        assertThat(store.stats().insertions()).isZero();
    }

    @ParameterizedTest
    @MethodSource("stores")
    void hashedBatchesWithOwnersOrAnswersOfTheWrongLengthAreRefusedBeforeAnyKeyIsRecorded(HashedSeenSet store) {
        long[] hashes = Hash128.ofAll(List.of(utf8("a"), utf8("b")));
        assertThatThrownBy(() -> store.checkThenAddHashes(hashes, new long[1], new Verdict[2]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("owners")
                .hasMessageContaining("1")
                .hasMessageContaining("2 keys");
        assertThatThrownBy(() -> store.checkThenAddHashes(hashes, null, new Verdict[3]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("hashes")
                .hasMessageContaining("4")
                .hasMessageContaining("3");
        assertThatThrownBy(() -> store.checkThenAddHashes(hashes, null, new Verdict[1]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("hashes");
        assertThatThrownBy(() -> store.checkThenAddHashes(null, null, new Verdict[1]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("hashes must not be null");
        assertThatThrownBy(() -> store.checkThenAddHashes(hashes, null, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("out must not be null");
        assertThatThrownBy(() -> store.forgetHashes(hashes, new long[3], new boolean[2]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("owners");
        assertThatThrownBy(() -> store.forgetHashes(hashes, null, new boolean[1]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("hashes");
        assertThat(store.check("a")).isFalse();
        assertThat(store.check("b")).isFalse();

        Verdict[] out = new Verdict[2];
        store.checkThenAddHashes(hashes, null, out);
        assertThat(out).containsExactly(Verdict.NEW, Verdict.NEW);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
