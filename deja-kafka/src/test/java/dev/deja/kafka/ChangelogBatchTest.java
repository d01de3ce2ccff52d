package dev.deja.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The exact store's changelog records: what is written is read back, a full batch says so, damage is refused. */
class ChangelogBatchTest {

    private record Entry(long high, long low, long owner, long time) {}

    private static List<Entry> read(byte[] value) {
        List<Entry> entries = new ArrayList<>();
        ChangelogBatch.read(value, (high, low, owner, time) -> entries.add(new Entry(high, low, owner, time)));
        return entries;
    }

    @Test
    void idsComeBackInOrderWithTheirOwnersAndTimes() {
        ChangelogBatch batch = new ChangelogBatch();
        assertThat(batch.isEmpty()).isTrue();
        batch.add(1, 2, 3, 1_000);
        batch.add(-1, Long.MIN_VALUE, -1, 900); // an earlier time: a late record's id
        assertThat(batch.latestTime()).isEqualTo(1_000);
        byte[] value = batch.drain();
        assertThat(value).hasSize(1 + 2 * ChangelogBatch.ENTRY_BYTES);
        assertThat(read(value)).containsExactly(new Entry(1, 2, 3, 1_000), new Entry(-1, Long.MIN_VALUE, -1, 900));
        assertThat(batch.isEmpty()).isTrue();
        batch.add(7, 7, 7, 7);
        assertThat(read(batch.drain())).containsExactly(new Entry(7, 7, 7, 7));
    }

    @Test
    void aBatchIsFullAtItsLimit() {
        ChangelogBatch batch = new ChangelogBatch();
        for (int i = 0; i < ChangelogBatch.MAX_ENTRIES; i++) {
            assertThat(batch.isFull()).isFalse();
            batch.add(i, i, i, i);
        }
        assertThat(batch.isFull()).isTrue();
        assertThat(read(batch.drain())).hasSize(ChangelogBatch.MAX_ENTRIES);
    }

    @Test
    void aRecordNotInTheFormatIsRefusedBeforeAnyIdIsGiven() {
        ChangelogBatch batch = new ChangelogBatch();
        batch.add(1, 2, 3, 4);
        byte[] good = batch.drain();
        byte[] truncated = java.util.Arrays.copyOf(good, good.length - 1);
        byte[] otherVersion = good.clone();
        otherVersion[0] = 2;
        List<Entry> given = new ArrayList<>();
        for (byte[] bad : new byte[][] {truncated, otherVersion, new byte[0], null}) {
            assertThatThrownBy(() -> ChangelogBatch.read(
                            bad, (high, low, owner, time) -> given.add(new Entry(high, low, owner, time))))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("not a version-1 batch");
        }
        assertThat(given).isEmpty();
    }
}
