package dev.deja.redis;

import java.util.BitSet;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The buckets a client knows to exist, by time bucket and slice: those it created or wrote, or found written. A bucket
 * expires a window after its time; time buckets more than a window older than the newest one added are forgotten, so
 * the set holds at most a window of time buckets, one bit per slice. Knowing a bucket that has since gone (expired,
 * emptied by {@code forget}, flushed) costs only the faster path; not knowing one that exists costs one refused
 * {@code RESTORE}.
 */
final class KnownBuckets {

    private final int lookback;
    private final ConcurrentSkipListMap<Long, BitSet> slicesByBucket = new ConcurrentSkipListMap<>();

    /** @param lookback how many time buckets the window spans ({@link BucketLayout#lookback()}) */
    KnownBuckets(int lookback) {
        this.lookback = lookback;
    }

    void add(long bucket, int slice) {
        BitSet slices = slicesByBucket.computeIfAbsent(bucket, b -> new BitSet());
        synchronized (slices) {
            slices.set(slice);
        }
        slicesByBucket.headMap(bucket - lookback - 1).clear();
    }

    boolean contains(long bucket, int slice) {
        BitSet slices = slicesByBucket.get(bucket);
        if (slices == null) {
            return false;
        }
        synchronized (slices) {
            return slices.get(slice);
        }
    }
}
