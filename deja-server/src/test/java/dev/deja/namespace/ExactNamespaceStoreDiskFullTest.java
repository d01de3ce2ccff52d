package dev.deja.namespace;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.journal.FsyncPolicy;
import dev.deja.testing.FileSizeLimit;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * An exact namespace whose write-ahead log could not be written writes again once the disk takes writes, logs the
 * failure once rather than every second, and closes without throwing.
 *
 * <p>A full disk needs root to make (a small tmpfs); a file-size limit does the same without ({@link FileSizeLimit}):
 * once the child process has opened its namespace (loading RocksDB's library writes a large file), the test lowers
 * the limit to 256 KiB, so the first append that takes the log past it fails, and RocksDB's log writer then refuses
 * every write after it, as after ENOSPC. The test then lifts the limit, as freeing the disk would.
 */
class ExactNamespaceStoreDiskFullTest {

    @TempDir
    Path dir;

    /**
     * The child, on an exact namespace in {@code args[0]}. {@code write} ({@code args[1]}): opens it ("READY"), waits
     * for a line on its input, writes batches until one fails ("FAILED"), then tries again every 200 ms until one
     * succeeds ("WRITING") or a minute passes, then closes it ("CLOSED"). {@code reopen}: writes 1,000 keys and
     * closes the namespace ("READY"), waits for a line, opens it again ("OPENED n", n of the keys found, or "NOT
     * OPENED"), writes once ("REFUSED message" or "WRITTEN"), then goes on as {@code write} from the retries.
     */
    public static void main(String[] args) throws Exception {
        Map<String, String> parameters = new ExactKind().parameters(Map.of("memtable", "1m", "blockCache", "1m"));
        Durability durability = new Durability(FsyncPolicy.EVERYSEC, Duration.ZERO);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        boolean reopen = args[1].equals("reopen");
        List<byte[]> first = batch(0, 1000);
        ExactNamespaceStore store = ExactNamespaceStore.open("full", parameters, Path.of(args[0]), durability);
        if (reopen) {
            store.checkThenAdd(first, null).join();
            store.close();
            System.out.println("READY");
            in.readLine();
            try {
                store = ExactNamespaceStore.open("full", parameters, Path.of(args[0]), durability);
            } catch (IOException e) {
                System.out.println("NOT OPENED " + e.getMessage());
                return;
            }
            boolean[] held = store.reader().checkAll(first);
            int found = 0;
            for (boolean h : held) {
                found += h ? 1 : 0;
            }
            System.out.println("OPENED " + found + (store.writesFailing() ? ", WRITES FAILING" : ""));
            try {
                store.checkThenAdd(batch(1000, 1001), null).join();
                System.out.println("WRITTEN");
            } catch (CompletionException e) {
                System.out.println("REFUSED " + e.getCause().getMessage());
            }
        } else if (args[1].equals("clear")) {
            store.checkThenAdd(first, null).join();
            System.out.println("READY");
            in.readLine();
            try {
                store.clear();
                System.out.println("CLEARED");
            } catch (IOException | RuntimeException e) {
                System.out.println("CLEAR FAILED " + e.getMessage());
            }
        } else {
            System.out.println("READY");
            in.readLine();
        }
        boolean failed = reopen || args[1].equals("clear");
        long next = 2000;
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        while (System.nanoTime() < deadline) {
            List<byte[]> batch = batch(next, next + 500);
            next += 500;
            try {
                store.checkThenAdd(batch, null).join();
                if (failed) {
                    System.out.println("WRITING" + (store.writesFailing() ? ", WRITES FAILING" : ""));
                    break;
                }
            } catch (CompletionException e) {
                if (!failed) {
                    failed = true;
                    System.out.println("FAILED " + e.getCause().getMessage());
                }
                Thread.sleep(200);
            }
        }
        if (!args[1].equals("write")) {
            int found = 0;
            for (boolean h : store.reader().checkAll(first)) {
                found += h ? 1 : 0;
            }
            System.out.println("KEPT " + found);
        }
        store.close();
        System.out.println("CLOSED");
    }

    private static List<byte[]> batch(long from, long to) {
        List<byte[]> keys = new ArrayList<>();
        for (long k = from; k < to; k++) {
            keys.add(ByteBuffer.allocate(16)
                    .putLong(k)
                    .putLong(k * 0x9E3779B97F4A7C15L)
                    .array());
        }
        return keys;
    }

    /** What a child printed, logged and exited with. */
    private record ChildRun(List<String> lines, String stderr, int exitCode) {}

    /**
     * Runs the child ({@link #main}) in {@code mode} on a namespace directory of its own: when it says READY, lowers
     * its file size limit to {@code limit} bytes and lets it go on; at the first line {@code lift} accepts, waits
     * {@code waitMillis} and lifts the limit, as freeing the disk would.
     */
    private ChildRun runChild(String mode, String limit, Predicate<String> lift, long waitMillis) throws Exception {
        Path log = dir.resolve("child.log");
        Path data = dir.resolve("ns");
        Files.createDirectories(data);
        Process child = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "--enable-native-access=ALL-UNNAMED",
                        "-XX:-UsePerfData",
                        "-cp",
                        System.getProperty("java.class.path"),
                        ExactNamespaceStoreDiskFullTest.class.getName(),
                        data.toString(),
                        mode)
                .redirectError(log.toFile())
                .start();
        List<String> lines = new ArrayList<>();
        boolean lifted = false;
        try (BufferedReader out =
                new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null) {
                lines.add(line);
                if (line.equals("READY")) {
                    FileSizeLimit.set(child.pid(), limit);
                    child.getOutputStream().write("GO\n".getBytes(StandardCharsets.US_ASCII));
                    child.getOutputStream().flush();
                } else if (!lifted && lift.test(line)) {
                    lifted = true;
                    Thread.sleep(waitMillis);
                    FileSizeLimit.set(child.pid(), "unlimited");
                }
            }
        } finally {
            child.destroyForcibly();
        }
        return new ChildRun(lines, Files.readString(log), child.waitFor());
    }

    @Test
    @Timeout(120)
    void writesResumeOnceTheLogCanBeWrittenAgain() throws Exception {
        // 256 KiB: the first appends that take the log past it fail; a few once-a-second syncs of the broken log
        // run before the limit is lifted
        ChildRun run = runChild("write", "262144", line -> line.startsWith("FAILED"), 3000);
        assertThat(run.exitCode())
                .as("child exit code; its log:%n%s", run.stderr())
                .isZero();
        assertThat(run.lines())
                .as("child output; its log:%n%s", run.stderr())
                .anyMatch(l -> l.startsWith("FAILED") && l.contains("File too large"))
                .contains("WRITING", "CLOSED");
        assertThat(run.stderr())
                .doesNotContain("could not sync its write-ahead log")
                .doesNotContain("Exception in thread");
        assertThat(run.stderr()
                        .lines()
                        .filter(l -> l.contains(" ERROR ") && l.contains("ExactStore"))
                        .count())
                .as("ERROR lines of the store:%n%s", run.stderr())
                .isEqualTo(1);
    }

    /**
     * A server restarted while its disk is full: RocksDB writes a new manifest and flushes its recovered log at every
     * open, so a writable open fails; the store is then opened read-only, answers reads, refuses writes with a clear
     * error, and is opened writable again once the disk takes writes.
     */
    @Test
    @Timeout(120)
    void anExactNamespaceOpensReadOnlyOnAFullDiskAndWritesOnceThereIsRoom() throws Exception {
        // 1 byte: no file can grow, so every write fails
        ChildRun run = runChild(
                "reopen",
                "1",
                line -> line.startsWith("REFUSED") || line.startsWith("WRITTEN") || line.startsWith("NOT"),
                1000);
        assertThat(run.exitCode())
                .as("child exit code; its log:%n%s", run.stderr())
                .isZero();
        assertThat(run.lines())
                .as("child output; its log:%n%s", run.stderr())
                .contains("OPENED 1000, WRITES FAILING", "WRITING", "KEPT 1000", "CLOSED")
                .anyMatch(l -> l.startsWith("REFUSED") && l.contains("read-only") && l.contains("File too large"));
        // (what it logged while no file could grow, this log included, is lost)
        assertThat(run.stderr())
                .contains("the disk takes writes again; reopening its store")
                .doesNotContain("Exception in thread");
    }

    /**
     * A clear on a full disk deletes the keys but cannot create the empty store (RocksDB writes files to create one):
     * the namespace does not stay closed, refusing every write until a restart; the store is created once the disk
     * takes writes.
     */
    @Test
    @Timeout(120)
    void anExactNamespaceClearedOnAFullDiskWritesOnceThereIsRoom() throws Exception {
        ChildRun run = runChild("clear", "1", line -> line.startsWith("CLEAR"), 1000);
        assertThat(run.exitCode())
                .as("child exit code; its log:%n%s", run.stderr())
                .isZero();
        assertThat(run.lines())
                .as("child output; its log:%n%s", run.stderr())
                .contains("CLEARED", "WRITING", "KEPT 0", "CLOSED");
        assertThat(run.stderr())
                .contains("creating the store a clear could not")
                .doesNotContain("Exception in thread");
    }
}
