package dev.deja.exact;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.journal.FsyncPolicy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A store built without RocksDB's write-ahead log: its writes are on disk once synced (memtables flushed to table
 * files) or closed, and a crash image taken before that lacks them.
 */
class ExactNoWalTest {

    @TempDir
    Path dir;

    @Test
    void writesAreOnDiskOnceSyncedOrClosedAndNotBefore() throws IOException {
        Path store = dir.resolve("store");
        Path crashImage = dir.resolve("crash-image");
        List<byte[]> synced = keys(0, 1_000);
        List<byte[]> unsynced = keys(1_000, 1_100);
        try (ExactStore s = open(store)) {
            s.addAll(synced);
            s.sync();
            s.addAll(unsynced);
            copy(store, crashImage); // the files as a crash would leave them: the store is still open
        }
        try (ExactStore s = open(crashImage)) {
            assertThat(s.checkAll(synced)).containsOnly(true);
            assertThat(s.checkAll(unsynced)).containsOnly(false);
        }
        try (ExactStore s = open(store)) {
            assertThat(s.checkAll(synced)).containsOnly(true);
            assertThat(s.checkAll(unsynced)).containsOnly(true);
        }
    }

    @Test
    void fsyncAlwaysNeedsTheLog() {
        ExactStoreBuilder builder = ExactStoreBuilder.at(dir.resolve("store"))
                .window(Duration.ofHours(1))
                .fsync(FsyncPolicy.ALWAYS)
                .writeAheadLog(/* writeAheadLog= */ false);
        assertThatThrownBy(builder::open).isInstanceOf(IllegalArgumentException.class);
    }

    private static ExactStore open(Path dir) {
        return TestStores.dayWindow(dir)
                .fsync(FsyncPolicy.NO)
                .writeAheadLog(/* writeAheadLog= */ false)
                .open();
    }

    private static List<byte[]> keys(long from, long to) {
        List<byte[]> keys = new ArrayList<>();
        for (long i = from; i < to; i++) {
            keys.add(ByteBuffer.allocate(8).putLong(i).array());
        }
        return keys;
    }

    private static void copy(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            files.forEach(f -> {
                try {
                    Files.copy(f, to.resolve(from.relativize(f).toString()));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }
}
