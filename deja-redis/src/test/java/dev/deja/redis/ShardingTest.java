package dev.deja.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.deja.redis.testing.RedisServer;
import dev.deja.seen.Verdict;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ShardingTest {

    private static final long MINUTE = 60_000;

    private RedisServer a;
    private RedisServer b;
    private RedisServer c;

    @BeforeEach
    void start() {
        a = RedisServer.start();
        b = RedisServer.start();
        c = RedisServer.start();
    }

    @AfterEach
    void stop() {
        a.close();
        b.close();
        c.close();
    }

    private static List<byte[]> keys(String prefix, int n) {
        List<byte[]> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add((prefix + i).getBytes(StandardCharsets.UTF_8));
        }
        return out;
    }

    private static long[] all(int n, long value) {
        long[] out = new long[n];
        Arrays.fill(out, value);
        return out;
    }

    private static long keysIn(RedisServer server) {
        return Long.parseLong(server.cli("dbsize"));
    }

    @Test
    void bucketsSpreadOverEveryInstanceAndEveryKeyIsFoundAgain() {
        try (RedisSeenSet seen = RedisSeenSet.builder()
                .shards(Shards.standalone(a.uri(), b.uri(), c.uri()))
                .window(Duration.ofMinutes(10))
                .bucketTime(Duration.ofMinutes(1))
                .slices(30)
                .build()) {
            List<byte[]> keys = keys("spread-", 3000);
            long[] ts = all(keys.size(), System.currentTimeMillis());
            assertThat(seen.checkThenAddAll(keys, null, ts)).containsOnly(Verdict.NEW);
            assertThat(seen.checkThenAddAll(keys, null, ts)).containsOnly(Verdict.DUPLICATE);
            assertThat(keysIn(a)).isEqualTo(10);
            assertThat(keysIn(b)).isEqualTo(10);
            assertThat(keysIn(c)).isEqualTo(10);
        }
    }

    @Test
    void aCutOverKeepsTheHistoryOfThePreviousConfiguration() {
        long cutOver = (System.currentTimeMillis() / MINUTE) * MINUTE;
        long before = cutOver - 5 * MINUTE;
        long after = cutOver + MINUTE;
        AtomicLong now = new AtomicLong(before);
        List<byte[]> old = keys("old-", 2000);
        List<byte[]> fresh = keys("new-", 2000);

        // Until the cut-over, two instances hold everything.
        try (RedisSeenSet seen = RedisSeenSet.builder()
                .shards(Shards.standalone(a.uri(), b.uri()))
                .window(Duration.ofMinutes(10))
                .bucketTime(Duration.ofMinutes(1))
                .slices(30)
                .clock(() -> Instant.ofEpochMilli(now.get()))
                .build()) {
            assertThat(seen.checkThenAddAll(old, all(old.size(), 1), all(old.size(), before)))
                    .containsOnly(Verdict.NEW);
            assertThat(seen.checkThenAddAll(keys("untimed-", 100), null)).containsOnly(Verdict.NEW);
        }
        assertThat(keysIn(c)).isZero();

        // From the cut-over on, a third instance joins; buckets that started before it stay where they were.
        now.set(after);
        try (RedisSeenSet seen = RedisSeenSet.builder()
                .shards(Shards.standalone(a.uri(), b.uri(), c.uri()))
                .previous(Shards.standalone(a.uri(), b.uri()), Instant.ofEpochMilli(cutOver))
                .window(Duration.ofMinutes(10))
                .bucketTime(Duration.ofMinutes(1))
                .slices(30)
                .clock(() -> Instant.ofEpochMilli(now.get()))
                .build()) {
            assertThat(seen.checkThenAddAll(old, all(old.size(), 1), all(old.size(), before)))
                    .as("same messages again, same owners")
                    .containsOnly(Verdict.RETRY);
            assertThat(seen.checkThenAddAll(old, all(old.size(), 2), all(old.size(), before)))
                    .containsOnly(Verdict.DUPLICATE);
            assertThat(seen.checkThenAddAll(keys("untimed-", 100), null))
                    .as("a call without timestamp reads the earlier buckets in the previous configuration")
                    .containsOnly(Verdict.DUPLICATE);
            long cBefore = keysIn(c);
            assertThat(seen.checkThenAddAll(fresh, null, all(fresh.size(), after)))
                    .containsOnly(Verdict.NEW);
            assertThat(seen.checkThenAddAll(fresh, null, all(fresh.size(), after)))
                    .containsOnly(Verdict.DUPLICATE);
            assertThat(keysIn(c)).as("new buckets reach the new instance").isEqualTo(cBefore + 10);
            assertThat(seen.forgetAll(old, all(old.size(), 1))).containsOnly(true);
            assertThat(seen.checkAll(old)).containsOnly(false);
        }
    }

    @Test
    void aBatchThatFailsOnOneInstanceSaysWhichKeysWereRecorded() {
        try (RedisSeenSet seen = RedisSeenSet.builder()
                .shards(Shards.standalone(a.uri(), b.uri()))
                .window(Duration.ofMinutes(10))
                .bucketTime(Duration.ofMinutes(1))
                .slices(20)
                .timeout(Duration.ofSeconds(2))
                .build()) {
            List<byte[]> keys = keys("half-", 1000);
            long[] owners = all(keys.size(), 9);
            b.stop();
            BatchFailedException failed =
                    catchThrowableOfType(BatchFailedException.class, () -> seen.checkThenAddAll(keys, owners));
            assertThat(failed.failedInstances()).containsExactly("redis://127.0.0.1:" + b.port());
            assertThat(failed).hasMessageContaining("127.0.0.1:" + b.port());
            Verdict[] answered = failed.answered();
            List<byte[]> recorded = new ArrayList<>();
            List<byte[]> unknown = new ArrayList<>();
            for (int i = 0; i < answered.length; i++) {
                assertThat(answered[i]).isIn(Verdict.NEW, null);
                (answered[i] == null ? unknown : recorded).add(keys.get(i));
            }
            assertThat(recorded).isNotEmpty();
            assertThat(unknown).isNotEmpty();
            assertThat(seen.checkAll(recorded))
                    .as("every key answered is in Redis")
                    .containsOnly(true);

            b.restart();
            assertThat(seen.checkThenAddAll(unknown, all(unknown.size(), 9))).containsOnly(Verdict.NEW);
            assertThat(seen.checkThenAddAll(keys, owners))
                    .as("the whole batch sent again")
                    .containsOnly(Verdict.RETRY);
        }
    }
}
