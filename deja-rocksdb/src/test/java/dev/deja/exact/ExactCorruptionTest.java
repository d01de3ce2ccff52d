package dev.deja.exact;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.journal.FsyncPolicy;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A table file damaged on disk makes lookups fail; it never makes an acknowledged key read as new. */
class ExactCorruptionTest {

    private static final int KEYS = 60_000;

    @TempDir
    Path dir;

    private static byte[] key(long i) {
        return ByteBuffer.allocate(8).putLong(i * 0x9E3779B97F4A7C15L).array();
    }

    private ExactStore open() {
        return TestStores.dayWindow(dir).fsync(FsyncPolicy.EVERYSEC).open();
    }

    /**
     * Writes the keys, closes (flushing them into table files) and flips bytes in a data block of each large table
     * file.
     */
    private void writeAndCorrupt() throws Exception {
        try (ExactStore store = open()) {
            for (int from = 0; from < KEYS; from += 1000) {
                List<byte[]> batch = new ArrayList<>();
                for (int i = from; i < from + 1000; i++) {
                    batch.add(key(i));
                }
                store.addAll(batch);
            }
            store.flush();
        }
        List<Path> tables;
        try (Stream<Path> files = Files.list(dir)) {
            // the big ones: data blocks at a third of their length (small ones hold metadata read at open)
            tables = files.filter(f -> f.getFileName().toString().endsWith(".sst")
                            && f.toFile().length() > 100_000)
                    .toList();
        }
        assertThat(tables).isNotEmpty();
        for (Path table : tables) {
            FileDamage.flipBytes(table, Files.size(table) / 3, 16);
        }
    }

    @Test
    void aKeyInACorruptBlockIsAnErrorNeverNew() throws Exception {
        writeAndCorrupt();
        try (ExactStore store = open()) {
            int failed = 0;
            for (int i = 0; i < KEYS; i++) {
                byte[] k = key(i);
                try {
                    assertThat(store.check(k)).as("key %d", i).isTrue();
                } catch (UncheckedIOException e) {
                    assertThat(e).isInstanceOf(StoreReadException.class);
                    assertThat(e.getMessage()).containsIgnoringCase("corrupt");
                    failed++;
                    assertThatThrownBy(() -> store.checkThenAdd(k, dev.deja.seen.SeenSet.NO_OWNER))
                            .isInstanceOf(UncheckedIOException.class);
                    assertThatThrownBy(() -> store.forget(k, dev.deja.seen.SeenSet.NO_OWNER))
                            .isInstanceOf(UncheckedIOException.class);
                }
            }
            assertThat(failed).as("keys in the damaged blocks").isPositive();
        }
    }

    @Test
    void batchesFailToo() throws Exception {
        writeAndCorrupt();
        try (ExactStore store = open()) {
            List<byte[]> all = new ArrayList<>();
            for (int i = 0; i < KEYS; i++) {
                all.add(key(i));
            }
            assertThatThrownBy(() -> store.checkAll(all))
                    .isInstanceOf(StoreReadException.class)
                    .hasMessageContaining("orrupt");
            assertThatThrownBy(() -> store.checkThenAddAll(all, null)).isInstanceOf(UncheckedIOException.class);
        }
    }
}
