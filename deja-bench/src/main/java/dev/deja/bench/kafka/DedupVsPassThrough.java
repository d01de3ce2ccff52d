package dev.deja.bench.kafka;

import dev.deja.kafka.broker.EmbeddedBroker;
import dev.deja.kafka.broker.Topics;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * {@code deja kafka run} (exactly-once, ids in the 16-byte record keys), once with each store ({@code --store EXACT}
 * and {@code WINDOW}), against the same worker with {@code --pass-through} (the same application without the step),
 * on one in-process broker and one input topic, in rounds where each of the three leads in turn. Each worker is a child
 * JVM; its rate is taken from its committed input offsets, between 10% and 100% of the input, so that start-up is not
 * counted, and again over the second half alone, where the JIT compiler has had the first half to settle. Prints
 * each round, the medians of the per-round ratios of both rates, and each de-dup worker's state on disk per id held.
 * Over the same span it takes each worker's CPU time per record (and by thread name: stream threads, JIT compiler,
 * garbage collector, producer), and this JVM's, which holds the broker: on a machine the broker and the worker share,
 * the rates follow the CPU each spends per record. Each worker starts with the JVM options ./deja gives every command
 * ({@code bin/jvm.options}), so that it runs as it would from the launcher, and only once the broker is quiet
 * again after the previous one. A pass-through run before the first round warms the broker up and is not counted.
 *
 * <p>Arguments: records (1,000,000), rounds (5), partitions (4), duplicate share (0.05). The environment variable
 * {@code DEJA_BENCH_WORKER_FLAGS} adds JVM options to each worker after those, so that its {@code -Xmx} wins
 * ({@code {app}} in them is replaced by the worker's application id), for example a profiler agent writing one file
 * per worker.
 */
public final class DedupVsPassThrough {

    private static final String INPUT = "bench-in";
    private static final String PASS = "pass";
    /**
     * The de-dup worker's stores, each measured against the pass-through (worker option --store): both, or those
     * the environment variable {@code DEJA_BENCH_STORES} lists (comma-separated), as a profiling run may want.
     */
    private static final List<String> STORES = stores(System.getenv("DEJA_BENCH_STORES"));

    private static final List<String> MODES =
            Stream.concat(STORES.stream(), Stream.of(PASS)).toList();

    /** The JVM options ./deja starts every command with, so that each worker runs as the launcher runs it. */
    private static final Path JVM_OPTIONS = Path.of("bin", "jvm.options").toAbsolutePath();

    /** The share of one processor under which the broker's JVM counts as quiet before a worker starts. */
    private static final double QUIET_CPU_SHARE = 0.1;

    private DedupVsPassThrough() {}

    public static void main(String[] args) throws Exception {
        int records = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        int partitions = args.length > 2 ? Integer.parseInt(args[2]) : 4;
        double duplicateShare = args.length > 3 ? Double.parseDouble(args[3]) : 0.05;
        Path work = Files.createTempDirectory("deja-kafka-bench");
        try (EmbeddedBroker broker = EmbeddedBroker.start();
                Admin admin =
                        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
            Topics.create(admin, partitions, INPUT);
            long unique = produce(broker.bootstrapServers(), records, duplicateShare);
            System.out.printf(
                    Locale.ROOT,
                    "# records=%d unique=%d partitions=%d rounds=%d%n",
                    records,
                    unique,
                    partitions,
                    rounds);
            System.out.println(
                    "round,mode,records_per_s,second_half_records_per_s,state_bytes_per_id,worker_cpu_us_per_record,"
                            + "bench_jvm_cpu_us_per_record");
            Map<String, double[]> ratios = new HashMap<>();
            Map<String, double[]> secondHalfRatios = new HashMap<>();
            Map<String, double[]> bytesPerId = new HashMap<>();
            Map<String, double[]> cpuRatios = new HashMap<>();
            for (String store : STORES) {
                cpuRatios.put(store, new double[rounds]);
                ratios.put(store, new double[rounds]);
                secondHalfRatios.put(store, new double[rounds]);
                bytesPerId.put(store, new double[rounds]);
            }
            // Not counted: the broker's first transactional application runs while the broker's own JIT compiler is
            // still at work on its transaction paths, which would slow whichever worker led the first round.
            String warmUp = "bench-warm-up";
            Topics.create(admin, partitions, warmUp + "-out");
            double[] warm = runWorker(broker.bootstrapServers(), admin, warmUp, work.resolve(warmUp), PASS, records);
            System.out.printf(Locale.ROOT, "# warm-up (pass-through, not counted): %.0f records/s%n", warm[0]);
            delete(work.resolve(warmUp));
            for (int round = 0; round < rounds; round++) {
                Map<String, double[]> result = new HashMap<>();
                for (int i = 0; i < MODES.size(); i++) {
                    String mode = MODES.get((round + i) % MODES.size()); // each mode leads in turn
                    String app = "bench-" + mode + "-" + round;
                    Topics.create(admin, partitions, app + "-out");
                    Path data = work.resolve(app);
                    awaitQuietBroker();
                    double[] rates = runWorker(broker.bootstrapServers(), admin, app, data, mode, records);
                    double perId = mode.equals(PASS) ? 0 : size(data.resolve("state")) / (double) unique;
                    result.put(mode, new double[] {rates[0], rates[1], perId, rates[2], rates[3]});
                    System.out.printf(
                            Locale.ROOT,
                            "%d,%s,%.0f,%.0f,%.1f,%.2f,%.2f%n",
                            round,
                            mode,
                            rates[0],
                            rates[1],
                            perId,
                            rates[2],
                            rates[3]);
                    delete(data);
                }
                for (String store : STORES) {
                    ratios.get(store)[round] = result.get(store)[0] / result.get(PASS)[0];
                    secondHalfRatios.get(store)[round] = result.get(store)[1] / result.get(PASS)[1];
                    bytesPerId.get(store)[round] = result.get(store)[2];
                    cpuRatios.get(store)[round] = result.get(store)[3] / result.get(PASS)[3];
                }
            }
            for (String store : STORES) {
                System.out.printf(Locale.ROOT, "# ratios %s/pass: %s%n", store, Arrays.toString(ratios.get(store)));
                System.out.printf(
                        Locale.ROOT,
                        "# second-half ratios %s/pass: %s%n",
                        store,
                        Arrays.toString(secondHalfRatios.get(store)));
                System.out.printf(
                        Locale.ROOT,
                        "# %s: median ratio %.3f (second half %.3f); median state on disk per id %.1f bytes%n",
                        store,
                        median(ratios.get(store)),
                        median(secondHalfRatios.get(store)),
                        median(bytesPerId.get(store)));
                System.out.printf(
                        Locale.ROOT,
                        "# %s: worker CPU per record against the pass-through's, per round %s, median %.3f%n",
                        store,
                        Arrays.toString(cpuRatios.get(store)),
                        median(cpuRatios.get(store)));
            }
        } finally {
            delete(work);
        }
    }

    private static List<String> stores(String listed) {
        if (listed == null || listed.isBlank()) {
            return List.of("exact", "window");
        }
        List<String> stores = List.of(listed.trim().toLowerCase(Locale.ROOT).split("\\s*,\\s*"));
        if (!List.of("exact", "window").containsAll(stores)) {
            throw new IllegalArgumentException("DEJA_BENCH_STORES lists exact and/or window, not " + listed);
        }
        return stores;
    }

    /** Produces the records, 16-byte random ids as keys and a 100-byte value, {@code share} of them copies. */
    private static long produce(String bootstrap, int records, double share) {
        SplittableRandom random = new SplittableRandom(2026);
        List<byte[]> ids = new ArrayList<>();
        AtomicReference<Exception> failed = new AtomicReference<>();
        Map<String, Object> props = Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap,
                ProducerConfig.LINGER_MS_CONFIG,
                10,
                ProducerConfig.BATCH_SIZE_CONFIG,
                256 * 1024);
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < records; i++) {
                byte[] id;
                if (!ids.isEmpty() && random.nextDouble() < share) {
                    id = ids.get(random.nextInt(ids.size()));
                } else {
                    id = new byte[16];
                    random.nextBytes(id);
                    ids.add(id);
                }
                byte[] value = new byte[100];
                random.nextBytes(value);
                var unused = producer.send(new ProducerRecord<>(INPUT, id, value), (m, e) -> {
                    if (e != null) {
                        failed.compareAndSet(null, e);
                    }
                });
            }
            producer.flush();
        }
        if (failed.get() != null) {
            throw new IllegalStateException("the input was not written", failed.get());
        }
        return ids.size();
    }

    /**
     * Runs one worker until its committed offsets cover the input; its rates from 10% to 100% of it and from 50% to
     * 100%.
     */
    private static double[] runWorker(String bootstrap, Admin admin, String app, Path data, String mode, int records)
            throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(
                java,
                "@" + JVM_OPTIONS,
                "--enable-native-access=ALL-UNNAMED",
                "--sun-misc-unsafe-memory-access=allow",
                "-cp",
                System.getProperty("java.class.path"),
                "dev.deja.kafka.worker.KafkaMain",
                "run",
                "--bootstrap",
                bootstrap,
                "--input",
                INPUT,
                "--output",
                app + "-out",
                "--id",
                "key",
                "--window",
                "24h",
                "--guarantee",
                "exactly-once",
                "--application-id",
                app,
                "--data-dir",
                data.toString(),
                "--replication-factor",
                "1",
                "--standby-replicas",
                "0",
                "--http-port",
                "-1"));
        String flags = System.getenv("DEJA_BENCH_WORKER_FLAGS");
        if (flags != null && !flags.isBlank()) {
            command.addAll(2, List.of(flags.replace("{app}", app).trim().split("\\s+")));
        }
        if (mode.equals(PASS)) {
            command.add("--pass-through");
        } else {
            command.addAll(List.of("--store", mode.toUpperCase(Locale.ROOT)));
        }
        File log = Files.createDirectories(data).resolve("worker.log").toFile();
        Process worker = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log)
                .start();
        try {
            long t10 = 0;
            long t50 = 0;
            long workerCpu10 = 0;
            Map<String, Long> threads10 = Map.of();
            long brokerCpu10 = 0;
            while (true) {
                long committed = committed(admin, app);
                long now = System.nanoTime();
                if (t10 == 0 && committed >= records / 10) {
                    t10 = now;
                    workerCpu10 = cpuNanos(worker.toHandle());
                    threads10 = ThreadCpu.snapshot(worker.pid(), app);
                    brokerCpu10 = cpuNanos(ProcessHandle.current());
                }
                if (t50 == 0 && committed >= records / 2) {
                    t50 = now;
                }
                if (committed >= records) {
                    System.out.println(ThreadCpu.perRecord(
                            app, threads10, ThreadCpu.snapshot(worker.pid(), app), records - records / 10));
                    double measured = records - records / 10;
                    return new double[] {
                        measured / ((now - t10) / 1e9),
                        (records - records / 2) / ((now - t50) / 1e9),
                        (cpuNanos(worker.toHandle()) - workerCpu10) / 1e3 / measured,
                        (cpuNanos(ProcessHandle.current()) - brokerCpu10) / 1e3 / measured
                    };
                }
                if (!worker.isAlive()) {
                    throw new IllegalStateException("the worker exited; see " + log);
                }
                Thread.sleep(100);
            }
        } finally {
            worker.destroy(); // SIGTERM: a clean close, so its state is flushed before it is measured
            worker.waitFor();
        }
    }

    /**
     * Waits until this JVM, which holds the broker, uses less than {@value #QUIET_CPU_SHARE} of a processor over a
     * second (at most a minute): the previous worker's commits, its topics' log work and the input's production leave
     * the broker busy for a while after they end, and a worker started then would share the machine with that.
     */
    private static void awaitQuietBroker() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        while (System.nanoTime() < deadline) {
            long cpu = cpuNanos(ProcessHandle.current());
            long at = System.nanoTime();
            Thread.sleep(1_000);
            double share = (cpuNanos(ProcessHandle.current()) - cpu) / (double) (System.nanoTime() - at);
            if (share < QUIET_CPU_SHARE) {
                return;
            }
        }
        System.out.println("# the broker was still busy after a minute; starting the worker anyway");
    }

    /** The CPU time a process has used so far, user and system, in nanoseconds (0 where the system does not say). */
    private static long cpuNanos(ProcessHandle process) {
        return process.info().totalCpuDuration().map(Duration::toNanos).orElse(0L);
    }

    private static long committed(Admin admin, String app) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(app)
                .partitionsToOffsetAndMetadata()
                .get();
        return offsets.values().stream()
                .filter(o -> o != null)
                .mapToLong(OffsetAndMetadata::offset)
                .sum();
    }

    private static long size(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile)
                    .mapToLong(p -> p.toFile().length())
                    .sum();
        }
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private static void delete(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + dir, e);
        }
    }
}
