package dev.deja.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class NewIdsTest {

    @Test
    void findsEveryIdHeldWithItsOwnerAndTimeAndNoOther() {
        NewIds ids = new NewIds();
        SplittableRandom random = new SplittableRandom(37);
        long[][] held = new long[NewIds.CAPACITY][];
        for (int i = 0; i < NewIds.CAPACITY; i++) {
            held[i] = new long[] {random.nextLong(), random.nextLong()};
            assertThat(ids.find(held[i][0], held[i][1])).isEqualTo(-1);
            ids.add(held[i][0], held[i][1], 1_000 + i, 2_000 + i);
        }
        assertThat(ids.isFull()).isTrue();
        for (int i = 0; i < NewIds.CAPACITY; i++) {
            int at = ids.find(held[i][0], held[i][1]);
            assertThat(at).as("in the order they came").isEqualTo(i);
            assertThat(ids.owner(at)).isEqualTo(1_000 + i);
            assertThat(ids.time(at)).isEqualTo(2_000 + i);
        }
        // the same high half with another low half, and the other way round, are other ids
        assertThat(ids.find(held[5][0], held[5][1] + 1)).isEqualTo(-1);
        assertThat(ids.find(held[5][0] + 1, held[5][1])).isEqualTo(-1);
    }

    @Test
    void idsThatShareAFirstSlotAreAllFound() {
        NewIds ids = new NewIds();
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
        NewIds ids = new NewIds();
        for (int i = 0; i < NewIds.CAPACITY; i++) {
            ids.add(i, -i, 0, 0);
        }
        assertThatThrownBy(() -> ids.add(-1, -1, 0, 0)).isInstanceOf(IllegalStateException.class);
        ids.clear();
        assertThat(ids.isEmpty()).isTrue();
        assertThat(ids.find(3, -3)).isEqualTo(-1);
        ids.add(3, -3, 7, 8);
        assertThat(ids.find(3, -3)).isZero();
        assertThat(ids.owner(0)).isEqualTo(7);
    }
}
