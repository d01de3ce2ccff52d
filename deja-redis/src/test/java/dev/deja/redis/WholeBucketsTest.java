package dev.deja.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.redis.testing.RedisServerExtension;
import dev.deja.seen.Verdict;
import io.lettuce.core.api.sync.RedisCommands;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Buckets nobody has written yet are created whole with {@code RESTORE}: the answers and the buckets are those the
 * scripts give; a bucket that exists, or a server that refuses {@code RESTORE}, goes to the scripts.
 */
class WholeBucketsTest {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    /** Half a minute into the current minute: buckets of this time live for the hour-long window. */
    private static final long NOW = System.currentTimeMillis() / 60_000 * 60_000 + 30_000;

    private static RedisCommands<byte[], byte[]> commands;

    @BeforeAll
    static void connect() {
        commands = redis.bytes();
    }

    private static RedisSeenSet store(String prefix) {
        return store(prefix, 16);
    }

    private static RedisSeenSet store(String prefix, int idBytes) {
        return TestSeenSets.minuteBuckets(redis.uri(), prefix, Duration.ofHours(1))
                .slices(8)
                .idBytes(idBytes)
                .clock(() -> Instant.ofEpochMilli(NOW))
                .build();
    }

    @ParameterizedTest(name = "{0}-byte ids")
    @ValueSource(ints = {16, 8})
    void newBucketsAreCreatedWholeWithTheScriptsAnswersAndBytes(int idBytes) {
        Batch batch = Batch.random(3000, new Random(5));
        long restoresBefore = restoreCalls();
        Verdict[] whole;
        Verdict[] scripted;
        try (RedisSeenSet a = store("whole" + idBytes, idBytes);
                RedisSeenSet b = store("scripted" + idBytes, idBytes)) {
            whole = a.checkThenAddAll(batch.keys, batch.owners, batch.timestamps(NOW));
            // Without timestamps a call also reads the earlier buckets of the window, which only a script does.
            scripted = b.checkThenAddAll(batch.keys, batch.owners);
        }
        assertThat(restoreCalls() - restoresBefore).as("one RESTORE per bucket").isEqualTo(8);
        for (int i = 0; i < whole.length; i++) {
            assertThat(whole[i]).as("key %d", i).isEqualTo(batch.expected(i));
        }
        assertThat(whole).containsExactly(scripted);
        assertThat(Arrays.stream(whole).filter(v -> v == Verdict.RETRY)).isNotEmpty();
        assertThat(Arrays.stream(whole).filter(v -> v == Verdict.DUPLICATE)).isNotEmpty();
        long minute = NOW / 60_000;
        for (int slice = 0; slice < 8; slice++) {
            byte[] restored = ascii("whole" + idBytes + ":{" + slice + "}:" + minute);
            byte[] written = ascii("scripted" + idBytes + ":{" + slice + "}:" + minute);
            assertThat(commands.objectEncoding(restored)).isEqualTo("listpack");
            assertThat(HexFormat.of().formatHex(commands.dump(restored)))
                    .as("slice %d: the same entries in the same order", slice)
                    .isEqualTo(HexFormat.of().formatHex(commands.dump(written)));
            assertThat(commands.pexpiretime(restored)).isEqualTo(commands.pexpiretime(written));
        }
    }

    @Test
    void aBucketThatExistsIsLeftToTheScriptAndRememberedAsExisting() {
        Batch first = Batch.random(2000, new Random(6));
        try (RedisSeenSet writer = store("existing")) {
            Verdict[] answers = writer.checkThenAddAll(first.keys, first.owners, first.timestamps(NOW));
            for (int i = 0; i < answers.length; i++) {
                assertThat(answers[i]).as("key %d", i).isEqualTo(first.expected(i));
            }
        }
        // Half of the first batch again (same owners, then other owners), half new keys, from a client that does not
        // know the buckets exist.
        List<byte[]> keys = new ArrayList<>(first.keys.subList(0, 1000));
        long[] owners = new long[2000];
        for (int i = 0; i < 1000; i++) {
            owners[i] = i < 500 ? first.owners[i] : first.owners[i] + 1;
            keys.add(ascii("fresh-" + i));
            owners[1000 + i] = 9;
        }
        long[] timestamps = new long[2000];
        Arrays.fill(timestamps, NOW);
        long restoresBefore = restoreCalls();
        try (RedisSeenSet other = store("existing")) {
            Verdict[] answers = other.checkThenAddAll(keys, owners, timestamps);
            for (int i = 0; i < 2000; i++) {
                Verdict expected = i >= 1000 ? Verdict.NEW : i < 500 ? Verdict.RETRY : Verdict.DUPLICATE;
                if (i < 1000 && first.firstIndex[i] != i) {
                    continue; // a copy inside the first batch: its verdict there decided which owner holds it
                }
                assertThat(answers[i]).as("key %d", i).isEqualTo(expected);
            }
            assertThat(restoreCalls() - restoresBefore)
                    .as("refused, once per bucket")
                    .isEqualTo(8);
            assertThat(other.checkAll(keys)).containsOnly(true);

            Batch later = Batch.random(500, new Random(7));
            assertThat(other.checkThenAddAll(later.keys, later.owners, later.timestamps(NOW)))
                    .contains(Verdict.NEW);
            assertThat(restoreCalls() - restoresBefore)
                    .as("no RESTORE for buckets known to exist")
                    .isEqualTo(8);
        }
    }

