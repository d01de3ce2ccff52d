package dev.deja.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.redis.node.Node;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class BucketBatchTest {

    private static final long NOW = 1_764_374_400_000L;

    @Test
    void aBatchIsGroupedBySliceInAscendingOrderWithEachGroupInBatchOrder() {
        // 64 slices for 5,000 keys: grouped by counting
        assertGroupedBySlice(new BucketLayout("t", 60_000, 3_600_000, 64, 100), 5_000);
        // a million slices for 50 keys: grouped by sorting
        assertGroupedBySlice(new BucketLayout("t", 60_000, 3_600_000, 1_000_000, 100), 50);
    }

    private static void assertGroupedBySlice(BucketLayout layout, int n) {
        List<byte[]> keys = new ArrayList<>();
        Map<Integer, List<Integer>> expected = new TreeMap<>();
        for (int i = 0; i < n; i++) {
            byte[] key = ("order-" + i).getBytes(StandardCharsets.UTF_8);
            keys.add(key);
            int slice = layout.slice(Ids.hash(key, Ids.uuid(key)));
            expected.computeIfAbsent(slice, s -> new ArrayList<>()).add(i);
        }
        try (ShardPlan plan = new ShardPlan(List.of(), Long.MIN_VALUE, List.of(new NamedNode()))) {
            BucketBatch batch = BucketBatch.of(layout, Ids.EXACT, plan, keys, null, null, NOW);

            List<List<Integer>> groups = batch.groups.stream()
                    .map(g -> java.util.Arrays.stream(g.keys()).boxed().toList())
                    .toList();
            assertThat(groups).containsExactlyElementsOf(expected.values());
            List<String> written = batch.groups.stream()
                    .map(g -> new String(g.parts().get(0).buckets()[0], StandardCharsets.UTF_8))
                    .toList();
            assertThat(written)
                    .containsExactlyElementsOf(expected.keySet().stream()
                            .map(s -> new String(layout.key(layout.bucket(NOW), s), StandardCharsets.UTF_8))
                            .toList());
        }
    }

    /** A node that is only named: grouping a batch sends nothing. */
    private static final class NamedNode implements Node {
        @Override
        public String name() {
            return "redis://test";
        }

        @Override
        public RedisClusterAsyncCommands<byte[], byte[]> commands() {
            throw new UnsupportedOperationException("grouping a batch sends nothing");
        }

        @Override
        public CompletableFuture<Long> usedMemory() {
            throw new UnsupportedOperationException("grouping a batch sends nothing");
        }

        @Override
        public void close() {}
    }
}
