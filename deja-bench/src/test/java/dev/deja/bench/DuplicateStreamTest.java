package dev.deja.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The streams the paired and mixed-stream benchmarks measure: a redelivery is a held key of the pool, a new key is
 * in no filter's pool and was not delivered before, and two streams built alike deliver the same keys.
 */
class DuplicateStreamTest {

    private static KeyPool pool;
    private static Set<ByteBuffer> held;
    private static Set<ByteBuffer> everyPoolKey;

    @BeforeAll
    static void pool() {
        pool = new KeyPool(2);
        held = new HashSet<>();
        pool.held().forEach(key -> held.add(ByteBuffer.wrap(key)));
        everyPoolKey = new HashSet<>();
        for (int i = 0; i < KeyPool.SIZE; i++) {
            everyPoolKey.add(ByteBuffer.wrap(pool.get(i)));
        }
    }

    /** The next {@code n} deliveries, copied (a new key's array is overwritten by the next call). */
    private static List<ByteBuffer> take(DuplicateStream stream, int n) {
        List<ByteBuffer> keys = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            keys.add(ByteBuffer.wrap(stream.next().clone()));
        }
        return keys;
    }

    @Test
    void oneNewKeyInSixteenTakesThePlaceOfEverySixteenthDelivery() {
        List<ByteBuffer> keys = take(new DuplicateStream(pool, 16, 1), 16 * 1000);
        Set<ByteBuffer> newKeys = new HashSet<>();
        for (int i = 0; i < keys.size(); i++) {
            if (i % 16 == 15) {
                assertThat(everyPoolKey.contains(keys.get(i)))
                        .as("delivery %d is in the pool", i)
                        .isFalse();
                newKeys.add(keys.get(i));
            } else {
                assertThat(held.contains(keys.get(i)))
                        .as("delivery %d is a held key", i)
                        .isTrue();
            }
        }
        assertThat(newKeys).as("new keys are all distinct").hasSize(1000);
    }

    @Test
    void theRedeliveriesWalkEveryHeldKeyInACycle() {
        List<ByteBuffer> keys = take(new DuplicateStream(pool, 0, 1), KeyPool.SIZE);
        assertThat(new HashSet<>(keys.subList(0, KeyPool.SIZE / 2))).isEqualTo(held);
        assertThat(keys.subList(KeyPool.SIZE / 2, KeyPool.SIZE)).isEqualTo(keys.subList(0, KeyPool.SIZE / 2));
    }

    @Test
    void newEveryOneDeliversNewKeysOnly() {
        List<ByteBuffer> keys = take(new DuplicateStream(pool, 1, 1), 100_000);
        assertThat(new HashSet<>(keys)).hasSize(keys.size());
        assertThat(keys.stream().filter(everyPoolKey::contains))
                .as("new keys found in the pool")
                .isEmpty();
    }

    @Test
    void streamsBuiltAlikeDeliverTheSameKeysAndSeriesDoNotMeet() {
        List<ByteBuffer> first = take(new DuplicateStream(pool, 1, 1), 50_000);
        assertThat(take(new DuplicateStream(pool, 1, 1), 50_000)).isEqualTo(first);
        Set<ByteBuffer> firstSet = new HashSet<>(first);
        assertThat(take(new DuplicateStream(pool, 1, 2), 50_000).stream().filter(firstSet::contains))
                .as("keys of series 2 also in series 1")
                .isEmpty();
        assertThat(take(new DuplicateStream(pool, 1, 0), 50_000).stream().filter(firstSet::contains))
                .as("keys of series 0 also in series 1")
                .isEmpty();
    }

    @Test
    void aNegativePeriodIsRefused() {
        assertThatThrownBy(() -> new DuplicateStream(pool, -1, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("newEvery");
    }
}
