package dev.deja.exact;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.journal.FsyncPolicy;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The write-ahead log as a crash leaves it: a torn last record is cut, but a record damaged before the tail stops
 * the open, never replaying up to it and answering the acknowledged keys after it as new.
 */
class ExactWalDamageTest {

    private static final int BATCHES = 10;
    private static final int BATCH = 100;

    @TempDir
    Path dir;

    private static byte[] key(long i) {
        return ByteBuffer.allocate(8).putLong(i * 0x9E3779B97F4A7C15L).array();
    }

    private static ExactStore open(Path d) {
        return TestStores.dayWindow(d)
                .fsync(FsyncPolicy.ALWAYS)
                .memtableBytes(4 << 20)
                .open();
    }

    /**
     * Writes batches of keys with each in the log and copies the store's files while it is open, as a crash would
     * leave them (the keys are in the log only); returns the copy's log.
     */
    private Path crashedCopy(Path copy) throws Exception {
        Path live = dir.resolve("live");
        try (ExactStore store = open(live)) {
            for (int b = 0; b < BATCHES; b++) {
                List<byte[]> batch = new ArrayList<>();
                for (int i = b * BATCH; i < (b + 1) * BATCH; i++) {
                    batch.add(key(i));
                }
                store.addAll(batch);
            }
            Files.createDirectories(copy);
            try (Stream<Path> files = Files.list(live)) {
                for (Path f : (Iterable<Path>) files::iterator) {
                    if (Files.isRegularFile(f) && !f.getFileName().toString().equals("LOCK")) {
                        Files.copy(f, copy.resolve(f.getFileName()));
                    }
                }
            }
        }
        try (Stream<Path> files = Files.list(copy)) {
            return files.filter(f -> f.toString().endsWith(".log"))
                    .max(Comparator.comparingLong(f -> f.toFile().length()))
                    .orElseThrow();
        }
    }

    private static int held(ExactStore store) {
        int held = 0;
        for (int i = 0; i < BATCHES * BATCH; i++) {
            held += store.check(key(i)) ? 1 : 0;
        }
        return held;
    }

    @Test
    void aRecordDamagedBeforeTheTailStopsTheOpenNamingTheCorruption() throws Exception {
        Path copy = dir.resolve("copy");
        Path wal = crashedCopy(copy);
        FileDamage.flipBytes(wal, Files.size(wal) / 2, 4);
        // Replaying up to the damage would open the store with half its keys, answered new.
        assertThatThrownBy(() -> open(copy).close())
                .isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining(copy.toString())
                .hasMessageContaining("orruption");
    }

    @Test
    void aTornLastRecordIsCutAndEveryEarlierKeyKept() throws Exception {
        Path copy = dir.resolve("copy");
        Path wal = crashedCopy(copy);
        try (FileChannel ch = FileChannel.open(wal, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ch.truncate(ch.size() - 10);
        }
        try (ExactStore store = open(copy)) {
            assertThat(held(store)).isEqualTo((BATCHES - 1) * BATCH);
        }
    }
}
