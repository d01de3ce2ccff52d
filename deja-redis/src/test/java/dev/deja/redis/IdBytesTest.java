package dev.deja.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.hash.Hash128;
import dev.deja.redis.testing.RedisServerExtension;
import dev.deja.seen.Guarantee;
import dev.deja.seen.Verdict;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Keys stored under 8-byte fingerprints, and owners of every size under both id widths. */
class IdBytesTest {

    /** Owners at the edges of their big-endian encoding: 1 to 8 bytes, negative ones 8. */
    private static final long[] EDGE_OWNERS = {
        1, 0xFF, 0x100, 0xFFFF, 0x1_0000, 0x0003_0012_F4C8_5E66L, Long.MAX_VALUE, Long.MIN_VALUE, -1
    };

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static RedisSeenSet store(String prefix, int idBytes) {
        return TestSeenSets.minuteBuckets(redis.uri(), prefix, Duration.ofMinutes(10))
                .slices(4)
                .idBytes(idBytes)
                .build();
    }

    private static byte[] bytes(String key) {
        return key.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void eightByteIdsAreTheHashsHighHalfInDecimal() {
        try (RedisSeenSet seen = TestSeenSets.minuteBuckets(redis.uri(), "fp", Duration.ofHours(1))
                .slices(1)
                .idBytes(8)
                .build()) {
            UUID uuid = UUID.randomUUID();
            byte[] key = uuid.toString().getBytes(StandardCharsets.US_ASCII);
            long ts = System.currentTimeMillis();
            assertThat(seen.checkThenAddAll(List.of(key), new long[] {3}, new long[] {ts}))
                    .containsExactly(Verdict.NEW);
            String bucket = "fp:{0}:" + ts / 60_000;
            assertThat(redis.cli("object", "encoding", bucket)).isEqualTo("listpack");
            assertThat(redis.cli("hkeys", bucket))
                    .as("a UUID's fingerprint is the hash of its 16 bytes")
                    .isEqualTo(Long.toString(Hash128.of(ByteBuffer.allocate(16)
                                    .putLong(uuid.getMostSignificantBits())
                                    .putLong(uuid.getLeastSignificantBits())
                                    .array())
                            .high()));
            assertThat(seen.checkThenAddAll(List.of(key), new long[] {3}, new long[] {ts}))
                    .containsExactly(Verdict.RETRY);
            assertThat(seen.checkThenAddAll(List.of(key), new long[] {4}, new long[] {ts}))
                    .containsExactly(Verdict.DUPLICATE);
        }
    }

    @Test
    void eightByteIdsDeclareTheirCollisionProbability() {
        try (RedisSeenSet exact = store("declare16", 16);
                RedisSeenSet compact = store("declare8", 8)) {
            assertThat(exact.guarantee()).isEqualTo(Guarantee.EXACT_WITHIN_WINDOW);
            assertThat(exact.falseDuplicateProbability()).isZero();
            assertThat(compact.guarantee()).isEqualTo(Guarantee.NEVER_FALSE_NEW);
            assertThat(compact.falseDuplicateProbability())
                    .as("1,000 keys a second over 4 slices of a minute: 15,000 entries a bucket")
                    .isEqualTo(15_000 / 0x1p64);
        }
        assertThatThrownBy(() -> RedisSeenSet.builder().idBytes(12)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void ownersOfEverySizeRetryAndDuplicateUnderBothIdWidths() {
        for (int idBytes : new int[] {16, 8}) {
            try (RedisSeenSet seen = store("edges" + idBytes, idBytes)) {
                List<byte[]> keys = new ArrayList<>();
                for (int i = 0; i < EDGE_OWNERS.length; i++) {
                    keys.add(bytes("edge-" + i));
                }
                assertThat(seen.checkThenAddAll(keys, EDGE_OWNERS)).containsOnly(Verdict.NEW);
                assertThat(seen.checkThenAddAll(keys, EDGE_OWNERS))
                        .as("%d-byte ids: the same owners", idBytes)
                        .containsOnly(Verdict.RETRY);
                long[] others = new long[EDGE_OWNERS.length];
                for (int i = 0; i < others.length; i++) {
                    others[i] = EDGE_OWNERS[(i + 1) % others.length];
                }
                assertThat(seen.checkThenAddAll(keys, others))
                        .as("%d-byte ids: each held under another owner", idBytes)
                        .containsOnly(Verdict.DUPLICATE);
                assertThat(seen.forgetAll(keys, others)).containsOnly(false);
                assertThat(seen.forgetAll(keys, EDGE_OWNERS)).containsOnly(true);
                assertThat(seen.checkAll(keys)).containsOnly(false);
            }
        }
    }

    @Test
    void aUuidInUpperAndLowerCaseIsOneKeyUnderBothIdWidths() {
        for (int idBytes : new int[] {16, 8}) {
            try (RedisSeenSet seen = store("case" + idBytes, idBytes)) {
                for (int i = 0; i < 50; i++) {
                    String uuid = UUID.randomUUID().toString();
                    assertThat(seen.checkThenAdd(bytes(uuid), 5)).isEqualTo(Verdict.NEW);
                    assertThat(seen.checkThenAdd(bytes(uuid.toUpperCase(Locale.ROOT)), 5))
                            .as("%s in upper case, %d-byte ids", uuid, idBytes)
                            .isEqualTo(Verdict.RETRY);
                    assertThat(seen.checkThenAdd(bytes(uuid.toUpperCase(Locale.ROOT)), 6))
                            .isEqualTo(Verdict.DUPLICATE);
                }
            }
        }
    }

    @Test
    void aKeyRepeatedInOneCallIsHeldByItsFirstOccurrence() {
        for (int idBytes : new int[] {16, 8}) {
            try (RedisSeenSet seen = store("repeat" + idBytes, idBytes)) {
                List<byte[]> keys = List.of(
                        bytes("r"), bytes("r"), bytes("r"), bytes("r"), bytes("s"), bytes("s"), bytes("t"), bytes("t"));
                long[] owners = {0x1_0000, 0x1_0000, 7, 0, 0, 0, -1, Long.MIN_VALUE};
                assertThat(seen.checkThenAddAll(keys, owners))
                        .as("%d-byte ids", idBytes)
                        .containsExactly(
                                Verdict.NEW,
                                Verdict.RETRY,
                                Verdict.DUPLICATE,
                                Verdict.DUPLICATE,
                                Verdict.NEW,
                                Verdict.DUPLICATE,
                                Verdict.NEW,
                                Verdict.DUPLICATE);
                assertThat(seen.checkThenAdd(bytes("r"), 0x1_0000))
                        .as("the first occurrence's owner is the one stored")
                        .isEqualTo(Verdict.RETRY);
                assertThat(seen.checkThenAdd(bytes("t"), -1)).isEqualTo(Verdict.RETRY);
                assertThat(seen.checkThenAdd(bytes("t"), Long.MIN_VALUE)).isEqualTo(Verdict.DUPLICATE);
            }
        }
    }

    @Test
    void aNewClientReadsWhatAnEarlierOneStored() {
        List<byte[]> keys = new ArrayList<>();
        long[] owners = new long[300];
        for (int i = 0; i < owners.length; i++) {
            keys.add(bytes("kept-" + i));
            owners[i] = i % 3 == 0 ? 0 : (3L << 48) + 81_418_110_694L + i;
        }
        try (RedisSeenSet first = store("again", 8)) {
            assertThat(first.checkThenAddAll(keys, owners)).containsOnly(Verdict.NEW);
        }
        try (RedisSeenSet second = store("again", 8)) {
            Verdict[] answers = second.checkThenAddAll(keys, owners);
            for (int i = 0; i < answers.length; i++) {
                assertThat(answers[i]).as("key %d", i).isEqualTo(owners[i] == 0 ? Verdict.DUPLICATE : Verdict.RETRY);
            }
            assertThat(second.checkAll(keys)).containsOnly(true);
        }
    }
}
