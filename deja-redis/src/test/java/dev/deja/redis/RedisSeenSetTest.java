package dev.deja.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.redis.testing.RedisServer;
import dev.deja.redis.testing.RedisServerExtension;
import dev.deja.seen.Guarantee;
import dev.deja.seen.SeenSet;
import dev.deja.seen.Verdict;
import io.lettuce.core.RedisURI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The seen set on one Redis server: owners telling a retry from a duplicate, forgetting, batches across time buckets,
 * how entries are stored and expire, the errors when the server is gone or slow, scripts loaded again after a flush,
 * and what the store declares about itself.
 */
class RedisSeenSetTest {

    private static final String HEX_OF_FIRST_ENTRY = "local e = redis.call('HGETALL', KEYS[1]) local out = {}"
            + " for i = 1, 2 do out[i] = string.format(string.rep('%02x', #e[i]), string.byte(e[i], 1, -1)) end"
            + " return out";

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static RedisSeenSet store(String prefix) {
        return TestSeenSets.minuteBuckets(redis.uri(), prefix, Duration.ofMinutes(10))
                .slices(8)
                .build();
    }

    @Test
    void sameOwnerIsARetryAnotherOwnerADuplicate() {
        try (RedisSeenSet seen = store("owners")) {
            assertThat(seen.checkThenAdd("order-17", 4711)).isEqualTo(Verdict.NEW);
            assertThat(seen.checkThenAdd("order-17", 4711)).isEqualTo(Verdict.RETRY);
            assertThat(seen.checkThenAdd("order-17", 4712)).isEqualTo(Verdict.DUPLICATE);
            assertThat(seen.checkThenAdd("order-17")).isEqualTo(Verdict.DUPLICATE);
            assertThat(seen.check("order-17")).isTrue();
            assertThat(seen.check("order-18")).isFalse();

            assertThat(seen.checkThenAdd("order-18")).isEqualTo(Verdict.NEW);
            assertThat(seen.checkThenAdd("order-18"))
                    .as("no owner never retries")
                    .isEqualTo(Verdict.DUPLICATE);
        }
    }

    @Test
    void forgetErasesOnlyItsOwnEntry() {
        try (RedisSeenSet seen = store("forget")) {
            seen.add("a", 1);
            assertThat(seen.forget("a", 2)).isFalse();
            assertThat(seen.check("a")).isTrue();
            assertThat(seen.forget("a", 1)).isTrue();
            assertThat(seen.check("a")).isFalse();
            assertThat(seen.checkThenAdd("a", 2))
                    .as("delivered again after a failure")
                    .isEqualTo(Verdict.NEW);
            assertThat(seen.forget("a")).as("no owner erases whoever holds it").isTrue();
            assertThat(seen.forget("a")).isFalse();
        }
    }

    @Test
    void batchAnswersInOrderAsSingleCallsWould() {
        try (RedisSeenSet seen = store("batch")) {
            List<byte[]> keys = new ArrayList<>();
            for (int i = 0; i < 3000; i++) {
                keys.add(("k" + (i % 2000)).getBytes(StandardCharsets.UTF_8));
            }
            long[] owners = new long[keys.size()];
            for (int i = 0; i < owners.length; i++) {
                owners[i] = i < 2500 ? 7 : 8;
            }
            Verdict[] first = seen.checkThenAddAll(keys, owners);
            for (int i = 0; i < first.length; i++) {
                Verdict expected = i < 2000 ? Verdict.NEW : i < 2500 ? Verdict.RETRY : Verdict.DUPLICATE;
                assertThat(first[i]).as("key %d", i).isEqualTo(expected);
            }
            assertThat(seen.checkAll(keys)).containsOnly(true);
            assertThat(seen.forgetAll(keys.subList(0, 10), null)).containsOnly(true);
            assertThat(seen.checkAll(keys.subList(0, 11)))
                    .containsExactly(false, false, false, false, false, false, false, false, false, false, true);
            assertThat(seen.stats().insertions()).isEqualTo(2000);
        }
    }

