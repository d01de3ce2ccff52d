package dev.deja.journal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.cuckoo.CuckooFilter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cuckoo filter's journal records are not idempotent (an add inserts one more copy), so its snapshots capture a copy
 * at their journal position: recovery from any snapshot plus the journal after it holds each copy once.
 */
class CuckooSnapshotTest {

    @TempDir
    Path tmp;

    /** The filters recovery read from snapshots, newest last. */
    private final List<CuckooFilter> read = new CopyOnWriteArrayList<>();

    private volatile CountDownLatch writing = new CountDownLatch(0);
    private volatile CountDownLatch batchAdded = new CountDownLatch(0);

    private final SnapshotCodec<CuckooFilter> codec = new SnapshotCodec<>() {
        @Override
        public void write(CuckooFilter store, OutputStream out) throws IOException {
            // the snapshot's position is read: let the test add a batch before the store is written
            writing.countDown();
            try {
                batchAdded.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            store.writeTo(out);
        }

        @Override
        public CuckooFilter capture(CuckooFilter store) {
            return store.copy();
        }

        @Override
        public CuckooFilter read(InputStream in) throws IOException {
            CuckooFilter filter = CuckooFilter.readFrom(in);
            read.add(filter);
            return filter;
        }
    };

    private JournaledSeenSet.Builder<CuckooFilter> builder(Path dir) {
        return JournaledSeenSet.builder(dir, codec, () -> CuckooFilter.create(4096))
                .snapshotInterval(Duration.ZERO);
    }

    private static byte[] key(long i) {
        return ByteBuffer.allocate(8).putLong(i).array();
    }

    private static long[] copies(int n) {
        long[] owners = new long[n];
        Arrays.fill(owners, CuckooFilter.ANOTHER_COPY);
        return owners;
    }

    @Test
    void copiesAddedWhileSnapshotsAreWrittenAreRecoveredOnceEach() throws Exception {
        Path dir = tmp.resolve("live");
        int batches = 30;
        int interleaved = 0;
        try (JournaledSeenSet<CuckooFilter> set = builder(dir).open()) {
            for (int b = 0; b < batches; b++) {
                // the snapshot reads its position, then waits in the codec while this batch lands
                writing = new CountDownLatch(1);
                batchAdded = new CountDownLatch(1);
                CompletableFuture<Path> snapshot = set.snapshotNow();
                // The first finds nothing to write; a later one finds nothing either when the journal has not yet
                // counted the last batch's records: that batch then lands before the snapshot, not during it.
                if (b > 0 && writing.await(10, TimeUnit.SECONDS)) {
                    interleaved++;
                }
                List<byte[]> keys = new ArrayList<>();
                for (int k = 0; k < 200; k++) {
                    keys.add(key(k)); // each key added once per batch: copies pile up
                }
                set.checkThenAddAll(keys, copies(keys.size()));
                if (b % 5 == 0) {
                    set.forgetAll(List.of(key(0)), null);
                }
                batchAdded.countDown();
                snapshot.join();
            }
            assertThat(interleaved)
                    .as("batches added while a snapshot was being written")
                    .isPositive();
            Path crashed = Crash.copy(dir, tmp.resolve("crashed")); // the newest snapshot and the journal after it
            try (JournaledSeenSet<CuckooFilter> reopened = builder(crashed).open()) {
                assertThat(reopened.recovery().snapshot()).isPresent();
                assertThat(reopened.stats().insertions()).isEqualTo(200L * batches - batches / 5);
                CuckooFilter recovered = read.getLast();
                assertThat(recovered.count(key(0))).isEqualTo(batches - batches / 5);
                for (int k = 1; k < 200; k++) {
                    assertThat(recovered.count(key(k))).as("key %d", k).isEqualTo(batches);
                }
                assertThat(recovered.deletes()).isEqualTo(batches / 5);
            }
        }
    }
}
