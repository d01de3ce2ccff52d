package dev.deja.recent;

import static dev.deja.seen.SeenSet.NO_OWNER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.journal.FsyncPolicy;
import dev.deja.journal.JournaledSeenSet;
import dev.deja.journal.SnapshotCodec;
import dev.deja.journal.StoreCodecs;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A journaled recent filter built without owners, as a server namespace with {@code owners=false} is: a batch that
 * carries a non-zero owner is refused whole, in memory and on disk alike (docs/PROTOCOL.md: "one bad key or owner
 * fails the command and changes nothing").
 */
class JournaledRecentBatchTest {

    private static final SnapshotCodec<RecentFilter> CODEC = StoreCodecs.RECENT;

    @TempDir
    Path dir;

    @Test
    void aBatchWithAnOwnerOnAFilterWithoutOwnersChangesNothing() throws IOException {
        List<byte[]> held = List.of(utf8("a"), utf8("b"));
        List<byte[]> fresh = List.of(utf8("c"), utf8("d"));
        long[] owners = {NO_OWNER, 5};
        try (JournaledSeenSet<RecentFilter> set = open()) {
            set.addAll(held);
            // the keys before the bad owner were erased (or recorded) in memory, unjournaled, and then refused
            assertThatThrownBy(() -> set.forgetAll(held, owners))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("owners(true)");
            assertThatThrownBy(() -> set.checkThenAddAll(fresh, owners))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("owners(true)");
            assertThat(set.checkAll(held)).containsExactly(true, true);
            assertThat(set.checkAll(fresh)).containsExactly(false, false);
        }
        try (JournaledSeenSet<RecentFilter> set = open()) {
            assertThat(set.checkAll(held)).containsExactly(true, true);
            assertThat(set.checkAll(fresh)).containsExactly(false, false);
        }
    }

    private JournaledSeenSet<RecentFilter> open() throws IOException {
        return JournaledSeenSet.builder(
                        dir, CODEC, () -> RecentFilter.builder().buckets(1024).build())
                .fsync(FsyncPolicy.ALWAYS)
                .open();
    }

    private static byte[] utf8(String key) {
        return key.getBytes(StandardCharsets.UTF_8);
    }
}
