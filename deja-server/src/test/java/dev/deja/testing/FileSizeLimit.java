package dev.deja.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A full disk for one child process, without root: {@code prlimit} lowers its soft {@code RLIMIT_FSIZE}, so a write
 * that would take a file past the limit fails (EFBIG, "File too large"; the JVM ignores SIGXFSZ), and raising it
 * again frees the "disk". prlimit is part of util-linux, which every Debian system has; without it a test fails
 * rather than being skipped, so that it is never counted without having run.
 */
public final class FileSizeLimit {

    private FileSizeLimit() {}

    /** Sets the soft limit, in bytes or {@code unlimited}, on the size of the files the process writes. */
    public static void set(long pid, String bytes) throws Exception {
        assertThat(onPath("prlimit"))
                .as("prlimit (util-linux) must be on the PATH")
                .isTrue();
        Process prlimit = new ProcessBuilder("prlimit", "--pid", Long.toString(pid), "--fsize=" + bytes + ":")
                .inheritIO()
                .start();
        assertThat(prlimit.waitFor()).as("prlimit exit code").isZero();
    }

    private static boolean onPath(String command) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator, -1)) {
            if (Files.isExecutable(Path.of(d, command))) {
                return true;
            }
        }
        return false;
    }
}
