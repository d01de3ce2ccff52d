package dev.deja.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.redis.testing.RedisServer;
import dev.deja.seen.Verdict;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RestartTest {

    private static List<byte[]> keys(String prefix, int from, int n) {
        List<byte[]> out = new ArrayList<>();
        for (int i = from; i < from + n; i++) {
            out.add((prefix + i).getBytes(StandardCharsets.UTF_8));
        }
        return out;
    }

    /**
     * Batches go on while Redis (appendfsync always) is killed and started again: a batch caught by the crash fails
     * naming the instance, and every key any batch answered NEW, before or after, is held afterwards. Without
     * timestamps every bucket is written by scripts; with them each batch has a time bucket of its own, so each
     * creates its buckets whole ({@code RESTORE}).
     */
    @ParameterizedTest(name = "timestamps: {0}")
    @ValueSource(booleans = {false, true})
    void aCrashInTheMiddleOfBatchesLosesNoKeyAnsweredNew(boolean withTimestamps) throws Exception {
        long start = System.currentTimeMillis();
        try (RedisServer redis = RedisServer.start("--appendonly", "yes", "--appendfsync", "always");
                RedisSeenSet seen = RedisSeenSet.builder()
                        .redis(redis.uri())
                        .window(Duration.ofMinutes(10))
                        .bucketTime(withTimestamps ? Duration.ofSeconds(1) : Duration.ofMinutes(1))
                        .slices(50)
                        .timeout(Duration.ofSeconds(2))
                        .build()) {
            List<byte[]> answeredNew = new ArrayList<>();
            List<Long> answeredNewAt = new ArrayList<>();
            List<String> failures = new CopyOnWriteArrayList<>();
            AtomicBoolean stop = new AtomicBoolean();
            AtomicInteger batches = new AtomicInteger();
            CompletableFuture<Void> load = CompletableFuture.runAsync(() -> {
                int successesAfterFailure = 0;
                for (int b = 0;
                        (!stop.get() || (!failures.isEmpty() && successesAfterFailure < 3)) && b < 10_000;
                        b++) {
                    List<byte[]> batch = keys("r-", b * 2000, 2000);
                    long[] owners = new long[batch.size()];
                    Arrays.fill(owners, b + 1);
                    long[] timestamps = new long[batch.size()];
                    Arrays.fill(timestamps, start + b * 1000L);
                    Verdict[] out;
                    try {
                        out = seen.checkThenAddAll(batch, owners, withTimestamps ? timestamps : null);
                        if (!failures.isEmpty()) {
                            successesAfterFailure++;
                        }
                    } catch (BatchFailedException e) {
                        failures.add(e.getMessage());
                        out = e.answered();
                    } catch (RedisStoreException e) { // the connection could not be opened while Redis restarts
                        failures.add(e.getMessage());
                        out = new Verdict[batch.size()];
                    }
                    for (int i = 0; i < out.length; i++) {
                        if (out[i] == Verdict.NEW) {
                            answeredNew.add(batch.get(i));
                            answeredNewAt.add(timestamps[i]);
                        }
                    }
                    batches.incrementAndGet();
                }
            });
            for (int crash = 0; crash < 5 && failures.isEmpty(); crash++) {
                int before = batches.get();
                while (batches.get() < before + 5 && !load.isDone()) {
                    Thread.sleep(10);
                }
                redis.crashAndRestart();
                Thread.sleep(200);
            }
            stop.set(true);
            load.get();
            assertThat(failures).isNotEmpty();
            assertThat(failures).allMatch(m -> m.contains("127.0.0.1:" + redis.port()));
            long[] at = answeredNewAt.stream().mapToLong(Long::longValue).toArray();
            assertThat(seen.checkAll(answeredNew, withTimestamps ? at : null))
                    .as("%d keys answered NEW", answeredNew.size())
                    .containsOnly(true);
        }
    }
}
