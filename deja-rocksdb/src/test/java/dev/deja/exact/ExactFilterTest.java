package dev.deja.exact;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.deja.journal.FsyncPolicy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The in-memory filters in front of the generations ({@link KeyFilter}): a cleanly closed store keeps them in files
 * ({@link KeyFilterFiles}) that the next open takes back; without those (after a crash) a reopened store reads them
 * back in the background, and its answers are exact before, during and after that.
 */
class ExactFilterTest {

    private static final Instant T0 = Instant.parse("2026-11-22T00:00:00Z");
    private static final int PER_GENERATION = 60_000;

    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock(T0);

    private ExactStore open() {
        return TestStores.eightHourWindow(dir, clock).fsync(FsyncPolicy.NO).open();
    }

    /** Three generations of keys (seeds 1..3), one hour apart, then closed. */
    private List<byte[]> writeThreeGenerations() {
        List<byte[]> all = new ArrayList<>();
        try (ExactStore store = open()) {
            for (int g = 1; g <= 3; g++) {
                List<byte[]> keys = RandomKeys.of(PER_GENERATION, g);
                store.addAll(keys);
                all.addAll(keys);
                clock.advance(Duration.ofHours(1));
            }
            assertThat(store.metrics().generations()).isEqualTo(3);
            assertThat(store.metrics().filterBytes())
                    .as("about 2 bytes per key")
                    .isPositive();
        }
        return all;
    }

    /** What a crash leaves: no kept filters, so the next open reads every generation's keys back. */
    private void dropKeptFilters() throws IOException {
        try (Stream<Path> files = Files.list(dir.resolve(KeyFilterFiles.DIRECTORY))) {
            for (Path f : files.toList()) {
                Files.delete(f);
            }
        }
    }

    private List<Path> keptFilters() throws IOException {
        Path kept = dir.resolve(KeyFilterFiles.DIRECTORY);
        if (!Files.isDirectory(kept)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(kept)) {
            return files.sorted().toList();
        }
    }

