package dev.deja.bench.kafka;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The CPU time of a process's threads, summed by thread name with digits masked (so that the JIT compiler's threads
 * or the garbage collector's add up) and a Kafka Streams application's stream threads, whose names start with its
 * application id, under "stream threads", as Linux reports it in {@code /proc/PID/task}: where a worker's time goes,
 * beside its total. Empty where there is no {@code /proc}.
 */
final class ThreadCpu {

    /** Linux reports thread times in clock ticks of 10 ms (USER_HZ, fixed at 100 for user space). */
    private static final double MICROS_PER_TICK = 10_000;

    /** Linux keeps the first 15 bytes of a thread's name. */
    private static final int NAME_BYTES = 15;

    private ThreadCpu() {}

    /**
     * Clock ticks of user and system time per thread name, now, for a worker whose application id is {@code app};
     * threads that end while it is read are left out.
     */
    static Map<String, Long> snapshot(long pid, String app) {
        String streamThread = app.substring(0, Math.min(app.length(), NAME_BYTES));
        Map<String, Long> ticks = new TreeMap<>();
        Path tasks = Path.of("/proc", Long.toString(pid), "task");
        if (!Files.isDirectory(tasks)) {
            return ticks;
        }
        List<Path> threads;
        try (Stream<Path> list = Files.list(tasks)) {
            threads = list.toList();
        } catch (NoSuchFileException e) {
            return ticks; // the process has ended
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        for (Path thread : threads) {
            String stat;
            try {
                stat = Files.readString(thread.resolve("stat"));
            } catch (IOException e) {
                continue; // the thread has ended
            }
            // pid (name) state ppid ...: the name may hold spaces and parentheses, so it ends at the last ')';
            // utime and stime are the 12th and 13th fields after it
            int close = stat.lastIndexOf(')');
            String name = stat.substring(stat.indexOf('(') + 1, close);
            name = name.startsWith(streamThread) ? "stream threads" : name.replaceAll("[0-9]+", "#");
            String[] fields = stat.substring(close + 2).split(" ", -1);
            ticks.merge(name, Long.parseLong(fields[11]) + Long.parseLong(fields[12]), Long::sum);
        }
        return ticks;
    }

    /** A line of the microseconds per record each thread name took between two snapshots (those of 0.05 or more). */
    static String perRecord(String app, Map<String, Long> before, Map<String, Long> after, long records) {
        StringBuilder line = new StringBuilder("# " + app + " threads, CPU us per record:");
        after.forEach((name, ticks) -> {
            double us = (ticks - before.getOrDefault(name, 0L)) * MICROS_PER_TICK / records;
            if (us >= 0.05) {
                line.append(String.format(Locale.ROOT, " [%s] %.2f", name, us));
            }
        });
        return line.toString();
    }
}
