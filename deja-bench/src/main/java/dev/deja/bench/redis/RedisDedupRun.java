package dev.deja.bench.redis;

import dev.deja.redis.RedisSeenSet;
import dev.deja.seen.Verdict;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * De-duplication of random UUIDs on one Redis: {@link RedisSeenSet} (Tapjoy's design: binary ids in per-bucket
 * hashes, one Lua call per bucket per batch) beside the plain way, {@code SET <uuid> <owner> NX EX 86400} per id,
 * pipelined through the same Lettuce client in the same batches (without owners: {@code SET <uuid> 1 NX EX 86400}).
 * Each side reports its time, Redis's memory per id, Redis's CPU time per id ({@code INFO cpu}, user and system) and
 * this JVM's CPU time per id (the client: encoding, Lettuce's I/O threads, JIT and GC). Each round empties Redis
 * ({@code FLUSHALL}), loads
 * every id through one side and reads {@code used_memory} ({@code INFO memory}) before and after; the sides alternate,
 * the first swapped every other round. Owners are Kafka-style (partition 3, consecutive offsets from 81,418,110,694).
 *
 * <p>Usage: {@code java -cp deja-bench/target/benchmarks.jar dev.deja.bench.redis.RedisDedupRun --port P
 * [--keys 2000000] [--batch 500000] [--rounds 5] [--owners true|false] [--entries-per-bucket 100] [--id-bytes 16|8]};
 * {@code deja-bench/scripts/redis-dedup.sh} starts the Redis it measures.
 */
@Command(name = "redis-dedup", mixinStandardHelpOptions = true)
public final class RedisDedupRun implements Runnable {

    @Option(names = "--port", required = true, description = "the Redis to measure, on 127.0.0.1")
    private int port;

    @Option(names = "--keys", defaultValue = "2000000", description = "ids per round (default ${DEFAULT-VALUE})")
    private int keys;

    @Option(names = "--batch", defaultValue = "500000", description = "ids per batch (default ${DEFAULT-VALUE})")
    private int batch;

    @Option(names = "--rounds", defaultValue = "5", description = "rounds (default ${DEFAULT-VALUE})")
    private int rounds;

    @Option(
            names = "--entries-per-bucket",
            defaultValue = "100",
            description = "the seen-set's target entries per hash (default ${DEFAULT-VALUE})")
    private int entriesPerBucket;

    @Option(
            names = "--owners",
            defaultValue = "true",
            arity = "1",
            description = "record each id under a Kafka-style owner (default ${DEFAULT-VALUE}); false: no owner")
    private boolean owners;

    @Option(
            names = "--id-bytes",
            defaultValue = "16",
            description =
                    "bytes each id is stored under: 16 (exact) or 8 (64-bit fingerprint) (default ${DEFAULT-VALUE})")
    private int idBytes;

    private record Result(double seconds, double bytesPerId, double redisCpuMicrosPerId, double clientCpuMicrosPerId) {}

    public static void main(String[] args) {
        System.exit(new CommandLine(new RedisDedupRun()).execute(args));
    }

    @Override
    public void run() {
        RedisURI uri = RedisURI.create("127.0.0.1", port);
        RedisClient client = RedisClient.create(uri);
        try (StatefulRedisConnection<String, String> admin = client.connect()) {
            System.out.printf(
                    Locale.ROOT,
                    "keys=%d batch=%d rounds=%d owners=%b entries-per-bucket=%d id-bytes=%d"
                            + " hash-max-listpack-entries=%s%n",
                    keys,
                    batch,
                    rounds,
                    owners,
                    entriesPerBucket,
                    idBytes,
                    admin.sync().configGet("hash-max-listpack-entries").get("hash-max-listpack-entries"));
            List<Double> ratios = new ArrayList<>();
            for (int round = 0; round < rounds + 1; round++) {
                SplittableRandom random = new SplittableRandom(round);
                List<String> ids = new ArrayList<>(keys);
                for (int i = 0; i < keys; i++) {
                    ids.add(new UUID(random.nextLong(), random.nextLong()).toString());
                }
                boolean dejaFirst = round % 2 == 0;
                Result deja = null;
                Result plain = null;
                for (int side = 0; side < 2; side++) {
                    if ((side == 0) == dejaFirst) {
                        // A new client each time, as a consumer starting against an empty Redis: one kept across
                        // a FLUSHALL would still take the buckets it wrote before for existing ones.
                        try (RedisSeenSet seen = seenSet(uri)) {
                            deja = measure(admin, () -> dedupDeja(seen, ids));
                        }
                    } else {
                        plain = measure(admin, () -> dedupPlain(admin.async(), ids));
                    }
                }
                String label = round == 0 ? "warm-up" : "round " + round;
                System.out.printf(
                        Locale.ROOT,
                        "%s: deja %.3f s (%.0f ids/s, %.1f bytes/id, Redis CPU %.2f us/id, client CPU %.2f us/id)"
                                + "  SET NX EX %.3f s (%.0f ids/s, %.1f bytes/id, Redis CPU %.2f us/id, client CPU"
                                + " %.2f us/id)  rate ratio %.2fx%n",
                        label,
                        deja.seconds(),
                        keys / deja.seconds(),
                        deja.bytesPerId(),
                        deja.redisCpuMicrosPerId(),
                        deja.clientCpuMicrosPerId(),
                        plain.seconds(),
                        keys / plain.seconds(),
                        plain.bytesPerId(),
                        plain.redisCpuMicrosPerId(),
                        plain.clientCpuMicrosPerId(),
                        plain.seconds() / deja.seconds());
                if (round > 0) {
                    ratios.add(plain.seconds() / deja.seconds());
                }
            }
            double[] sorted =
                    ratios.stream().mapToDouble(Double::doubleValue).sorted().toArray();
            System.out.printf(Locale.ROOT, "median rate ratio deja / SET NX EX: %.2fx%n", sorted[sorted.length / 2]);
            admin.sync().flushall();
        } finally {
            client.shutdown();
        }
    }

