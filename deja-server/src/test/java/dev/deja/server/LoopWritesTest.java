package dev.deja.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.journal.FsyncPolicy;
import dev.deja.journal.JournaledSeenSet;
import dev.deja.journal.SnapshotCodec;
import dev.deja.recent.RecentFilter;
import dev.deja.seen.HashedSeenSet;
import dev.deja.seen.Verdict;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Under {@code everysec} the writes of every connection an event loop serves in one turn are journaled together,
 * and each is answered only once its record is in the journal file: a crash right after a reply loses nothing.
 */
class LoopWritesTest {

    private static final SnapshotCodec<HashedSeenSet> CODEC = new SnapshotCodec<>() {
        @Override
        public void write(HashedSeenSet content, OutputStream out) throws IOException {
            ((RecentFilter) content).writeTo(out);
        }

        @Override
        public HashedSeenSet read(InputStream in) throws IOException {
            return RecentFilter.readFrom(in);
        }
    };

    @Test
    void oneTurnsWritesAreWrittenOnceAndAnsweredOnlyThen(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("ns");
        try (JournaledSeenSet<HashedSeenSet> set = open(dir)) {
            LoopWrites writes = new LoopWrites();
            List<Runnable> loopTasks = new ArrayList<>();
            List<String> answered = new ArrayList<>();
            List<CompletableFuture<Verdict[]>> replies = new ArrayList<>();

            // two connections' batches in one turn of the loop
            writes.collect(() -> replies.add(set.checkThenAddAllAsync(keys("a", "b"), null)));
            assertThat(writes.thenRun(loopTasks::add, () -> answered.add("first")))
                    .isTrue();
            writes.collect(() -> replies.add(set.checkThenAddAllAsync(keys("c", "a"), null)));
            assertThat(writes.thenRun(loopTasks::add, () -> answered.add("second")))
                    .isTrue();

            assertThat(loopTasks).as("one write scheduled for the turn").hasSize(1);
            assertThat(replies).as("nothing durable before the turn's write").noneMatch(CompletableFuture::isDone);
            assertThat(answered).isEmpty();
            assertThat(recordsAfterCrash(dir, tmp.resolve("before"))).isZero();

            loopTasks.getFirst().run();
            assertThat(answered).containsExactly("first", "second");
            assertThat(replies).allMatch(CompletableFuture::isDone);
            assertThat(replies.get(1).get()).containsExactly(Verdict.NEW, Verdict.DUPLICATE);
            assertThat(recordsAfterCrash(dir, tmp.resolve("after")))
                    .as("a crash now loses nothing answered")
                    .isEqualTo(3);

            // a turn that journaled nothing answers at once
            writes.collect(() -> {});
            assertThat(writes.thenRun(loopTasks::add, () -> answered.add("third")))
                    .isFalse();
        }
    }

    private static List<byte[]> keys(String... keys) {
        List<byte[]> out = new ArrayList<>();
        for (String k : keys) {
            out.add(k.getBytes(StandardCharsets.UTF_8));
        }
        return out;
    }

    /** The records a kill -9 now would leave: a copy of the directory, recovered. */
    private static long recordsAfterCrash(Path dir, Path copy) throws IOException {
        try (JournaledSeenSet<HashedSeenSet> recovered = open(copy(dir, copy))) {
            return recovered.recovery().recordsReplayed();
        }
    }

    private static JournaledSeenSet<HashedSeenSet> open(Path dir) throws IOException {
        return JournaledSeenSet.builder(
                        dir, CODEC, () -> RecentFilter.builder().buckets(1024).build())
                .fsync(FsyncPolicy.EVERYSEC)
                .open();
    }

    private static Path copy(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                Path target = to.resolve(from.relativize(file).toString());
                if (Files.isDirectory(file)) {
                    Files.createDirectories(target);
                } else if (!file.getFileName().toString().endsWith(".lock")) {
                    Files.copy(file, target);
                }
            }
        }
        return to;
    }
}