    private static void awaitFilters(ExactStore store) throws InterruptedException {
        // The deadline only bounds a hang; nothing here asserts how fast the filters load.
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (store.metrics().filtersLoading() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(store.metrics().filtersLoading()).as("filters loaded").isZero();
    }

    @Test
    void aReopenedStoreAnswersExactlyWhileAndAfterItsFiltersLoad() throws Exception {
        List<byte[]> held = writeThreeGenerations();
        dropKeptFilters();
        List<byte[]> fresh = RandomKeys.of(PER_GENERATION, 99);
        try (ExactStore store = open()) {
            // Asked at once: the filters may still be loading, then RocksDB answers.
            assertThat(store.checkAll(held)).doesNotContain(false);
            assertThat(store.checkAll(fresh)).doesNotContain(true);
            awaitFilters(store);
            assertThat(store.checkAll(held)).doesNotContain(false);
            assertThat(store.checkAll(fresh)).doesNotContain(true);
            assertThat(store.metrics().filterBytes()).isPositive();
        }
    }

    /** The count is the filters' (which miss their false positives, under 0.1%): it survives what they survive. */
    @Test
    void theKeyCountSurvivesACleanReopenAndACrashAndFallsAsGenerationsAgeOut() throws Exception {
        writeThreeGenerations();
        long counted;
        try (ExactStore store = open()) {
            counted = store.stats().insertions();
            assertThat(counted).isCloseTo(3L * PER_GENERATION, within(180L));
        }
        dropKeptFilters(); // as a crash leaves it
        try (ExactStore store = open()) {
            awaitFilters(store);
            assertThat(store.stats().insertions()).isCloseTo(3L * PER_GENERATION, within(180L));
            clock.advance(Duration.ofHours(6)); // the first generation's successor is now 8 hours old
            store.maintain();
            assertThat(store.checkAll(RandomKeys.of(PER_GENERATION, 1)))
                    .as("aged out")
                    .doesNotContain(true);
            assertThat(store.stats().insertions()).isCloseTo(2L * PER_GENERATION, within(120L));
        }
        try (ExactStore store = open()) {
            assertThat(store.stats().insertions())
                    .as("after a clean close")
                    .isCloseTo(2L * PER_GENERATION, within(120L));
        }
        long before;
        try (ExactStore store = open()) {
            store.add(new byte[] {1, 2, 3});
            before = store.stats().insertions();
        }
        try (ExactStore again = open()) {
            assertThat(again.stats().insertions())
                    .as("exactly as before a clean close")
                    .isEqualTo(before);
        }
    }

    @Test
    void keysWrittenWhileTheFiltersLoadAreFoundAfterwards() throws Exception {
        writeThreeGenerations();
        dropKeptFilters();
        List<byte[]> during = RandomKeys.of(PER_GENERATION, 4);
        try (ExactStore store = open()) {
            store.addAll(during); // into the newest generation, which is being read back right now
            awaitFilters(store);
            assertThat(store.checkAll(during)).doesNotContain(false);
        }
    }

    @Test
    void closingOrAgeingOutWhileTheFiltersLoadLosesNothingElse() throws Exception {
        List<byte[]> held = writeThreeGenerations();
        dropKeptFilters();
        // closed at once, most likely while the loader still reads: it stops, nothing native is left open
        open().close();
        // Filters still loading at that close are not kept; those that were kept are dropped to load again.
        dropKeptFilters();
        List<byte[]> newest = held.subList(2 * PER_GENERATION, 3 * PER_GENERATION);
        try (ExactStore store = open()) {
            // Generations from 0 h, 1 h and 2 h, and one the reopen at 3 h started. At 10 h the two oldest pass out
            // of the 8-hour window at once, most likely while being read back, and a 10 h generation starts.
            clock.advance(Duration.ofHours(7));
            store.add(new byte[] {1});
            assertThat(store.metrics().generations()).isEqualTo(3);
            awaitFilters(store);
            assertThat(store.checkAll(newest)).doesNotContain(false);
            assertThat(store.checkAll(held.subList(0, 2 * PER_GENERATION))).doesNotContain(true);
        }
    }

    @Test
    void aCleanCloseKeepsTheFiltersAndTheNextOpenTakesThemBackWithoutReadingKeys() throws Exception {
        List<byte[]> held = writeThreeGenerations();
        assertThat(keptFilters()).hasSize(3);
        List<byte[]> fresh = RandomKeys.of(PER_GENERATION, 99);
        List<byte[]> later = RandomKeys.of(PER_GENERATION, 5);
        try (ExactStore store = open()) {
            assertThat(store.metrics().filtersLoading())
                    .as("restored complete, nothing to read back")
                    .isZero();
            // Taken before the first write: a crash from here on leaves no file that could miss newer keys.
            assertThat(keptFilters()).isEmpty();
            assertThat(store.checkAll(held)).doesNotContain(false);
            assertThat(store.checkAll(fresh)).doesNotContain(true);
            store.addAll(later); // into the newest generation, whose filter came from a file
            assertThat(store.checkAll(later)).doesNotContain(false);
        }
        assertThat(keptFilters()).hasSize(4); // the three, and the one the reopen at 3 h started
        try (ExactStore store = open()) {
            assertThat(store.metrics().filtersLoading()).isZero();
            assertThat(store.checkAll(later)).doesNotContain(false);
            assertThat(store.checkAll(held)).doesNotContain(false);
            assertThat(store.checkAll(fresh)).doesNotContain(true);
        }
    }

    @Test
    void damagedOrStrayFilterFilesAreIgnoredAndTheirGenerationsReadBack() throws Exception {
        List<byte[]> held = writeThreeGenerations();
        List<Path> kept = keptFilters();
        // A file whose bits were damaged: if it were used, about half of the first generation's keys would be lost.
        byte[] damaged = Files.readAllBytes(kept.get(0));
        for (int i = damaged.length / 4; i < damaged.length / 2; i++) {
            damaged[i] = 0;
        }
        Files.write(kept.get(0), damaged);
        // A valid file under the name of another generation, and a file of no generation at all.
        Files.copy(kept.get(2), kept.get(1), StandardCopyOption.REPLACE_EXISTING);
        Path stray = kept.get(0).resolveSibling("g000000000099-0" + KeyFilterFiles.SUFFIX);
        Files.copy(kept.get(2), stray);
        try (ExactStore store = open()) {
            assertThat(keptFilters()).isEmpty();
            assertThat(store.checkAll(held)).doesNotContain(false);
            awaitFilters(store);
            assertThat(store.checkAll(held)).doesNotContain(false);
            assertThat(store.checkAll(RandomKeys.of(PER_GENERATION, 99))).doesNotContain(true);
        }
    }
}
