package dev.deja.exact;

import static dev.deja.seen.Verdict.DUPLICATE;
import static dev.deja.seen.Verdict.NEW;
import static dev.deja.seen.Verdict.RETRY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.seen.StoreClosedException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ExactStore#addNew}: keys a single writer found new are held as {@link ExactStore#checkThenAddAll} would hold
 * them, with their owners and times, across a reopen and until their generation ages out.
 */
class ExactAddNewTest {

    private static final Instant T0 = Instant.parse("2026-11-22T00:00:00Z");

    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock(T0);

    /** An 8-hour window in eight 1-hour generations. */
    private ExactStore open() {
        return TestStores.eightHourWindow(dir, clock).open();
    }

    @Test
    void addedKeysAreRetriesForTheirOwnerAndDuplicatesForAnother() {
        List<byte[]> keys = RandomKeys.of(1_000, 1);
        long[] owners = LongStream.range(100, 1_100).toArray();
        try (ExactStore store = open()) {
            assertThat(store.checkAll(keys)).containsOnly(false);
            store.addNew(keys, owners);

            assertThat(store.checkAll(keys)).containsOnly(true);
            assertThat(store.checkThenAdd(keys.get(7), 107)).isEqualTo(RETRY);
            assertThat(store.checkThenAdd(keys.get(7), 108)).isEqualTo(DUPLICATE);
            KeyInfo info = store.info(keys.get(999)).orElseThrow();
            assertThat(info.owner()).isEqualTo(1_099);
            assertThat(info.firstSeen()).isEqualTo(T0);
        }
    }

    @Test
    void keysWithoutOwnersAreDuplicatesForEveryone() {
        List<byte[]> keys = RandomKeys.of(10, 2);
        try (ExactStore store = open()) {
            store.addNew(keys, null);
            assertThat(store.checkThenAdd(keys.get(0), 5)).isEqualTo(DUPLICATE);
            assertThat(store.checkThenAdd(keys.get(1))).isEqualTo(DUPLICATE);
        }
    }

    @Test
    void addedKeysAreHeldAfterAReopenAndAfterTheirFiltersAreReadBack() throws IOException {
        List<byte[]> keys = RandomKeys.of(2_000, 3);
        try (ExactStore store = open()) {
            store.addNew(keys, null);
        }
        try (ExactStore store = open()) {
            assertThat(store.checkAll(keys)).containsOnly(true);
        }
        // Without the kept filters the open reads every key back, as after a crash.
        delete(dir.resolve(ExactStore.KEPT_FILTERS_DIRECTORY));
        try (ExactStore store = open()) {
            assertThat(store.checkAll(keys)).containsOnly(true);
            assertThat(store.checkThenAddAll(RandomKeys.of(2_000, 4), null)).containsOnly(NEW);
        }
    }

    @Test
    void addedKeysAgeOutWithTheirGeneration() {
        List<byte[]> keys = RandomKeys.of(100, 5);
        try (ExactStore store = open()) {
            store.addNew(keys, null);
            clock.set(T0.plus(Duration.ofHours(1)));
            store.addNew(RandomKeys.of(1, 6), null); // into the next generation
            clock.set(T0.plus(Duration.ofHours(9)).minusMillis(1));
            assertThat(store.checkAll(keys))
                    .as("the next generation began less than a window ago")
                    .containsOnly(true);

            clock.set(T0.plus(Duration.ofHours(9)));
            store.addNew(RandomKeys.of(1, 7), null);
            assertThat(store.checkAll(keys))
                    .as("the next generation began a window ago")
                    .containsOnly(false);
        }
    }

    @Test
    void aHeldKeyGivenAgainIsAnsweredByItsNewCopy() {
        byte[] key = RandomKeys.of(1, 8).get(0);
        try (ExactStore store = open()) {
            assertThat(store.checkThenAdd(key, 1)).isEqualTo(NEW);
            clock.advance(Duration.ofHours(2));
            store.addNew(List.of(key), new long[] {2});
            KeyInfo info = store.info(key).orElseThrow();
            assertThat(info.owner()).isEqualTo(2);
            assertThat(info.firstSeen()).isEqualTo(T0.plus(Duration.ofHours(2)));
        }
    }

    @Test
    void refusesOwnersOfAnotherLengthAndAClosedStore() {
        List<byte[]> keys = RandomKeys.of(3, 9);
        ExactStore store = open();
        assertThatThrownBy(() -> store.addNew(keys, new long[2])).isInstanceOf(IllegalArgumentException.class);
        assertThat(store.checkAll(keys)).containsOnly(false);
        store.close();
        assertThatThrownBy(() -> store.addNew(keys, null)).isInstanceOf(StoreClosedException.class);
    }

    private static void delete(Path directory) throws IOException {
        try (Stream<Path> files = Files.walk(directory)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
