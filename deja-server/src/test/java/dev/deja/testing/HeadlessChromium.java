package dev.deja.testing;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Debian's {@code chromium}, headless, loading a page and printing its DOM once its scripts have run for a few
 * seconds of virtual time. Each load uses a fresh profile under the given directory, so nothing is cached or
 * remembered between loads.
 */
public final class HeadlessChromium {

    /** The command, as Debian's package installs it (.ci/install-deps installs it when it is missing). */
    private static final String COMMAND = "chromium";

    private final Path workDir;
    private int loads;

    /** A browser whose profiles and logs go under {@code workDir} (a test's temporary directory). */
    public HeadlessChromium(Path workDir) {
        this.workDir = workDir;
    }

    /**
     * The DOM of {@code url} after its scripts ran for {@code virtualMillis} of virtual time (timers fire at once;
     * network requests are waited for).
     *
     * @throws AssertionError when chromium is not installed or fails
     */
    public String dumpDom(String url, int virtualMillis) throws IOException, InterruptedException {
        Path profile = Files.createDirectories(workDir.resolve("profile-" + ++loads));
        Path log = workDir.resolve("chromium-" + loads + ".log");
        Path dom = workDir.resolve("dom-" + loads + ".html");
        Process chromium;
        try {
            chromium = new ProcessBuilder(List.of(
                            COMMAND,
                            "--headless",
                            "--no-sandbox",
                            "--disable-gpu",
                            "--no-first-run",
                            "--user-data-dir=" + profile,
                            "--virtual-time-budget=" + virtualMillis,
                            "--dump-dom",
                            url))
                    .redirectOutput(dom.toFile())
                    .redirectError(log.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .start();
        } catch (IOException e) {
            throw new AssertionError(
                    "'" + COMMAND + "' cannot be started (" + e.getMessage() + "): this test needs Debian's chromium;"
                            + " run .ci/install-deps (apt-get install chromium) first",
                    e);
        }
        if (!chromium.waitFor(2, TimeUnit.MINUTES)) {
            chromium.destroyForcibly();
            throw new AssertionError("chromium did not finish loading " + url);
        }
        if (chromium.exitValue() != 0) {
            throw new AssertionError("chromium failed (exit " + chromium.exitValue() + ") on " + url + ":\n"
                    + Files.readString(log, StandardCharsets.UTF_8));
        }
        return Files.readString(dom, StandardCharsets.UTF_8);
    }
}
