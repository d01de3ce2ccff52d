package dev.deja.server;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** {@code deja serve} run as a separate JVM on the test class path, for tests that kill or signal it. */
final class ServerProcess implements AutoCloseable {

    /** The JVM options of the tests' servers: the heap of a small machine. */
    private static final List<String> TEST_JVM_OPTIONS = List.of("-Xmx512m");

    private final Process process;
    private final int httpPort;
    private final int respPort;
    private Thread reader;
    /** Everything the server printed; also the monitor that {@link #awaitOutput} waits on. */
    private final StringBuilder output = new StringBuilder();
    /** Whether the server's output has ended; guarded by {@link #output}. */
    private boolean ended;

    private ServerProcess(Process process, int httpPort, int respPort) {
        this.process = process;
        this.httpPort = httpPort;
        this.respPort = respPort;
    }

    /** Starts the server on a free HTTP port (RESP off) and waits until it says where it listens. */
    static ServerProcess start(Path dataDir, String... extraArgs) throws IOException, InterruptedException {
        return start(dataDir, Map.of(), extraArgs);
    }

    /** As {@link #start(Path, String...)}, with extra environment variables. */
    static ServerProcess start(Path dataDir, Map<String, String> environment, String... extraArgs)
            throws IOException, InterruptedException {
        return start(List.of(), dataDir, environment, extraArgs);
    }

    /**
     * As {@link #start(Path, String...)} on a full disk: no file may grow ({@code prlimit --fsize=1}, raised again
     * with {@link dev.deja.testing.FileSizeLimit}); the JVM keeps no performance-data file, which could not grow.
     */
    static ServerProcess startOnAFullDisk(Path dataDir, String... extraArgs) throws IOException, InterruptedException {
        return start(List.of("prlimit", "--fsize=1:"), dataDir, Map.of(), extraArgs);
    }

    private static ServerProcess start(
            List<String> wrapper, Path dataDir, Map<String, String> environment, String... extraArgs)
            throws IOException, InterruptedException {
        ServerProcess server = launch(wrapper, TEST_JVM_OPTIONS, dataDir, environment, /* resp= */ false, extraArgs);
        server.awaitOutput("HTTP on http://");
        return server;
    }

    /**
     * Starts the server with both front ends on free ports and the given JVM options (in place of the tests' own),
     * and waits until it says where it listens.
     */
    static ServerProcess startWithResp(List<String> jvmOptions, Path dataDir, String... extraArgs)
            throws IOException, InterruptedException {
        ServerProcess server = launch(List.of(), jvmOptions, dataDir, Map.of(), /* resp= */ true, extraArgs);
        server.awaitOutput("RESP on ");
        return server;
    }

    /** Starts the server as {@link #start(Path, String...)} does, without waiting for it to listen. */
    static ServerProcess launch(Path dataDir, String... extraArgs) throws IOException {
        return launch(List.of(), TEST_JVM_OPTIONS, dataDir, Map.of(), /* resp= */ false, extraArgs);
    }

    private static ServerProcess launch(
            List<String> wrapper,
            List<String> jvmOptions,
            Path dataDir,
            Map<String, String> environment,
            boolean resp,
            String... extraArgs)
            throws IOException {
        int port = freePort();
        int respPort = resp ? freePort() : -1;
        List<String> command = new ArrayList<>(wrapper);
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.addAll(List.of(
                "-XX:-UsePerfData",
                "--add-modules=jdk.incubator.vector",
                "-cp",
                System.getProperty("java.class.path"),
                "dev.deja.cli.Main",
                "serve",
                "--data-dir",
                dataDir.toString(),
                "--http-port",
                Integer.toString(port),
                "--resp-port",
                Integer.toString(resp ? respPort : 0)));
        command.addAll(List.of(extraArgs));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().putAll(environment);
        Process process = builder.start();
        ServerProcess server = new ServerProcess(process, port, respPort);
        Thread reader = new Thread(() -> {
            try (BufferedReader lines =
                    new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = lines.readLine()) != null) {
                    synchronized (server.output) {
                        server.output.append(line).append('\n');
                        server.output.notifyAll();
                    }
                }
            } catch (IOException e) {
                // the process was killed
            }
            synchronized (server.output) {
                server.ended = true;
                server.output.notifyAll();
            }
        });
        reader.setDaemon(true);
        reader.start();
        server.reader = reader;
        return server;
    }

    /**
     * Waits up to a minute for the server to print {@code text}; kills it and fails with what it printed when it
     * exits first or takes longer.
     */
    void awaitOutput(String text) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        synchronized (output) {
            while (output.indexOf(text) < 0) {
                long left = deadline - System.nanoTime();
                if (ended || left <= 0) {
                    process.destroyForcibly();
                    throw new IllegalStateException("server " + (ended ? "exited (" + exitStatus() + ")" : "is slow")
                            + " before printing '" + text + "':\n" + output);
                }
                TimeUnit.NANOSECONDS.timedWait(output, left);
            }
        }
    }

    private String exitStatus() throws InterruptedException {
        return process.waitFor(10, TimeUnit.SECONDS) ? "status " + process.exitValue() : "still running";
    }

    private static int freePort() throws IOException {
        try (ServerSocket probe = new ServerSocket(0)) {
            return probe.getLocalPort();
        }
    }

    /** Sends the server a signal by name, as {@code kill -USR1 <pid>} does. */
    void signal(String name) throws IOException, InterruptedException {
        int status = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid()))
                .inheritIO()
                .start()
                .waitFor();
        if (status != 0) {
            throw new IOException("kill -" + name + " " + process.pid() + " exited with " + status);
        }
    }

    long pid() {
        return process.pid();
    }

    int httpPort() {
        return httpPort;
    }

    /** The RESP port, or -1 when the server was started without RESP. */
    int respPort() {
        return respPort;
    }

    /** Whether the process is still running. */
    boolean isAlive() {
        return process.isAlive();
    }

    /** Waits up to {@code seconds} for the process to exit on its own; its exit status, or -1 if it is running. */
    int awaitExit(long seconds) throws InterruptedException {
        if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
            return -1;
        }
        reader.join(10_000); // everything it printed
        return process.exitValue();
    }

    /** Everything the server printed so far. */
    String output() {
        synchronized (output) {
            return output.toString();
        }
    }

    /** {@code kill -9}: no shutdown hook runs. */
    void kill() {
        process.destroyForcibly();
        try {
            process.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** SIGTERM, then waits for the exit; returns the exit code. */
    int terminate() throws InterruptedException {
        // through the handle: Process.destroy() would also close our end of its output, losing the last lines
        process.toHandle().destroy();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("server did not stop on SIGTERM:\n" + output());
        }
        reader.join(10_000); // everything it printed while stopping
        return process.exitValue();
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            kill();
        }
    }
}
