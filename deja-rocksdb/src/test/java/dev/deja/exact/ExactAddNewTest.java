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
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link ExactStore#addNew} and {@link ExactStore#ingestNew}: keys a single writer found new are held as
 * {@link ExactStore#checkThenAddAll} would hold them, with their owners and times, across a reopen and until their
 * generation ages out; each test runs with both.
 */
class ExactAddNewTest {

    /** The two ways of writing new keys. */
    enum Write {
        ADD_NEW {
            @Override
            void write(ExactStore store, List<byte[]> keys, long[] owners) {
                store.addNew(keys, owners);
            }
        },
        INGEST_NEW {
            @Override
            void write(ExactStore store, List<byte[]> keys, long[] owners) {
                store.ingestNew(keys, owners);
            }
        };

        abstract void write(ExactStore store, List<byte[]> keys, long[] owners);
    }

    private static final Instant T0 = Instant.parse("2026-11-22T00:00:00Z");

    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock(T0);

    /** An 8-hour window in eight 1-hour generations. */
    private ExactStore open() {
        return TestStores.eightHourWindow(dir, clock).open();
    }

    @ParameterizedTest
    @EnumSource(Write.class)
    void addedKeysAreRetriesForTheirOwnerAndDuplicatesForAnother(Write w) {
        List<byte[]> keys = RandomKeys.of(1_000, 1);
        long[] owners = LongStream.range(100, 1_100).toArray();
        try (ExactStore store = open()) {
            assertThat(store.checkAll(keys)).containsOnly(false);
            w.write(store, keys, owners);

            assertThat(store.checkAll(keys)).containsOnly(true);
            assertThat(store.checkThenAdd(keys.get(7), 107)).isEqualTo(RETRY);
            assertThat(store.checkThenAdd(keys.get(7), 108)).isEqualTo(DUPLICATE);
            KeyInfo info = store.info(keys.get(999)).orElseThrow();
            assertThat(info.owner()).isEqualTo(1_099);
            assertThat(info.firstSeen()).isEqualTo(T0);
        }
    }

    @ParameterizedTest
    @EnumSource(Write.class)
    void keysWithoutOwnersAreDuplicatesForEveryone(Write w) {
        List<byte[]> keys = RandomKeys.of(10, 2);
        try (ExactStore store = open()) {
            w.write(store, keys, null);
            assertThat(store.checkThenAdd(keys.get(0), 5)).isEqualTo(DUPLICATE);
            assertThat(store.checkThenAdd(keys.get(1))).isEqualTo(DUPLICATE);
        }
    }

    @ParameterizedTest
    @EnumSource(Write.class)
    void addedKeysAreHeldAfterAReopenAndAfterTheirFiltersAreReadBack(Write w) throws IOException {
        List<byte[]> keys = RandomKeys.of(2_000, 3);
        try (ExactStore store = open()) {
            w.write(store, keys, null);
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

    @ParameterizedTest
    @EnumSource(Write.class)
    void addedKeysAgeOutWithTheirGeneration(Write w) {
        List<byte[]> keys = RandomKeys.of(100, 5);
        try (ExactStore store = open()) {
            w.write(store, keys, null);
            clock.set(T0.plus(Duration.ofHours(1)));
            w.write(store, RandomKeys.of(1, 6), null); // into the next generation
            clock.set(T0.plus(Duration.ofHours(9)).minusMillis(1));
            assertThat(store.checkAll(keys))
                    .as("the next generation began less than a window ago")
                    .containsOnly(true);

            clock.set(T0.plus(Duration.ofHours(9)));
            w.write(store, RandomKeys.of(1, 7), null);
            assertThat(store.checkAll(keys))
                    .as("the next generation began a window ago")
                    .containsOnly(false);
        }
    }

    @ParameterizedTest
    @EnumSource(Write.class)
    void aHeldKeyGivenAgainIsAnsweredByItsNewCopy(Write w) {
        byte[] key = RandomKeys.of(1, 8).get(0);
        try (ExactStore store = open()) {
            assertThat(store.checkThenAdd(key, 1)).isEqualTo(NEW);
            clock.advance(Duration.ofHours(2));
            w.write(store, List.of(key), new long[] {2});
            KeyInfo info = store.info(key).orElseThrow();
            assertThat(info.owner()).isEqualTo(2);
            assertThat(info.firstSeen()).isEqualTo(T0.plus(Duration.ofHours(2)));
        }
    }

    @ParameterizedTest
    @EnumSource(Write.class)
    void refusesOwnersOfAnotherLengthAndAClosedStore(Write w) {
        List<byte[]> keys = RandomKeys.of(3, 9);
        ExactStore store = open();
        assertThatThrownBy(() -> w.write(store, keys, new long[2])).isInstanceOf(IllegalArgumentException.class);
        assertThat(store.checkAll(keys)).containsOnly(false);
        store.close();
        assertThatThrownBy(() -> w.write(store, keys, null)).isInstanceOf(StoreClosedException.class);
    }

    @ParameterizedTest
    @EnumSource(Write.class)
    void aKeyGivenTwiceIsHeldUnderItsLastOwner(Write w) {
        List<byte[]> distinct = RandomKeys.of(500, 10);
        List<byte[]> keys = new ArrayList<>(distinct);
        keys.addAll(distinct.subList(0, 100)); // given again, later, under other owners
        long[] owners = LongStream.range(0, keys.size()).toArray();
        try (ExactStore store = open()) {
            w.write(store, keys, owners);
            for (int i = 0; i < distinct.size(); i++) {
                long last = i < 100 ? 500 + i : i;
                assertThat(store.info(distinct.get(i)).orElseThrow().owner())
                        .as("key %d", i)
                        .isEqualTo(last);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Write.class)
    void keysOfEveryLengthAreHeld(Write w) {
        List<byte[]> keys = new ArrayList<>();
        Random random = new Random(16);
        for (int length : new int[] {1, 7, 63, 64, 65, 200, 1_000, 64, 3}) {
            byte[] key = new byte[length];
            random.nextBytes(key);
            keys.add(key);
        }
        try (ExactStore store = open()) {
            w.write(store, keys, LongStream.range(1, keys.size() + 1).toArray());
            for (int i = 0; i < keys.size(); i++) {
                assertThat(store.info(keys.get(i)).orElseThrow().owner()).isEqualTo(i + 1);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Write.class)
    void aKeyWrittenEarlierInTheSameGenerationIsAnsweredByItsNewCopy(Write w) {
        byte[] key = RandomKeys.of(1, 11).get(0);
        try (ExactStore store = open()) {
            assertThat(store.checkThenAdd(key, 1)).isEqualTo(NEW); // in the generation's memtable
            clock.advance(Duration.ofMinutes(1));
            w.write(store, List.of(key), new long[] {2});
            assertThat(store.info(key).orElseThrow().owner()).isEqualTo(2);
        }
    }

    @Test
    void ingestedKeysAreOnDiskWhenTheCallReturnsWithoutALogOrASync() throws IOException {
        Path store = dir.resolve("store");
        Path crashImage = dir.resolve("crash-image");
        List<byte[]> ingested = RandomKeys.of(3_000, 12);
        try (ExactStore s = TestStores.eightHourWindow(store, clock)
                .writeAheadLog(/* writeAheadLog= */ false)
                .open()) {
            s.ingestNew(ingested, null);
            copy(store, crashImage); // the files as a crash would leave them: the store is still open
            assertThat(crashImage.resolve(TableIngest.FILE_NAME)).doesNotExist();
        }
        try (ExactStore s = TestStores.eightHourWindow(crashImage, clock).open()) {
            assertThat(s.checkAll(ingested)).containsOnly(true);
            assertThat(s.checkAll(RandomKeys.of(3_000, 13))).containsOnly(false);
        }
    }

    @Test
    void aTableFileLeftHalfWrittenByACrashIsOverwrittenByTheNextIngestion() throws IOException {
        List<byte[]> before = RandomKeys.of(100, 14);
        try (ExactStore store = open()) {
            store.ingestNew(before, null);
        }
        Files.write(dir.resolve(TableIngest.FILE_NAME), new byte[] {1, 2, 3}); // as a crash mid-write leaves it
        List<byte[]> after = RandomKeys.of(100, 15);
        try (ExactStore store = open()) {
            store.ingestNew(after, null);
            assertThat(store.checkAll(before)).containsOnly(true);
            assertThat(store.checkAll(after)).containsOnly(true);
        }
        assertThat(dir.resolve(TableIngest.FILE_NAME)).doesNotExist();
    }

    private static void copy(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path f : files.toList()) {
                Files.copy(f, to.resolve(from.relativize(f).toString()));
            }
        }
    }

    private static void delete(Path directory) throws IOException {
        try (Stream<Path> files = Files.walk(directory)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    @Test
    void tableFilesAreWrittenInBlocksOfTheSizeTheBuilderGives() throws Exception {
        List<byte[]> keys = RandomKeys.of(20_000, 9);
        double[] bytesPerBlock = new double[2];
        int[] sizes = {1 << 10, 16 << 10};
        for (int i = 0; i < sizes.length; i++) {
            Path store = dir.resolve("blocks-" + sizes[i]);
            try (ExactStore s = TestStores.dayWindow(store).blockBytes(sizes[i]).open()) {
                s.ingestNew(keys, null);
            }
            long blocks = 0;
            long dataBytes = 0;
            List<Path> tables;
            try (Stream<Path> files = Files.walk(store)) {
                tables = files.filter(f -> f.toString().endsWith(".sst")).toList();
            }
            for (Path table : tables) {
                try (org.rocksdb.Options options = new org.rocksdb.Options();
                        org.rocksdb.SstFileReader reader = new org.rocksdb.SstFileReader(options)) {
                    reader.open(table.toString());
                    blocks += reader.getTableProperties().getNumDataBlocks();
                    dataBytes += reader.getTableProperties().getDataSize();
                }
            }
            assertThat(blocks).as("data blocks of %d-byte blocks", sizes[i]).isPositive();
            bytesPerBlock[i] = dataBytes / (double) blocks;
        }
        // the sizes bound a block's data before compression; random keys compress little, so the ratio stays near 16
        assertThat(bytesPerBlock[1] / bytesPerBlock[0]).isBetween(8.0, 24.0);
        assertThatThrownBy(() -> TestStores.dayWindow(dir).blockBytes(512))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("blockBytes must be in [1024,");
    }
}
