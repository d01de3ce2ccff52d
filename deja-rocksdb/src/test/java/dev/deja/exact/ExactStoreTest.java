package dev.deja.exact;

import static dev.deja.seen.Verdict.DUPLICATE;
import static dev.deja.seen.Verdict.NEW;
import static dev.deja.seen.Verdict.RETRY;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.seen.ErrorEstimate;
import dev.deja.seen.Guarantee;
import dev.deja.seen.SeenSet;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;

/**
 * The exact store's single-key and batch operations (owners and retries, forget, info), what survives a reopen, the
 * value and id formats fixed when a store is created, its stats, and the options its builder refuses.
 */
class ExactStoreTest {

    private static final Instant T0 = Instant.parse("2026-11-22T00:00:00Z");

    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock(T0);

    private ExactStoreBuilder builder() {
        return TestStores.dayWindow(dir).clock(clock);
    }

    private static byte[] key(String s) {
        return s.getBytes(UTF_8);
    }

    @Test
    void sameOwnerIsARetryAndTheFirstOwnerKeepsTheKey() {
        try (ExactStore store = builder().open()) {
            assertThat(store.checkThenAdd(key("m1"), 7)).isEqualTo(NEW);
            assertThat(store.checkThenAdd(key("m1"), 7)).isEqualTo(RETRY);
            assertThat(store.checkThenAdd(key("m1"), 8)).isEqualTo(DUPLICATE);
            // The first owner stays: the other owner's attempt did not take the key over.
            assertThat(store.checkThenAdd(key("m1"), 7)).isEqualTo(RETRY);
            assertThat(store.checkThenAdd(key("m1"))).isEqualTo(DUPLICATE);

            assertThat(store.checkThenAdd(key("m2"))).isEqualTo(NEW);
            // NO_OWNER never matches itself: a key recorded without an owner is a plain duplicate.
            assertThat(store.checkThenAdd(key("m2"), SeenSet.NO_OWNER)).isEqualTo(DUPLICATE);
            assertThat(store.checkThenAdd(key("m2"), 5)).isEqualTo(DUPLICATE);
        }
    }

    @Test
    void forgetErasesOnlyForTheOwnerOrForAnyone() {
        try (ExactStore store = builder().open()) {
            store.add(key("a"), 1);
            assertThat(store.forget(key("a"), 2)).isFalse();
            assertThat(store.check(key("a"))).isTrue();
            assertThat(store.forget(key("a"), 1)).isTrue();
            assertThat(store.check(key("a"))).isFalse();
            assertThat(store.forget(key("a"), 1)).isFalse();

            store.add(key("b"), 3);
            assertThat(store.forget(key("b"))).isTrue();
            assertThat(store.checkThenAdd(key("b"), 4)).isEqualTo(NEW);
        }
    }

    @Test
    void batchesBehaveLikeTheCallsInOrder() {
        try (ExactStore store = builder().open()) {
            store.add(key("old"), 9);
            List<byte[]> keys = List.of(key("x"), key("old"), key("x"), key("y"), key("old"), key("x"));
            long[] owners = {1, 9, 1, 2, 3, 5};
            assertThat(store.checkThenAddAll(keys, owners))
                    .containsExactly(NEW, RETRY, RETRY, NEW, DUPLICATE, DUPLICATE);
            assertThat(store.checkAll(List.of(key("x"), key("z"), key("y")))).containsExactly(true, false, true);
            assertThat(store.forgetAll(List.of(key("x"), key("x"), key("y")), new long[] {1, 1, 7}))
                    .containsExactly(true, false, false);
            assertThat(store.checkAll(List.of(key("x"), key("y")))).containsExactly(false, true);
            assertThat(store.checkThenAddAll(List.of())).isEmpty();
        }
    }

    @Test
    void infoShowsOwnerFirstSeenAndDuplicateCountWhenCounting() {
        try (ExactStore store = builder().countDuplicates(true).open()) {
            clock.advance(Duration.ofSeconds(90));
            store.checkThenAdd(key("k"), 11);
            clock.advance(Duration.ofMinutes(5));
            store.checkThenAdd(key("k"), 12);
            store.checkThenAdd(key("k"), 11); // a retry is the same message again, not a duplicate
            store.checkThenAddAll(List.of(key("k"), key("k")), new long[] {13, 14});
            KeyInfo info = store.info(key("k")).orElseThrow();
            assertThat(info.owner()).isEqualTo(11);
            assertThat(info.duplicates()).isEqualTo(3);
            // A 24-hour window in 8 slices dates keys to the minute (the first round unit >= 3 h / 256).
            assertThat(info.firstSeen()).isEqualTo(T0.plusSeconds(60));
            assertThat(store.info(key("absent"))).isEmpty();
        }
        try (ExactStore store = builder().open()) {
            assertThat(store.info(key("k")).orElseThrow().duplicates()).isEqualTo(-1);
        }
    }

    @Test
    void keysOwnersAndGenerationsSurviveReopening() {
        try (ExactStore store = builder().open()) {
            store.checkThenAdd(key("first"), 21);
            clock.advance(Duration.ofHours(4)); // next slice: a second generation
            store.checkThenAdd(key("second"), 22);
            assertThat(store.metrics().generations()).isEqualTo(2);
        }
        try (ExactStore store = builder().open()) {
            assertThat(store.metrics().generations()).isEqualTo(2);
            assertThat(store.checkThenAdd(key("first"), 21)).isEqualTo(RETRY);
            assertThat(store.checkThenAdd(key("second"), 21)).isEqualTo(DUPLICATE);
            assertThat(store.info(key("first")).orElseThrow().firstSeen()).isEqualTo(T0);
            assertThat(store.metrics().effectiveWindow()).isEqualTo(Duration.ofHours(4));
        }
    }

