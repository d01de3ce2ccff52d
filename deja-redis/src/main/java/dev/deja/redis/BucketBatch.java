package dev.deja.redis;

import dev.deja.checks.Require;
import dev.deja.hash.Hash128;
import dev.deja.redis.node.Node;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A batch of keys sorted into the buckets they belong to: each key's stored id and owner bytes
 * ({@link Ids}), and one {@link Group} per (time bucket, slice), whose keys one script call per Redis instance
 * handles. A key with a timestamp lives in its timestamp's bucket only; a key without one is written in the current
 * bucket and looked for in the earlier buckets of the window too.
 */
final class BucketBatch {

    /** The buckets of one group on one instance, the bucket written first; never changed once made. */
    @SuppressWarnings("ArrayRecordComponent") // Redis keys handed to Lettuce as they are, never mutated
    record Part(Node node, byte[][] buckets) {}

    /**
     * The keys (indexes into the batch) of one time bucket and slice, and where their buckets live.
     *
     * @param bucket the time bucket written
     * @param parts  the instances to ask, the one holding the written bucket first
     * @param keys   the batch's indexes of the keys, in order
     */
    record Group(long bucket, List<Part> parts, List<Integer> keys) {}

    private record Place(long bucket, int slice) {}

    /** Script calls carry at most this many keys, well inside what Lua's {@code unpack} takes. */
    static final int MAX_KEYS_PER_CALL = 1000;

    final byte[][] ids;
    final byte[][] owners;
    final List<Group> groups;

    private BucketBatch(byte[][] ids, byte[][] owners, List<Group> groups) {
        this.ids = ids;
        this.owners = owners;
        this.groups = groups;
    }

    /**
     * Sorts the keys; every key is checked before anything is sent, so a refused batch changes nothing.
     *
     * @param format     how keys are stored in their buckets
     * @param owners     one owner per key, or null for none
     * @param timestamps one timestamp per key (ms since the epoch), or null: then each is {@code nowMillis} and the
     *                   earlier buckets of the window are read as well
     */
    static BucketBatch of(
            BucketLayout layout,
            Ids format,
            ShardPlan plan,
            List<byte[]> keys,
            long[] owners,
            long[] timestamps,
            long nowMillis) {
        Require.sameLength(keys, owners);
        if (timestamps != null && timestamps.length != keys.size()) {
            throw new IllegalArgumentException("timestamps must have one entry per key (got " + timestamps.length
                    + " timestamps for " + keys.size() + " keys)");
        }
        int n = keys.size();
        byte[][] ids = new byte[n][];
        byte[][] ownerBytes = new byte[n][];
        Map<Place, List<Integer>> byPlace = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            byte[] key = Require.key(keys.get(i));
            Hash128 hash = Ids.hash(key);
            ids[i] = format.field(key, hash);
            ownerBytes[i] = Ids.owner(owners == null ? 0 : owners[i]);
            long bucket = layout.bucket(timestamps == null ? nowMillis : timestamps[i]);
            byPlace.computeIfAbsent(new Place(bucket, layout.slice(hash)), p -> new ArrayList<>())
                    .add(i);
        }
        int lookback = timestamps == null ? layout.lookback() : 0;
        List<Group> groups = new ArrayList<>(byPlace.size());
        byPlace.forEach((place, members) ->
                groups.add(new Group(place.bucket(), parts(layout, plan, place, lookback), members)));
        return new BucketBatch(ids, ownerBytes, groups);
    }

    private static List<Part> parts(BucketLayout layout, ShardPlan plan, Place place, int lookback) {
        Map<Node, List<byte[]>> byNode = new LinkedHashMap<>();
        for (int back = 0; back <= lookback; back++) {
            long bucket = place.bucket() - back;
            Node node = plan.node(layout.start(bucket), place.slice());
            byNode.computeIfAbsent(node, k -> new ArrayList<>()).add(layout.key(bucket, place.slice()));
        }
        List<Part> parts = new ArrayList<>(byNode.size());
        byNode.forEach((node, buckets) -> parts.add(new Part(node, buckets.toArray(byte[][]::new))));
        return parts;
    }

    /** The group's keys cut into chunks of at most {@link #MAX_KEYS_PER_CALL}. */
    static List<List<Integer>> chunks(List<Integer> keys) {
        List<List<Integer>> out = new ArrayList<>();
        for (int from = 0; from < keys.size(); from += MAX_KEYS_PER_CALL) {
            out.add(keys.subList(from, Math.min(keys.size(), from + MAX_KEYS_PER_CALL)));
        }
        return out;
    }
}
