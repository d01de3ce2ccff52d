package dev.deja.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class NewIdsTest {

    /** Not a power of two, several times the arrays' first size: the table grows more than once, and last by less. */
    private static final int CAPACITY = 20_000;

    @Test
    void findsEveryIdHeldWithItsOwnerAndTimeAndNoOtherAsTheTableGrows() {
        NewIds ids = new NewIds(CAPACITY);
        SplittableRandom random = new SplittableRandom(37);
        long[][] held = new long[CAPACITY][];
        for (int i = 0; i < CAPACITY; i++) {
            held[i] = new long[] {random.nextLong(), random.nextLong()};
            assertThat(ids.find(held[i][0], held[i][1])).isEqualTo(-1);
            ids.add(held[i][0], held[i][1], 1_000 + i, 2_000 + i);
            if (i % 997 == 0) {
                // every id so far is found after each growth, not only at the end
                for (int j = 0; j <= i; j += 13) {
                    assertThat(ids.find(held[j][0], held[j][1])).isEqualTo(j);
                }
            }
        }
        assertThat(ids.isFull()).isTrue();
        assertThat(ids.size()).isEqualTo(CAPACITY);
        for (int i = 0; i < CAPACITY; i++) {
            int at = ids.find(held[i][0], held[i][1]);
            assertThat(at).as("in the order they came").isEqualTo(i);
            assertThat(ids.owner(at)).isEqualTo(1_000 + i);
            assertThat(ids.time(at)).isEqualTo(2_000 + i);
            assertThat(ids.high(at)).isEqualTo(held[i][0]);
            assertThat(ids.low(at)).isEqualTo(held[i][1]);
        }
        // the same high half with another low half, and the other way round, are other ids
        assertThat(ids.find(held[5][0], held[5][1] + 1)).isEqualTo(-1);
        assertThat(ids.find(held[5][0] + 1, held[5][1])).isEqualTo(-1);
    }

    @Test
    void idsThatShareAFirstSlotAreAllFound() {
        NewIds ids = new NewIds(NewIds.MIN_CAPACITY);
        // high ^ low is the same for all of them: one first slot, probed on from there
        for (long i = 0; i < 100; i++) {
            ids.add(i, i, i, 0);
        }
        for (long i = 0; i < 100; i++) {
            assertThat(ids.find(i, i)).isEqualTo((int) i);
        }
        assertThat(ids.find(100, 100)).isEqualTo(-1);
    }

    @Test
    void clearForgetsEveryIdAndAFullTableRefusesMore() {
        NewIds ids = new NewIds(CAPACITY);
        for (int i = 0; i < CAPACITY; i++) {
            ids.add(i, -i, 0, 0);
        }
        assertThatThrownBy(() -> ids.add(-1, -1, 0, 0))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already holds 20000 new ids");
        ids.clear();
        assertThat(ids.isEmpty()).isTrue();
        assertThat(ids.find(3, -3)).isEqualTo(-1);
        ids.add(3, -3, 7, 8);
        assertThat(ids.find(3, -3)).isZero();
        assertThat(ids.owner(0)).isEqualTo(7);
        // the grown arrays are kept: a full table again after a clear
        for (int i = 1; i < CAPACITY; i++) {
            ids.add(i, i, 0, 0);
        }
        assertThat(ids.isFull()).isTrue();
        assertThat(ids.find(CAPACITY - 1, CAPACITY - 1)).isEqualTo(CAPACITY - 1);
    }

    @Test
    void aCapacityOutsideItsBoundsIsRefused() {
        assertThatThrownBy(() -> new NewIds(NewIds.MIN_CAPACITY - 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must be in [1024, 67108864], not 1023");
        assertThatThrownBy(() -> new NewIds(NewIds.MAX_CAPACITY + 1)).isInstanceOf(IllegalArgumentException.class);
        assertThat(new NewIds(NewIds.MIN_CAPACITY).capacity()).isEqualTo(NewIds.MIN_CAPACITY);
    }
}