    @Test
    void aBatchOverSeveralTimeBucketsAnswersEachKeyInItsOwnBucket() {
        try (RedisSeenSet seen = TestSeenSets.minuteBuckets(redis.uri(), "spread", Duration.ofMinutes(10))
                .slices(1)
                .build()) {
            long minute = System.currentTimeMillis() / 60_000 * 60_000;
            Random random = new Random(38);
            List<byte[]> keys = new ArrayList<>();
            long[] owners = new long[5000];
            long[] timestamps = new long[5000];
            for (int i = 0; i < 5000; i++) {
                keys.add(("s" + random.nextInt(1500)).getBytes(StandardCharsets.UTF_8));
                owners[i] = random.nextInt(3); // 0: no owner
                timestamps[i] = minute - random.nextInt(3) * 60_000L + random.nextInt(60_000);
            }
            // A key with a timestamp is looked for in its timestamp's bucket only, and held there by its first
            // occurrence: the answers a map of (key, bucket) to the first owner gives.
            Map<String, Long> held = new HashMap<>();
            for (int round = 0; round < 2; round++) {
                Verdict[] answers = seen.checkThenAddAll(keys, owners, timestamps);
                for (int i = 0; i < answers.length; i++) {
                    String place = new String(keys.get(i), StandardCharsets.UTF_8) + "@" + timestamps[i] / 60_000;
                    Long first = held.putIfAbsent(place, owners[i]);
                    Verdict expected = first == null
                            ? Verdict.NEW
                            : first == owners[i] && first != 0 ? Verdict.RETRY : Verdict.DUPLICATE;
                    assertThat(answers[i])
                            .as("round %d, key %d (%s)", round, i, place)
                            .isEqualTo(expected);
                }
            }
            assertThat(Arrays.stream(timestamps).filter(t -> t / 60_000 == minute / 60_000))
                    .as("a bucket's keys are more than one call carries")
                    .hasSizeGreaterThan(BucketBatch.MAX_KEYS_PER_CALL);
            assertThat(seen.stats().insertions()).isEqualTo(held.size());
        }
    }

    @Test
    void uuidsAreStoredAsSixteenBytesInCompactHashesThatExpire() {
        try (RedisSeenSet seen = TestSeenSets.minuteBuckets(redis.uri(), "layout", Duration.ofHours(1))
                .slices(1)
                .build()) {
            UUID id = UUID.randomUUID();
            long ts = System.currentTimeMillis() / 60_000 * 60_000 + 30_000;
            seen.checkThenAddAll(
                    List.of(id.toString().getBytes(StandardCharsets.US_ASCII)), new long[] {3}, new long[] {ts});
            String bucket = "layout:{0}:" + ts / 60_000;
            assertThat(redis.cli("hlen", bucket)).isEqualTo("1");
            assertThat(redis.cli("object", "encoding", bucket)).isEqualTo("listpack");
            assertThat(redis.cli("eval", HEX_OF_FIRST_ENTRY, "1", bucket))
                    .as("the UUID's 16 bytes, owner 3 in one byte")
                    .isEqualTo(id.toString().replace("-", "") + "\n03");
            long expireAt = Long.parseLong(redis.cli("pexpiretime", bucket));
            long bucketEnd = (ts / 60_000 + 1) * 60_000;
            assertThat(expireAt).isBetween(System.currentTimeMillis(), bucketEnd + 3_600_000 + 1000);
        }
    }

