package dev.deja.exact;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A store missing one of its files fails to open, naming it; it never opens empty and answers every key new. */
class ExactMissingFilesTest {

    private static final int KEYS = 20_000;

    @TempDir
    Path dir;

    private static byte[] key(long i) {
        return ByteBuffer.allocate(8).putLong(i * 0x9E3779B97F4A7C15L).array();
    }

    private ExactStore open() {
        return TestStores.dayWindow(dir).open();
    }

    /** Writes the keys into table files and closes the store. */
    private void writeKeys() {
        try (ExactStore store = open()) {
            List<byte[]> batch = new ArrayList<>();
            for (int i = 0; i < KEYS; i++) {
                batch.add(key(i));
            }
            store.addAll(batch);
            store.flush();
        }
    }

    private List<Path> files(String suffix) throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().endsWith(suffix)
                            || f.getFileName().toString().startsWith(suffix))
                    .toList();
        }
    }

    @Test
    void aStoreWithoutItsCurrentFileIsRefusedNotCreatedAfresh() throws Exception {
        writeKeys();
        Files.delete(dir.resolve("CURRENT"));
        assertThatThrownBy(this::open).hasMessageContaining(dir.toString()).hasMessageContaining("CURRENT");
        assertThat(files(".sst")).as("the table files are left as they were").isNotEmpty();
    }

    @Test
    void aStoreMissingATableFileIsRefused() throws Exception {
        writeKeys();
        List<Path> tables = files(".sst");
        assertThat(tables).isNotEmpty();
        Files.delete(tables.getFirst());
        assertThatThrownBy(this::open).hasMessageContaining(dir.toString());
    }

    @Test
    void aStoreMissingItsManifestIsRefused() throws Exception {
        writeKeys();
        for (Path m : files("MANIFEST-")) {
            Files.delete(m);
        }
        assertThatThrownBy(this::open).hasMessageContaining(dir.toString());
    }
}
