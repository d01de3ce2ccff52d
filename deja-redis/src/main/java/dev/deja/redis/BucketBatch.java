package dev.deja.redis;

import dev.deja.checks.Require;
import dev.deja.hash.Hash128;
import dev.deja.redis.node.Node;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A batch of keys sorted into the buckets they belong to: each key's stored id and owner ({@link Ids}), and one
 * {@link Group} per (time bucket, slice), whose keys one script call per Redis instance handles, or one
 * {@code RESTORE} of the whole bucket ({@link WholeBuckets}). A key with a timestamp lives in its timestamp's bucket
 * only; a key without one is written in the current bucket and looked for in the earlier buckets of the window too.
 */
final class BucketBatch {

    /** The buckets of one group on one instance, the bucket written first; never changed once made. */
    @SuppressWarnings("ArrayRecordComponent") // Redis keys handed to Lettuce as they are, never mutated
    record Part(Node node, byte[][] buckets) {}

    /**
     * The keys (indexes into the batch) of one time bucket and slice, and where their buckets live.
     *
     * @param bucket the time bucket written
     * @param slice  the slice
     * @param parts  the instances to ask, the one holding the written bucket first
     * @param keys   the batch's indexes of the keys, in order; never changed once made
     */
    @SuppressWarnings("ArrayRecordComponent") // filled once when the batch is sorted, then only read
    record Group(long bucket, int slice, List<Part> parts, int[] keys) {}

    /** Script calls carry at most this many keys, well inside what Lua's {@code unpack} takes. */
    static final int MAX_KEYS_PER_CALL = 1000;

    /**
     * Per key, three longs side by side: its id's first and last 8 bytes (for 8-byte ids the fingerprint, then 0) and
     * its owner. No object per key: a batch's keys are read again in the order of their buckets, and one array keeps
     * each key's data in one place for that.
     */
    private final long[] data;

    private final Ids format;
    final List<Group> groups;

    private BucketBatch(long[] data, Ids format, List<Group> groups) {
        this.data = data;
        this.format = format;
        this.groups = groups;
    }

    /** The number of keys. */
    int size() {
        return data.length / 3;
    }

    /** The bytes key {@code i} is stored under ({@link Ids#field}). */
    byte[] id(int i) {
        return format.field(data[3 * i], data[3 * i + 1]);
    }

    /** Writes {@link #id(int)} into {@code into} from index 0 and returns its length (at most 20). */
    int id(int i, byte[] into) {
        return format.field(data[3 * i], data[3 * i + 1], into);
    }

    /** Whether ids are 64-bit fingerprints, stored as their decimal text ({@link #idValue(int)}). */
    boolean idsAreLongs() {
        return format.bytes() == 8;
    }

    /** Key {@code i}'s fingerprint, when {@link #idsAreLongs()}. */
    long idValue(int i) {
        return data[3 * i];
    }

    /** Whether keys {@code i} and {@code j} are stored under the same id. */
    boolean sameId(int i, int j) {
        return data[3 * i] == data[3 * j] && data[3 * i + 1] == data[3 * j + 1];
    }

    /** A hash of key {@code i}'s id. */
    int idHash(int i) {
        long h = data[3 * i] * 0x9E3779B97F4A7C15L ^ data[3 * i + 1];
        return (int) (h ^ h >>> 32);
    }

    /** Key {@code i}'s owner, 0 for none. */
    long owner(int i) {
        return data[3 * i + 2];
    }

    /** The bytes key {@code i}'s owner is stored as ({@link Ids#owner}). */
    byte[] ownerBytes(int i) {
        return Ids.owner(owner(i));
    }

