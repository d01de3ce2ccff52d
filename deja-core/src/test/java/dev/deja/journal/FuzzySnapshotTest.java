package dev.deja.journal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.hash.Hash128;
import dev.deja.seen.Verdict;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The argument in {@link JournaledSeenSet}'s class comment, checked exhaustively at random: for a store with one slot
 * per key, replaying the journal from P onto any fuzzy snapshot gives exactly the live state.
 */
class FuzzySnapshotTest {

    private record Change(boolean add, Hash128 key, long owner) {}

    @Test
    void replayOntoAnyFuzzySnapshotConvergesToTheLiveState() {
        Random random = new Random(20261122);
        for (int trial = 0; trial < 20_000; trial++) {
            MapSeenSet live = new MapSeenSet();
            List<Change> journal = new ArrayList<>();
            List<Map<Hash128, Long>> stateAfter = new ArrayList<>(); // stateAfter.get(i): after i records
            stateAfter.add(Map.of());
            for (int op = 0; op < 40; op++) {
                Hash128 key = new Hash128(0, random.nextInt(4));
                long owner = random.nextInt(3); // 0 is SeenSet.NO_OWNER: forget any owner, never RETRY
                // journaled exactly as JournaledSeenSet does: only changes
                boolean changed;
                boolean add = random.nextBoolean();
                if (add) {
                    changed = live.checkThenAddHash(key.high(), key.low(), owner) == Verdict.NEW;
                } else {
                    changed = live.forgetHash(key.high(), key.low(), owner);
                }
                if (changed) {
                    journal.add(new Change(add, key, owner));
                    stateAfter.add(Map.copyOf(live.owners));
                }
            }
            int position = random.nextInt(journal.size() + 1);
            // each key read at its own moment at or after P, as a snapshot streaming a changing store reads it
            MapSeenSet snapshot = new MapSeenSet();
            for (int k = 0; k < 4; k++) {
                Hash128 key = new Hash128(0, k);
                int moment = position + random.nextInt(journal.size() - position + 1);
                Long owner = stateAfter.get(moment).get(key);
                if (owner != null) {
                    snapshot.owners.put(key, owner);
                }
            }
            for (Change c : journal.subList(position, journal.size())) {
                if (c.add()) {
                    snapshot.addHash(c.key().high(), c.key().low(), c.owner());
                } else {
                    snapshot.forgetHash(c.key().high(), c.key().low(), c.owner());
                }
            }
            assertThat(new HashMap<>(snapshot.owners)).as("trial %d", trial).isEqualTo(new HashMap<>(live.owners));
        }
    }
}
