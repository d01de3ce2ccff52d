package dev.deja.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.redis.queue.ClaimedTask;
import dev.deja.redis.queue.FailOutcome;
import dev.deja.redis.queue.RetryQueue;
import dev.deja.redis.queue.Task;
import dev.deja.redis.testing.RedisClusterNodes;
import dev.deja.redis.testing.RedisServer;
import dev.deja.seen.Verdict;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class ClusterTest {

    private static RedisClusterNodes cluster;

    @BeforeAll
    static void start() {
        cluster = RedisClusterNodes.start();
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    @Test
    void aThreeNodeClusterHoldsEachBucketInOneSlot() {
        try (RedisSeenSet seen = RedisSeenSet.builder()
                .shards(Shards.cluster(cluster.uris()))
                .window(Duration.ofMinutes(10))
                .bucketTime(Duration.ofMinutes(2))
                .slices(64)
                .build()) {
            List<byte[]> keys = new ArrayList<>();
            long[] owners = new long[5000];
            for (int i = 0; i < 5000; i++) {
                keys.add(("cluster-" + i).getBytes(StandardCharsets.UTF_8));
                owners[i] = i + 1L;
            }
            assertThat(seen.checkThenAddAll(keys, owners)).containsOnly(Verdict.NEW);
            assertThat(seen.checkThenAddAll(keys, owners)).containsOnly(Verdict.RETRY);
            assertThat(seen.checkThenAddAll(keys, null)).containsOnly(Verdict.DUPLICATE);
            assertThat(seen.forgetAll(keys.subList(0, 100), Arrays.copyOf(owners, 100)))
                    .containsOnly(true);
            assertThat(seen.checkAll(keys.subList(0, 101))).containsOnlyOnce(true);
            for (RedisServer node : cluster.nodes()) {
                assertThat(Long.parseLong(node.cli("dbsize")))
                        .as("node %d", node.port())
                        .isPositive();
            }
            assertThat(seen.stats().memoryBytes()).isPositive();
        }
    }

    @Test
    void bucketsCreatedWholeOnTheClusterAreFoundByEveryClient() {
        List<byte[]> keys = new ArrayList<>();
        long[] owners = new long[3000];
        long[] timestamps = new long[3000];
        for (int i = 0; i < 3000; i++) {
            keys.add(("whole-" + i).getBytes(StandardCharsets.UTF_8));
            owners[i] = i + 1L;
        }
        Arrays.fill(timestamps, System.currentTimeMillis());
        try (RedisSeenSet first = wholeBuckets();
                RedisSeenSet second = wholeBuckets()) {
            assertThat(first.checkThenAddAll(keys, owners, timestamps)).containsOnly(Verdict.NEW);
            assertThat(second.checkThenAddAll(keys, owners, timestamps))
                    .as("a client that did not create the buckets")
                    .containsOnly(Verdict.RETRY);
            assertThat(first.checkThenAddAll(keys, null, timestamps)).containsOnly(Verdict.DUPLICATE);
        }
        long restores = 0;
        for (RedisServer node : cluster.nodes()) {
            long calls = node.commandStat("restore", "calls");
            assertThat(calls).as("node %d", node.port()).isPositive();
            restores += calls;
        }
        assertThat(restores)
                .as("one per bucket by each client: created, then refused")
                .isEqualTo(2 * 32);
    }

    private static RedisSeenSet wholeBuckets() {
        return RedisSeenSet.builder()
                .shards(Shards.cluster(cluster.uris()))
                .prefix("whole")
                .window(Duration.ofMinutes(10))
                .bucketTime(Duration.ofMinutes(2))
                .slices(32)
                .build();
    }

    @Test
    void theRetryQueueLivesInTheSlotOfItsName() {
        try (RetryQueue q = RetryQueue.builder()
                .cluster(cluster.uris())
                .name("cluster-queue")
                .visibilityTimeout(Duration.ofMillis(200))
                .pollInterval(Duration.ofMillis(20))
                .build()) {
            assertThat(q.enqueue(Task.of("c1", "p"))).isTrue();
            ClaimedTask claimed = q.claim(5).get(0);
            assertThat(q.fail(claimed, "no")).isEqualTo(FailOutcome.RETRY_SCHEDULED);
            assertThat(q.counts()).isEqualTo(new RetryQueue.Counts(1, 0, 0));
        }
    }
}
