package dev.deja.seen;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.bloom.BloomFilter;
import dev.deja.bloom.WindowedBloomFilter;
import dev.deja.recent.RecentFilter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The batch forms answer exactly as the single calls made one after another, on twin stores fed the same random
 * batches: keys repeated inside and across batches, owners mixed with {@link SeenSet#NO_OWNER}, empty batches, and
 * small stores that overwrite (recent) or rotate (windowed) within a batch.
 */
class BatchAgreementTest {

    static Stream<Arguments> stores() {
        return Stream.of(
                Arguments.of("bloom", (Supplier<SeenSet>)
                        () -> BloomFilter.builder().capacity(300).fpp(0.05).build()),
                Arguments.of("windowed", (Supplier<SeenSet>) () -> WindowedBloomFilter.builder()
                        .capacity(40)
                        .fpp(0.05)
                        .generations(3)
                        .build()),
                Arguments.of("recent", (Supplier<SeenSet>)
                        () -> RecentFilter.builder().buckets(64).ways(4).build()),
                Arguments.of("recent with owners", (Supplier<SeenSet>) () ->
                        RecentFilter.builder().buckets(64).ways(4).owners(true).build()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("stores")
    void batchesAnswerAsSingleCallsInOrder(String kind, Supplier<SeenSet> create) {
        SeenSet batched = create.get();
        SeenSet single = create.get();
        boolean owners = kind.endsWith("owners");
        boolean forgets = kind.startsWith("recent");
        SplittableRandom random = new SplittableRandom(kind.hashCode());
        for (int round = 0; round < 400; round++) {
            List<byte[]> keys = new ArrayList<>();
            int n = random.nextInt(0, 12);
            long[] owned = new long[n];
            for (int i = 0; i < n; i++) {
                keys.add(("k" + random.nextInt(150)).getBytes(StandardCharsets.UTF_8));
                owned[i] = owners && random.nextBoolean() ? random.nextInt(1, 4) : SeenSet.NO_OWNER;
            }
            long[] ownersOrNull = owners && random.nextBoolean() ? owned : null;
            switch (random.nextInt(forgets ? 4 : 3)) {
                case 0 -> {
                    Verdict[] answers = batched.checkThenAddAll(keys, ownersOrNull);
                    for (int i = 0; i < n; i++) {
                        long owner = ownersOrNull == null ? SeenSet.NO_OWNER : ownersOrNull[i];
                        assertThat(answers[i])
                                .as("round %d key %d", round, i)
                                .isEqualTo(single.checkThenAdd(keys.get(i), owner));
                    }
                }
                case 1 -> {
                    boolean[] answers = batched.checkAll(keys);
                    for (int i = 0; i < n; i++) {
                        assertThat(answers[i]).as("round %d key %d", round, i).isEqualTo(single.check(keys.get(i)));
                    }
                }
                case 2 -> {
                    batched.addAll(keys);
                    keys.forEach(single::add);
                }
                default -> {
                    boolean[] answers = batched.forgetAll(keys, ownersOrNull);
                    for (int i = 0; i < n; i++) {
                        long owner = ownersOrNull == null ? SeenSet.NO_OWNER : ownersOrNull[i];
                        assertThat(answers[i])
                                .as("round %d key %d", round, i)
                                .isEqualTo(single.forget(keys.get(i), owner));
                    }
                }
            }
        }
        for (int k = 0; k < 150; k++) {
            byte[] key = ("k" + k).getBytes(StandardCharsets.UTF_8);
            assertThat(batched.check(key)).as("k%d at the end", k).isEqualTo(single.check(key));
        }
    }
}
