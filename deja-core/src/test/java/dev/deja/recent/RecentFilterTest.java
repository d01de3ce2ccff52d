package dev.deja.recent;

import static dev.deja.seen.SeenSet.NO_OWNER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.hash.Hash128;
import dev.deja.seen.ErrorEstimate;
import dev.deja.seen.Guarantee;
import dev.deja.seen.SeenStats;
import dev.deja.seen.Verdict;
import dev.deja.sizing.RecentSizing;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class RecentFilterTest {

    @Test
    void aFreshKeyIsNeverReportedSeenEvenUnderHeavyOverwriting() {
        // 1,024 buckets for 10^6 keys: almost every key is overwritten, none may be called a duplicate.
        for (int ways : new int[] {1, 8}) {
            RecentFilter filter =
                    RecentFilter.builder().buckets(1024).ways(ways).owners(true).build();
            long wrong = 0;
            for (long i = 0; i < 1_000_000; i++) {
                byte[] key = Keys.of(ways, i);
                if (filter.check(key) || filter.checkThenAdd(key, i + 1) != Verdict.NEW) {
                    wrong++;
                }
            }
            assertThat(wrong).as("fresh keys reported seen with %d ways", ways).isZero();
            assertThat(filter.stats().insertions()).isEqualTo(1_000_000);
        }
    }

    @Test
    void aHeldKeyIsADuplicateOrARetryOfTheSameOwner() {
        RecentFilter filter =
                RecentFilter.builder().buckets(1 << 10).owners(true).build();
        assertThat(filter.checkThenAdd("a", 7)).isEqualTo(Verdict.NEW);
        assertThat(filter.checkThenAdd("a", 7)).isEqualTo(Verdict.RETRY);
        assertThat(filter.checkThenAdd("a", 8)).isEqualTo(Verdict.DUPLICATE);
        assertThat(filter.checkThenAdd("a")).isEqualTo(Verdict.DUPLICATE);
        assertThat(filter.check("a")).isTrue();
        // Recorded without an owner: nobody gets RETRY, not even NO_OWNER.
        filter.add("b");
        assertThat(filter.checkThenAdd("b")).isEqualTo(Verdict.DUPLICATE);
        assertThat(filter.checkThenAdd("b", 3)).isEqualTo(Verdict.DUPLICATE);
    }

    @Test
    void addKeepsTheFirstOwner() {
        RecentFilter filter = RecentFilter.builder().buckets(64).owners(true).build();
        filter.add("k".getBytes(StandardCharsets.UTF_8), 1);
        filter.add("k".getBytes(StandardCharsets.UTF_8), 2);
        assertThat(filter.checkThenAdd("k", 1)).isEqualTo(Verdict.RETRY);
        assertThat(filter.checkThenAdd("k", 2)).isEqualTo(Verdict.DUPLICATE);
    }

    @Test
    void withoutOwnersAnOwnerIsRejectedAndNothingChanges() {
        RecentFilter filter = RecentFilter.builder().buckets(64).build();
        assertThatThrownBy(() -> filter.checkThenAdd("k", 5))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("owners(true)");
        assertThatThrownBy(() -> filter.forget("k", 5)).hasMessageContaining("owners(true)");
        assertThat(filter.check("k")).isFalse();
        assertThat(filter.checkThenAdd("k")).isEqualTo(Verdict.NEW);
        assertThat(filter.checkThenAdd("k")).isEqualTo(Verdict.DUPLICATE);
    }

    @Test
    void withoutOwnersABatchWithAnOwnerIsRejectedAndNothingChanges() {
        RecentFilter filter = RecentFilter.builder().buckets(64).build();
        filter.add("held");
        List<byte[]> keys = List.of(utf8("fresh"), utf8("held"), utf8("other"));
        long[] owners = {NO_OWNER, NO_OWNER, 5};
        // refused as a whole: neither of the first keys is recorded (or erased) before the third is met
        assertThatThrownBy(() -> filter.checkThenAddAll(keys, owners))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("owners(true)");
        assertThatThrownBy(() -> filter.forgetAll(keys, owners))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("owners(true)");
        assertThat(filter.check("fresh")).isFalse();
        assertThat(filter.check("held")).isTrue();
        assertThat(filter.stats().insertions()).isEqualTo(1);
    }

    @Test
    void forgetErasesOnlyOurOwnKey() {
        RecentFilter filter = RecentFilter.builder().buckets(64).owners(true).build();
        filter.checkThenAdd("m", 10);
        assertThat(filter.forget("m", 11)).isFalse();
        assertThat(filter.check("m")).isTrue();
        assertThat(filter.forget("m", 10)).isTrue();
        assertThat(filter.check("m")).isFalse();
        assertThat(filter.forget("m", 10)).isFalse();
        assertThat(filter.checkThenAdd("m", 12)).isEqualTo(Verdict.NEW);
        assertThat(filter.forget("m", NO_OWNER))
                .as("NO_OWNER erases whoever owns it")
                .isTrue();
    }

    @Test
    void forgetDoesNotEraseTheKeyThatOverwroteOurs() {
        // The NSQ design's failure case: after "a" was overwritten by "b" in the only bucket, forgetting "a" must
        // leave "b" alone, or b's duplicate would slip through.
        RecentFilter filter = RecentFilter.builder().buckets(1).ways(1).build();
        filter.add("a");
        filter.add("b");
        assertThat(filter.check("a")).isFalse();
        assertThat(filter.forget("a", NO_OWNER)).isFalse();
        assertThat(filter.check("b")).isTrue();
    }

    @Test
    void aSetEvictsItsOldestKeyFirstAndForgetKeepsTheOrder() {
        RecentFilter filter = RecentFilter.builder().buckets(4).ways(4).build(); // a single set
        for (String k : List.of("a", "b", "c", "d")) {
            filter.add(k);
        }
        assertThat(filter.forget("b", NO_OWNER)).isTrue();
        filter.add("e"); // fills the slot freed by b: nothing evicted
        assertThat(List.of("a", "c", "d", "e")).allMatch(k -> filter.check(k));
        filter.add("f"); // evicts the oldest, a
        assertThat(filter.check("a")).isFalse();
        assertThat(List.of("c", "d", "e", "f")).allMatch(k -> filter.check(k));
        filter.add("g"); // then c
        assertThat(filter.check("c")).isFalse();
        assertThat(List.of("d", "e", "f", "g")).allMatch(k -> filter.check(k));
        assertThat(filter.check("b")).isFalse();
    }

    @Test
    void aLookupDoesNotRefreshAKey() {
        RecentFilter filter = RecentFilter.builder().buckets(2).ways(2).build();
        filter.add("a");
        filter.add("b");
        assertThat(filter.checkThenAdd("a")).isEqualTo(Verdict.DUPLICATE);
        filter.add("c"); // FIFO: a is still the oldest and goes
        assertThat(filter.check("a")).isFalse();
        assertThat(filter.check("b")).isTrue();
    }

    @Test
    void aHashWhoseLowHalfIsZeroIsStoredAsTheReservedFingerprint() {
        RecentFilter filter = RecentFilter.builder().buckets(64).build();
        assertThat(filter.checkThenAddHash(42, 0, NO_OWNER)).isEqualTo(Verdict.NEW);
        assertThat(filter.checkThenAddHash(42, 0, NO_OWNER)).isEqualTo(Verdict.DUPLICATE);
        // The documented collision: a key whose low half is the reserved value looks like it.
        assertThat(filter.checkHash(42, RecentFilter.ZERO_FINGERPRINT)).isTrue();
        assertThat(filter.forgetHash(42, 0, NO_OWNER)).isTrue();
        assertThat(filter.checkHash(42, 0)).isFalse();
    }

    @Test
    void behavesLikeAReferenceModelAcrossChunkBoundaries() {
        // Random operations against a list-per-set model; chunks of 16 longs so sets of every width sit in many
        // chunks (a set never straddles one) and the 64-bit index arithmetic is exercised.
        for (int ways = 1; ways <= 16; ways *= 2) {
            long sets = 37;
            RecentFilter filter = RecentFilter.builder()
                    .buckets(sets * ways)
                    .ways(ways)
                    .owners(true)
                    .chunkShift(4)
                    .build();
            List<List<long[]>> model = new ArrayList<>();
            for (int s = 0; s < sets; s++) {
                model.add(new ArrayList<>());
            }
            SplittableRandom random = new SplittableRandom(ways);
            for (int op = 0; op < 200_000; op++) {
                long high = random.nextLong();
                long low = random.nextInt(400) + 1L; // few distinct fingerprints: many repeats
                long owner = random.nextInt(3);
                List<long[]> set = model.get((int) Hash128.reduce(high, sets));
                // The set is chosen by high, but identity is the fingerprint within the set.
                int found = -1;
                for (int i = 0; i < set.size(); i++) {
                    if (set.get(i)[0] == low) {
                        found = i;
                    }
                }
                switch (random.nextInt(3)) {
                    case 0 -> assertThat(filter.checkHash(high, low)).isEqualTo(found >= 0);
                    case 1 -> {
                        Verdict expected = found < 0
                                ? Verdict.NEW
                                : owner != NO_OWNER && set.get(found)[1] == owner ? Verdict.RETRY : Verdict.DUPLICATE;
                        assertThat(filter.checkThenAddHash(high, low, owner)).isEqualTo(expected);
                        if (found < 0) {
                            set.add(0, new long[] {low, owner});
                            if (set.size() > ways) {
                                set.remove(ways);
                            }
                        }
                    }
                    default -> {
                        boolean erase = found >= 0 && (owner == NO_OWNER || set.get(found)[1] == owner);
                        assertThat(filter.forgetHash(high, low, owner)).isEqualTo(erase);
                        if (erase) {
                            set.remove(found);
                        }
                    }
                }
            }
        }
    }

    @Test
    void statsReportTheRetentionEstimateAndMemory() {
        RecentFilter filter =
                RecentFilter.builder().buckets(1 << 16).ways(8).owners(true).build();
        filter.add("x");
        filter.add("x");
        SeenStats stats = filter.stats();
        assertThat(stats.kind()).isEqualTo("recent");
        assertThat(stats.guarantee()).isEqualTo(Guarantee.NEVER_FALSE_DUPLICATE);
        assertThat(stats.insertions()).isEqualTo(1);
        assertThat(stats.memoryBytes()).isEqualTo((1 << 16) * 16L);
        assertThat(stats.estimate()).isEqualTo(new ErrorEstimate.Recent(RecentSizing.keysHeld(1 << 16, 8, 0.9), 8));
    }

    @Test
    void builderSizesForRetention() {
        RecentFilter sized =
                RecentFilter.builder().ways(1).forRetention(3_600_000, 0.1).build();
        assertThat(sized.buckets()).isEqualTo(1_563_461L); // the NSQ design's figure: held with probability 0.1
        RecentFilter byDefault =
                RecentFilter.builder().forRetention(3_600_000, 0.9).build();
        assertThat(byDefault.ways()).isEqualTo(RecentFilter.DEFAULT_WAYS);
        assertThat(byDefault.buckets()).isEqualTo(RecentSizing.bucketsFor(3_600_000, 0.9, 8));
        assertThat(byDefault.hasOwners()).isFalse();
    }

    @Test
    void builderRejectsBadParametersNamingThem() {
        assertThatThrownBy(() -> RecentFilter.builder().build()).hasMessageContaining("exactly one of buckets");
        assertThatThrownBy(() ->
                        RecentFilter.builder().buckets(8).forRetention(10, 0.9).build())
                .hasMessageContaining("exactly one of buckets");
        assertThatThrownBy(() -> RecentFilter.builder().buckets(0)).hasMessageContaining("buckets must be in [1, ");
        assertThatThrownBy(() -> RecentFilter.builder().buckets(12).ways(8).build())
                .hasMessageContaining("multiple of ways");
        assertThatThrownBy(() -> RecentFilter.builder().ways(3)).hasMessageContaining("ways must be one of");
        assertThatThrownBy(() -> RecentFilter.builder().forRetention(10, 1.5)).hasMessageContaining("probabilityHeld");
    }

    @Test
    void rejectsEmptyKeys() {
        RecentFilter filter = RecentFilter.builder().buckets(64).build();
        assertThatThrownBy(() -> filter.checkThenAdd(new byte[0])).hasMessageContaining("key must be a non-empty");
    }

    private static byte[] utf8(String key) {
        return key.getBytes(StandardCharsets.UTF_8);
    }
}
