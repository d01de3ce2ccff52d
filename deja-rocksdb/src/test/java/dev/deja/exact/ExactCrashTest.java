package dev.deja.exact;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
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

    /** The child process: adds batches of keys forever, printing the number of keys acknowledged after each. */
    public static void main(String[] args) {
        try (ExactStore store = ExactStore.builder(Path.of(args[0])).window(Duration.ofHours(24))
                .fsync(FsyncPolicy.ALWAYS).memtableBytes(1 << 20).blockCacheBytes(1 << 20).open()) {
            for (long next = 0; ; next += BATCH) {
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

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void everyAcknowledgedKeySurvivesKillMinus9() throws Exception {
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                ExactCrashTest.class.getName(), dir.toString())
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        long acknowledged = 0;
        try (BufferedReader out = new BufferedReader(
                new InputStreamReader(child.getInputStream(), StandardCharsets.US_ASCII))) {
            String line;
            while (acknowledged < 20_000 && (line = out.readLine()) != null) {
                acknowledged = Long.parseLong(line.trim());
            }
            // SIGKILL on Linux, mid-load. Keys acknowledged after the last line read are not checked.
            child.destroyForcibly();
            child.waitFor();
        }
        assertThat(acknowledged).as("the child made progress before the kill").isGreaterThanOrEqualTo(20_000);
        try (ExactStore store = ExactStore.builder(dir).window(Duration.ofHours(24)).memtableBytes(1 << 20)
                .blockCacheBytes(1 << 20).open()) {
            List<byte[]> keys = new ArrayList<>();
            for (long i = 0; i < acknowledged; i++) {
                keys.add(key(i));
            }
            assertThat(store.checkAll(keys)).doesNotContain(false);
        }
    }
}
