package dev.deja.exact;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.journal.FsyncPolicy;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A process killed with SIGKILL mid-load loses nothing it acknowledged: each batch is in the WAL first. */
class ExactCrashTest {

    private static final int BATCH = 500;

    @TempDir
    Path dir;

    private static byte[] key(long i) {
        return ByteBuffer.allocate(8).putLong(i).array();
    }

    /**
     * The child process: opens the store in {@code args[0]} and adds batches of keys forever, from key
     * {@code args[1]} on (default 0), printing the number of keys acknowledged (the next key to add) after each.
     */
    public static void main(String[] args) {
        long first = args.length > 1 ? Long.parseLong(args[1]) : 0;
        try (ExactStore store = open(Path.of(args[0]), FsyncPolicy.ALWAYS)) {
            for (long next = first; ; next += BATCH) {
                List<byte[]> batch = new ArrayList<>(BATCH);
                for (int i = 0; i < BATCH; i++) {
                    batch.add(key(next + i));
                }
                store.addAll(batch);
                System.out.println(next + BATCH);
                System.out.flush();
            }
        }
    }

    private static ExactStore open(Path dir, FsyncPolicy fsync) {
        return TestStores.dayWindow(dir).fsync(fsync).open();
    }

    private static List<byte[]> keys(long from, long to) {
        List<byte[]> keys = new ArrayList<>();
        for (long i = from; i < to; i++) {
            keys.add(key(i));
        }
        return keys;
    }

    /** Runs the child from key {@code first}, kills it with SIGKILL mid-load and returns the keys it acknowledged. */
    private long runChildAndKill(long first) throws Exception {
        Process child = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "--enable-native-access=ALL-UNNAMED",
                        "-cp",
                        System.getProperty("java.class.path"),
                        ExactCrashTest.class.getName(),
                        dir.toString(),
                        Long.toString(first))
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        long acknowledged = first;
        try (BufferedReader out =
                new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.US_ASCII))) {
            String line;
            while (acknowledged < first + 20_000 && (line = out.readLine()) != null) {
                acknowledged = Long.parseLong(line.trim());
            }
            // SIGKILL on Linux, mid-load. Keys acknowledged after the last line read are not checked.
            child.destroyForcibly();
            child.waitFor();
        }
        assertThat(acknowledged).as("the child made progress before the kill").isGreaterThanOrEqualTo(first + 20_000);
        return acknowledged;
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void everyAcknowledgedKeySurvivesKillMinus9() throws Exception {
        long acknowledged = runChildAndKill(0);
        try (ExactStore store = open(dir, FsyncPolicy.EVERYSEC)) {
            assertThat(store.checkAll(keys(0, acknowledged))).doesNotContain(false);
        }
    }

    /**
     * A clean close keeps the key filters in files ({@link KeyFilterFiles}); the next open must take them before it
     * writes, or a crash after more writes would leave a file that lacks those keys for the open after it.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void keysWrittenAfterARestartFromKeptFiltersSurviveKillMinus9() throws Exception {
        try (ExactStore store = open(dir, FsyncPolicy.EVERYSEC)) {
            store.addAll(keys(0, 10_000));
        }
        Path kept = dir.resolve(KeyFilterFiles.DIRECTORY);
        try (Stream<Path> files = Files.list(kept)) {
            assertThat(files.count()).as("filters kept by the clean close").isEqualTo(1);
        }
        long acknowledged = runChildAndKill(10_000);
        try (Stream<Path> files = Files.list(kept)) {
            assertThat(files.count())
                    .as("taken by the child's open, none written by its kill")
                    .isZero();
        }
        try (ExactStore store = open(dir, FsyncPolicy.EVERYSEC)) {
            assertThat(store.checkAll(keys(0, acknowledged))).doesNotContain(false);
        }
    }
}