    /** Opens the store's directory as a plain RocksDB database: default column family first, then generations. */
    private void rawEdit(RawEdit edit) throws RocksDBException {
        List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
        descriptors.add(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY));
        try (Options options = new Options()) {
            for (byte[] name : RocksDB.listColumnFamilies(options, dir.toString())) {
                if (!Arrays.equals(name, RocksDB.DEFAULT_COLUMN_FAMILY)) {
                    descriptors.add(new ColumnFamilyDescriptor(name));
                }
            }
        }
        List<ColumnFamilyHandle> handles = new ArrayList<>();
        try (DBOptions options = new DBOptions();
                RocksDB db = RocksDB.open(options, dir.toString(), descriptors, handles)) {
            edit.apply(db, handles);
            handles.forEach(ColumnFamilyHandle::close);
        }
    }

    private interface RawEdit {
        void apply(RocksDB db, List<ColumnFamilyHandle> handles) throws RocksDBException;
    }

    @Test
    void newStoresDateKeysInOneByteAndStoresOfTheFirstValueFormatStayReadable() throws RocksDBException {
        try (ExactStore store = builder().open()) {
            store.add(key("first")); // the generation starts at T0
            clock.advance(Duration.ofMinutes(100));
            store.add(key("k"));
        }
        rawEdit((db, handles) -> {
            assertThat(db.get(handles.get(0), key("value-format"))).isEqualTo(key("2"));
            // 100 minutes after the generation's start, in a one-minute unit: one byte.
            assertThat(db.get(handles.get(1), key("k"))).containsExactly(100);
            // Turned into a store of the first format: no entry, the time as a varint of its zigzag (200).
            db.delete(handles.get(0), key("value-format"));
            db.put(handles.get(1), key("k"), new byte[] {(byte) 0xC8, 0x01});
        });
        try (ExactStore store = builder().open()) {
            assertThat(store.info(key("k")).orElseThrow().firstSeen()).isEqualTo(T0.plusSeconds(6000));
            clock.advance(Duration.ofMinutes(1));
            store.add(key("later"));
        }
        rawEdit((db, handles) -> {
            // The store keeps writing its own format.
            assertThat(db.get(handles.get(0), key("value-format"))).isNull();
            assertThat(db.get(handles.get(1), key("later"))).containsExactly((byte) 0xCA, 0x01);
            db.put(handles.get(0), key("value-format"), key("3"));
        });
        assertThatThrownBy(() -> builder().open())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("values in format \"3\"");
    }

    @Test
    void uuidIdsAreStoredInBinaryAndTheFormatIsFixedForTheStore() {
        String id = "e7bd0e18-57e9-4ef4-928a-4ccc0b189d18";
        try (ExactStore store = builder().idFormat(IdFormat.UUID).open()) {
            assertThat(store.checkThenAdd(id)).isEqualTo(NEW);
            assertThat(store.checkThenAdd(id.toUpperCase(Locale.ROOT))).isEqualTo(DUPLICATE);
            assertThatThrownBy(() -> store.checkThenAdd("not-a-uuid"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("UUID");
        }
        assertThatThrownBy(() -> builder().idFormat(IdFormat.RAW).open())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("idFormat must match");
        try (ExactStore store = builder().idFormat(IdFormat.UUID).open()) {
            assertThat(store.check(id)).isTrue();
        }
    }

    @Test
    void aBadKeyInABatchChangesNothing() {
        try (ExactStore store = builder().idFormat(IdFormat.HEX).open()) {
            assertThatThrownBy(() -> store.checkThenAddAll(List.of(key("abcd"), key("xyz1"))))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThat(store.check("abcd")).isFalse();
        }
    }

    @Test
    void statsReportTheKindGuaranteeAndWindow() {
        try (ExactStore store = builder().open()) {
            store.addAll(List.of(key("a"), key("b"), key("a")));
            clock.advance(Duration.ofMinutes(30));
            var stats = store.stats();
            assertThat(stats.kind()).isEqualTo("exact");
            assertThat(stats.guarantee()).isEqualTo(Guarantee.EXACT_WITHIN_WINDOW);
            assertThat(stats.insertions()).isEqualTo(2);
            assertThat(stats.memoryBytes()).isPositive();
            assertThat(stats.estimate()).isEqualTo(new ErrorEstimate.Exact(Duration.ofMinutes(30)));
        }
    }

    @Test
    void badOptionsAreRejectedByName() {
        assertThatThrownBy(() -> ExactStoreBuilder.at(dir).open())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("window and maxBytes");
        assertThatThrownBy(() -> ExactStoreBuilder.at(dir).window(Duration.ofMillis(10)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("window");
        assertThatThrownBy(() -> ExactStoreBuilder.at(dir).maxBytes(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxBytes must be > 0");
        assertThatThrownBy(() -> ExactStoreBuilder.at(dir).generations(1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("generations must be in [2,");
        assertThatThrownBy(() -> builder().minWindow(Duration.ofHours(25)).open())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("minWindow must be at most");
    }

    @Test
    void aClosedStoreSaysSo() {
        ExactStore store = builder().open();
        store.close();
        store.close();
        assertThatThrownBy(() -> store.check(key("a")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
    }
}