    @Test
    void aKeyWithATimestampIsHeldForTheWindowThenForgotten() throws Exception {
        try (RedisSeenSet seen = RedisSeenSet.builder()
                .redis(redis.uri())
                .prefix("expiry")
                .window(Duration.ofMillis(1500))
                .bucketTime(Duration.ofMillis(500))
                .slices(4)
                .build()) {
            List<byte[]> keys = List.of("x".getBytes(StandardCharsets.UTF_8), "y".getBytes(StandardCharsets.UTF_8));
            long[] ts = {System.currentTimeMillis(), System.currentTimeMillis()};
            assertThat(seen.checkThenAddAll(keys, null, ts)).containsOnly(Verdict.NEW);
            assertThat(seen.checkThenAddAll(keys, null, ts)).containsOnly(Verdict.DUPLICATE);
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (!redis.cli("keys", "expiry:*").isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            assertThat(redis.cli("keys", "expiry:*")).as("every bucket expired").isEmpty();
            assertThat(seen.checkThenAddAll(keys, null, ts)).containsOnly(Verdict.NEW);
        }
    }

    @Test
    void callsWithoutTimestampLookInEveryBucketOfTheWindow() {
        AtomicLong now = new AtomicLong(System.currentTimeMillis());
        try (RedisSeenSet seen = TestSeenSets.minuteBuckets(redis.uri(), "lookback", Duration.ofMinutes(10))
                .slices(4)
                .clock(() -> Instant.ofEpochMilli(now.get()))
                .build()) {
            assertThat(seen.checkThenAdd("late", 5)).isEqualTo(Verdict.NEW);
            now.addAndGet(Duration.ofMinutes(9).toMillis());
            assertThat(seen.checkThenAdd("late", 5)).isEqualTo(Verdict.RETRY);
            assertThat(seen.checkThenAdd("late", 6)).isEqualTo(Verdict.DUPLICATE);
            assertThat(seen.forget("late", 5)).isTrue();
            assertThat(seen.check("late")).isFalse();
        }
    }

    @Test
    void scriptsAreLoadedAgainAfterScriptFlush() {
        try (RedisSeenSet seen = store("flush")) {
            assertThat(seen.checkThenAdd("before")).isEqualTo(Verdict.NEW);
            assertThat(redis.cli("script", "flush")).isEqualTo("OK");
            assertThat(seen.checkThenAdd("before")).isEqualTo(Verdict.DUPLICATE);
            assertThat(seen.checkThenAdd("after")).isEqualTo(Verdict.NEW);
            assertThat(seen.check("after")).isTrue();
            assertThat(seen.forget("after")).isTrue();
        }
    }

    @Test
    void anUnreachableInstanceIsNamedInTheError() {
        RedisURI nowhere;
        try (RedisServer gone = RedisServer.start()) {
            nowhere = gone.uri();
        }
        assertThatThrownBy(() -> RedisSeenSet.builder().redis(nowhere).build())
                .isInstanceOf(RedisStoreException.class)
                .hasMessageContaining("127.0.0.1:" + nowhere.getPort());
    }

    @Test
    void aTimeoutIsAnErrorNamingTheInstanceAndNothingIsAnsweredNew() {
        try (RedisSeenSet seen = RedisSeenSet.builder()
                .redis(redis.uri())
                .prefix("timeout")
                .window(Duration.ofMinutes(10))
                .slices(4)
                .timeout(Duration.ofMillis(300))
                .build()) {
            assertThat(redis.cli("client", "pause", "1500", "all")).isEqualTo("OK");
            assertThatThrownBy(() -> seen.checkThenAdd("paused", 1))
                    .isInstanceOf(BatchFailedException.class)
                    .hasMessageContaining("127.0.0.1:" + redis.port())
                    .hasMessageContaining("timed out")
                    .satisfies(e ->
                            assertThat(((BatchFailedException) e).answered()).containsOnlyNulls());
            assertThat(redis.cli("client", "unpause")).isEqualTo("OK");
            assertThat(seen.checkThenAdd("paused", 1)).isIn(Verdict.NEW, Verdict.RETRY);
        }
    }

    @Test
    void declaresWhatItMayGetWrongAndWhatItReliesOn() {
        try (SeenSet seen = store("guarantee")) {
            assertThat(seen.guarantee()).isEqualTo(Guarantee.EXACT_WITHIN_WINDOW);
            assertThat(((RedisSeenSet) seen).reliesOn()).contains("appendfsync always");
            assertThat(seen.stats().memoryBytes()).isPositive();
            assertThat(seen.stats().kind()).isEqualTo("redis");
        }
    }
}