    @Test
    void aServerThatRefusesRestoreGetsScripts() {
        long rejectedBefore = commandStat("restore", "rejected_calls");
        redis.cli("acl", "setuser", "default", "-restore");
        try (RedisSeenSet seen = store("refused")) {
            Batch batch = Batch.random(1000, new Random(8));
            Verdict[] answers = seen.checkThenAddAll(batch.keys, batch.owners, batch.timestamps(NOW));
            for (int i = 0; i < answers.length; i++) {
                assertThat(answers[i]).as("key %d", i).isEqualTo(batch.expected(i));
            }
            assertThat(seen.checkAll(batch.keys)).containsOnly(true);
            long refused = commandStat("restore", "rejected_calls") - rejectedBefore;
            assertThat(refused).as("tried in the first batch").isBetween(1L, 8L);

            Batch next = Batch.random(1000, new Random(9));
            long[] nextMinute = next.timestamps(NOW + 60_000);
            assertThat(seen.checkThenAddAll(next.keys, next.owners, nextMinute)).contains(Verdict.NEW);
            assertThat(commandStat("restore", "rejected_calls") - rejectedBefore)
                    .as("not tried again on new buckets")
                    .isEqualTo(refused);
        } finally {
            redis.cli("acl", "setuser", "default", "+restore");
        }
    }

    @Test
    void aServerOutOfMemoryFailsTheBatchAndBucketsAreRestoredAgainOnceItHasRoom() {
        try (RedisSeenSet seen = store("full")) {
            Batch batch = Batch.random(800, new Random(10));
            redis.cli("config", "set", "maxmemory", "1");
            try {
                assertThatThrownBy(() -> seen.checkThenAddAll(batch.keys, batch.owners, batch.timestamps(NOW)))
                        .isInstanceOf(BatchFailedException.class)
                        .hasMessageContaining("127.0.0.1:" + redis.port())
                        .satisfies(e -> assertThat(((BatchFailedException) e).answered())
                                .as("nothing answered NEW")
                                .doesNotContain(Verdict.NEW));
            } finally {
                redis.cli("config", "set", "maxmemory", "0");
            }
            long restoresBefore = restoreCalls();
            Verdict[] answers = seen.checkThenAddAll(batch.keys, batch.owners, batch.timestamps(NOW));
            for (int i = 0; i < answers.length; i++) {
                assertThat(answers[i]).as("key %d", i).isEqualTo(batch.expected(i));
            }
            assertThat(restoreCalls() - restoresBefore)
                    .as("the buckets created whole once Redis has room")
                    .isEqualTo(8);
        }
    }

    @Test
    void onlyErrorsSayingRestoreIsNotTakenTurnItOff() {
        assertThat(WholeBuckets.refusesPayloads("NOPERM this user has no permissions to run the 'restore' command"))
                .isTrue();
        assertThat(WholeBuckets.refusesPayloads("ERR DUMP payload version or checksum are wrong"))
                .isTrue();
        assertThat(WholeBuckets.refusesPayloads("ERR Bad data format")).isTrue();
        assertThat(WholeBuckets.refusesPayloads("ERR unknown command 'RESTORE', with args beginning with: "))
                .isTrue();
        assertThat(WholeBuckets.refusesPayloads("OOM command not allowed when used memory > 'maxmemory'."))
                .isFalse();
        assertThat(WholeBuckets.refusesPayloads("READONLY You can't write against a read only replica."))
                .isFalse();
        assertThat(WholeBuckets.refusesPayloads("BUSYKEY Target key name already exists."))
                .isFalse();
    }

    private static long restoreCalls() {
        return commandStat("restore", "calls") + commandStat("restore", "rejected_calls");
    }

    private static long commandStat(String command, String counter) {
        return redis.server().commandStat(command, counter);
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Random keys with owners, about one in ten a copy of an earlier key of the batch: with the same owner, another
     * owner, or none.
     */
    private static final class Batch {

        final List<byte[]> keys;
        final long[] owners;
        final int[] firstIndex;

        private Batch(List<byte[]> keys, long[] owners, int[] firstIndex) {
            this.keys = keys;
            this.owners = owners;
            this.firstIndex = firstIndex;
        }

        static Batch random(int n, Random random) {
            List<byte[]> keys = new ArrayList<>(n);
            long[] owners = new long[n];
            int[] firstIndex = new int[n];
            for (int i = 0; i < n; i++) {
                if (i > 10 && random.nextInt(10) == 0) {
                    int of = firstIndex[random.nextInt(i)];
                    keys.add(keys.get(of));
                    firstIndex[i] = of;
                    owners[i] = switch (random.nextInt(3)) {
                        case 0 -> owners[of];
                        case 1 -> owners[of] + 1;
                        default -> 0;
                    };
                } else {
                    keys.add(ascii("key-" + random.nextLong()));
                    firstIndex[i] = i;
                    owners[i] = random.nextInt(1 << 20) + 1L;
                }
            }
            return new Batch(keys, owners, firstIndex);
        }

        long[] timestamps(long at) {
            long[] out = new long[keys.size()];
            Arrays.fill(out, at);
            return out;
        }

        /** The answer for key i in a store that held none of the keys before. */
        Verdict expected(int i) {
            int of = firstIndex[i];
            if (of == i) {
                return Verdict.NEW;
            }
            return owners[i] != 0 && owners[i] == owners[of] ? Verdict.RETRY : Verdict.DUPLICATE;
        }
    }
}
