package dev.deja.redis.testing;

import io.lettuce.core.RedisURI;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real {@code redis-server} process on a free loopback port, without persistence ({@code --save "" --appendonly no}),
 * its files in a temporary directory that {@link #close()} deletes. {@link #restart()} stops it and starts it again on
 * the same port, as an operator's restart would (empty, since nothing is persisted).
 */
public final class RedisServer implements AutoCloseable {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(10);

    private final Path dir;
    private final List<String> extraArgs;
    private final int port;
    private Process process;

    private RedisServer(Path dir, int port, List<String> extraArgs) {
        this.dir = dir;
        this.port = port;
        this.extraArgs = List.copyOf(extraArgs);
    }

    /** Starts a server; {@code extraArgs} are more {@code redis-server} options ({@code "--maxmemory", "1mb"}). */
    public static RedisServer start(String... extraArgs) {
        Path dir = tempDir();
        RedisServer server = new RedisServer(dir, freePort(), List.of(extraArgs));
        try {
            server.launch();
        } catch (RuntimeException e) {
            deleteTree(dir);
            throw e;
        }
        return server;
    }

    /** The loopback port it listens on. */
    public int port() {
        return port;
    }

    /** Where Lettuce connects to it. */
    public RedisURI uri() {
        return RedisURI.create("127.0.0.1", port);
    }

    /** Its working directory, deleted on {@link #close()}. */
    public Path dir() {
        return dir;
    }

    /** Runs {@code redis-cli} against it and returns what it printed, trimmed. */
    public String cli(String... args) {
        List<String> command = new ArrayList<>(List.of("redis-cli", "-h", "127.0.0.1", "-p", Integer.toString(port)));
        command.addAll(List.of(args));
        return Processes.output(command);
    }

    /**
     * A counter of a command in {@code INFO commandstats} ({@code calls}, {@code rejected_calls}, {@code
     * failed_calls}, ...), 0 before the command's first call.
     */
    public long commandStat(String command, String counter) {
        String prefix = "cmdstat_" + command + ":";
        for (String line : (Iterable<String>) cli("info", "commandstats").lines()::iterator) {
            if (line.startsWith(prefix)) {
                for (String field : line.substring(prefix.length()).split(",", -1)) {
                    if (field.startsWith(counter + "=")) {
                        return Long.parseLong(
                                field.substring(counter.length() + 1).trim());
                    }
                }
            }
        }
        return 0;
    }

    /** Stops the process (SIGTERM, then SIGKILL if it lingers) and waits for it. */
    public void stop() {
        if (process == null) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        process = null;
    }

    /** Stops the server and starts it again on the same port; without persistence its data is gone. */
    public void restart() {
        stop();
        launch();
    }

    /** Kills the server (SIGKILL, a crash) and starts it again on the same port, from what it had persisted. */
    public void crashAndRestart() {
        if (process != null) {
            try {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            process = null;
        }
        launch();
    }

    @Override
    public void close() {
        stop();
        deleteTree(dir);
    }

    private void launch() {
        List<String> command = new ArrayList<>(List.of(
                "redis-server",
                "--port",
                Integer.toString(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                dir.toString(),
                "--logfile",
                dir.resolve("redis.log").toString()));
        command.addAll(extraArgs);
        try {
            process = new ProcessBuilder(command)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot start redis-server (apt-get install -y redis-server, or .ci/install-deps)", e);
        }
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (!"PONG".equals(Processes.outputOrEmpty(pingCommand()))) {
            if (!process.isAlive() || System.nanoTime() > deadline) {
                stop();
                throw new IllegalStateException(
                        "redis-server on port " + port + " did not start; its log: " + dir.resolve("redis.log"));
            }
            Processes.pause(Duration.ofMillis(20));
        }
    }

    private List<String> pingCommand() {
        return List.of("redis-cli", "-h", "127.0.0.1", "-p", Integer.toString(port), "ping");
    }

    static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Path tempDir() {
        try {
            return Files.createTempDirectory("deja-redis-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void deleteTree(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
