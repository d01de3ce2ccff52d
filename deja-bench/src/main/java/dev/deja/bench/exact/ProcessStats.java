package dev.deja.bench.exact;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/** What the load driver reads of its own process on Linux: CPU time, in all and by kind of thread, and memory. */
final class ProcessStats {

    /** Linux's clock ticks per second (USER_HZ), the unit of /proc's per-thread CPU times. */
    static final double TICKS_PER_SECOND = 100;

    private ProcessStats() {}

    /**
     * CPU ticks (user + system) of the live threads, grouped by what they do: the driver's calls, RocksDB's
     * flushes ({@code rocksdb:high}) and compactions ({@code rocksdb:low}), and the rest (JIT, GC, the store's own
     * background threads). Threads that ended are missing, so read it while the phase's threads live.
     */
    static Map<String, Long> threadCpuTicks() throws IOException {
        Map<String, Long> ticks = new TreeMap<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                String stat;
                try {
                    stat = Files.readString(task.resolve("stat"));
                } catch (IOException e) {
                    continue; // the thread ended meanwhile
                }
                String comm = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ", -1);
                String group = comm.startsWith("rocksdb:low")
                        ? "compaction"
                        : comm.startsWith("rocksdb:high") ? "flush" : comm.startsWith("pool-") ? "callers" : "other";
                // Fields 14 and 15 of stat (utime, stime) are at 11 and 12 counting from field 3, the first after ") ".
                ticks.merge(group, Long.parseLong(f[11]) + Long.parseLong(f[12]), Long::sum);
            }
        }
        return ticks;
    }

    /** CPU time of the whole process, every thread included. */
    static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /** The resident memory now and at its peak, as /proc/self/status says them. */
    static String rss() throws IOException {
        StringBuilder out = new StringBuilder();
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS") || line.startsWith("VmHWM")) {
                out.append(line.replaceAll("\\s+", " ")).append("; ");
            }
        }
        return out.toString().trim();
    }
}