    private RedisSeenSet seenSet(RedisURI uri) {
        return RedisSeenSet.builder()
                .redis(uri)
                .window(Duration.ofHours(24))
                .bucketTime(Duration.ofMinutes(1))
                .expectedKeysPerSecond(keys / 60)
                .entriesPerBucket(entriesPerBucket)
                .idBytes(idBytes)
                .timeout(Duration.ofSeconds(60))
                .build();
    }

    private Result measure(StatefulRedisConnection<String, String> admin, Runnable load) {
        admin.sync().flushall();
        // Each side starts with the garbage of the other collected, so that neither pays for the other's.
        System.gc();
        long before = usedMemory(admin);
        double cpuBefore = redisCpuSeconds(admin);
        long clientBefore = clientCpuNanos();
        long start = System.nanoTime();
        load.run();
        double seconds = (System.nanoTime() - start) / 1e9;
        long client = clientCpuNanos() - clientBefore;
        double cpu = redisCpuSeconds(admin) - cpuBefore;
        long after = usedMemory(admin);
        long held = admin.sync().dbsize();
        if (held == 0) {
            throw new IllegalStateException("nothing was stored");
        }
        return new Result(seconds, (double) (after - before) / keys, cpu * 1e6 / keys, client / 1e3 / keys);
    }

    private void dedupDeja(RedisSeenSet seen, List<String> ids) {
        long timestamp = System.currentTimeMillis();
        for (int from = 0; from < ids.size(); from += batch) {
            int n = Math.min(batch, ids.size() - from);
            List<byte[]> keysOfBatch = new ArrayList<>(n);
            long[] owners = new long[n];
            for (int i = 0; i < n; i++) {
                keysOfBatch.add(ids.get(from + i).getBytes(StandardCharsets.US_ASCII));
                owners[i] = this.owners ? owner(from + i) : 0;
            }
            long[] timestamps = new long[n];
            Arrays.fill(timestamps, timestamp);
            for (Verdict v : seen.checkThenAddAll(keysOfBatch, owners, timestamps)) {
                if (v != Verdict.NEW) {
                    throw new IllegalStateException("a random UUID answered " + v);
                }
            }
        }
    }

    private void dedupPlain(RedisAsyncCommands<String, String> redis, List<String> ids) {
        SetArgs nxEx = SetArgs.Builder.nx().ex(86_400);
        for (int from = 0; from < ids.size(); from += batch) {
            int n = Math.min(batch, ids.size() - from);
            List<RedisFuture<String>> replies = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                String value = owners ? "3," + (owner(from + i) & 0xFFFF_FFFF_FFFFL) : "1";
                replies.add(redis.set(ids.get(from + i), value, nxEx));
            }
            for (RedisFuture<String> reply : replies) {
                try {
                    if (!"OK".equals(reply.get(60, TimeUnit.SECONDS))) {
                        throw new IllegalStateException("a random UUID was already set");
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
        }
    }

    /** Partition 3, offsets counting up from 81,418,110,694, in Tapjoy's 2 + 6 bytes. */
    private static long owner(int i) {
        return (3L << 48) | (81_418_110_694L + i);
    }

    /** The CPU time Redis has used, user and system ({@code INFO cpu}). */
    private static double redisCpuSeconds(StatefulRedisConnection<String, String> admin) {
        double total = 0;
        for (String line : (Iterable<String>) admin.sync().info("cpu").lines()::iterator) {
            if (line.startsWith("used_cpu_user:") || line.startsWith("used_cpu_sys:")) {
                total +=
                        Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
            }
        }
        return total;
    }

    /** The CPU time this JVM has used, every thread (the client's encoding, Lettuce's I/O, the JIT, GC). */
    private static long clientCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    private static long usedMemory(StatefulRedisConnection<String, String> admin) {
        for (String line : (Iterable<String>) admin.sync().info("memory").lines()::iterator) {
            if (line.startsWith("used_memory:")) {
                return Long.parseLong(line.substring("used_memory:".length()).trim());
            }
        }
        throw new IllegalStateException("no used_memory in INFO memory");
    }
}