    /** Writes {@link #ownerBytes(int)} into {@code into} from index 0 and returns its length (at most 8). */
    int ownerBytes(int i, byte[] into) {
        return Ids.owner(owner(i), into);
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
        long[] data = new long[3 * n];
        int[] slices = new int[n];
        int[] bucketOf = new int[n]; // index into buckets
        List<Long> buckets = new ArrayList<>();
        Map<Long, Integer> bucketIndex = new HashMap<>();
        long lastBucket = 0;
        int last = -1;
        for (int i = 0; i < n; i++) {
            byte[] key = Require.key(keys.get(i));
            byte[] uuid = Ids.uuid(key);
            Hash128 hash = Ids.hash(key, uuid);
            format.id(uuid, hash, data, 3 * i);
            data[3 * i + 2] = owners == null ? 0 : owners[i];
            slices[i] = layout.slice(hash);
            long bucket = layout.bucket(timestamps == null ? nowMillis : timestamps[i]);
            if (last < 0 || bucket != lastBucket) {
                last = bucketIndex.computeIfAbsent(bucket, b -> {
                    buckets.add(b);
                    return buckets.size() - 1;
                });
                lastBucket = bucket;
            }
            bucketOf[i] = last;
        }
        int lookback = timestamps == null ? layout.lookback() : 0;
        List<Group> groups = new ArrayList<>();
        int[] start = new int[buckets.size() + 1]; // each bucket's range in byBucket
        for (int of : bucketOf) {
            start[of + 1]++;
        }
        for (int b = 0; b < buckets.size(); b++) {
            start[b + 1] += start[b];
        }
        int[] byBucket = new int[n];
        int[] next = Arrays.copyOf(start, buckets.size());
        for (int i = 0; i < n; i++) {
            byBucket[next[bucketOf[i]]++] = i;
        }
        for (int b = 0; b < buckets.size(); b++) {
            long bucket = buckets.get(b);
            for (int[] members : bySlice(slices, layout.slices(), byBucket, start[b], start[b + 1])) {
                Place place = new Place(bucket, slices[members[0]]);
                groups.add(new Group(bucket, place.slice(), parts(layout, plan, place, lookback), members));
            }
        }
        return new BucketBatch(data, format, groups);
    }

    /**
     * The keys {@code keys[from .. to)}, given in batch order, grouped by slice, slices in ascending order, each
     * group's keys in batch order. A counting sort over the slices when there are not many more slices than keys (the
     * usual case: a layout has about one slice per hundred keys of a time bucket), so the batch is grouped in two
     * passes over its keys; otherwise a sort of {@code slice << 32 | index}. Neither holds an object per key.
     */
    private static List<int[]> bySlice(int[] slices, int sliceCount, int[] keys, int from, int to) {
        int n = to - from;
        if (sliceCount > 2L * n + 1024) {
            return bySliceSorted(slices, keys, from, to);
        }
        int[] start = new int[sliceCount + 1];
        for (int j = from; j < to; j++) {
            start[slices[keys[j]] + 1]++;
        }
        for (int s = 0; s < sliceCount; s++) {
            start[s + 1] += start[s];
        }
        int[] grouped = new int[n];
        int[] next = Arrays.copyOf(start, sliceCount);
        for (int j = from; j < to; j++) {
            grouped[next[slices[keys[j]]]++] = keys[j];
        }
        List<int[]> out = new ArrayList<>();
        for (int s = 0; s < sliceCount; s++) {
            if (start[s + 1] > start[s]) {
                out.add(Arrays.copyOfRange(grouped, start[s], start[s + 1]));
            }
        }
        return out;
    }

    private static List<int[]> bySliceSorted(int[] slices, int[] keys, int from, int to) {
        long[] order = new long[to - from];
        for (int j = from; j < to; j++) {
            order[j - from] = (long) slices[keys[j]] << 32 | keys[j];
        }
        Arrays.sort(order);
        List<int[]> out = new ArrayList<>();
        for (int at = 0; at < order.length; ) {
            int slice = (int) (order[at] >>> 32);
            int end = at + 1;
            while (end < order.length && (int) (order[end] >>> 32) == slice) {
                end++;
            }
            int[] members = new int[end - at];
            for (int j = at; j < end; j++) {
                members[j - at] = (int) order[j];
            }
            out.add(members);
            at = end;
        }
        return out;
    }

    private record Place(long bucket, int slice) {}

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
    static List<int[]> chunks(int[] keys) {
        if (keys.length <= MAX_KEYS_PER_CALL) {
            return List.of(keys);
        }
        List<int[]> out = new ArrayList<>();
        for (int from = 0; from < keys.length; from += MAX_KEYS_PER_CALL) {
            out.add(Arrays.copyOfRange(keys, from, Math.min(keys.length, from + MAX_KEYS_PER_CALL)));
        }
        return out;
    }
}
