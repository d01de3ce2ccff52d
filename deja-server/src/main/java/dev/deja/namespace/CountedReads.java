package dev.deja.namespace;

import dev.deja.seen.Guarantee;
import dev.deja.seen.SeenSet;
import dev.deja.seen.SeenStats;
import dev.deja.seen.Verdict;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * A namespace's store for reads, counting the keys each call is about into the namespace's operations
 * ({@link Namespace#operations()}); everything else goes straight to the store.
 */
final class CountedReads implements SeenSet {

    private final SeenSet store;
    private final LongAdder operations;

    CountedReads(SeenSet store, LongAdder operations) {
        this.store = store;
        this.operations = operations;
    }

    @Override
    public boolean check(byte[] key) {
        operations.increment();
        return store.check(key);
    }

    @Override
    public boolean[] checkAll(List<byte[]> keys) {
        operations.add(keys.size());
        return store.checkAll(keys);
    }

    @Override
    public void add(byte[] key, long owner) {
        operations.increment();
        store.add(key, owner);
    }

    @Override
    public void addAll(List<byte[]> keys) {
        operations.add(keys.size());
        store.addAll(keys);
    }

    @Override
    public Verdict checkThenAdd(byte[] key, long owner) {
        operations.increment();
        return store.checkThenAdd(key, owner);
    }

    @Override
    public Verdict[] checkThenAddAll(List<byte[]> keys, long[] owners) {
        operations.add(keys.size());
        return store.checkThenAddAll(keys, owners);
    }

    @Override
    public boolean forget(byte[] key, long owner) {
        operations.increment();
        return store.forget(key, owner);
    }

    @Override
    public boolean[] forgetAll(List<byte[]> keys, long[] owners) {
        operations.add(keys.size());
        return store.forgetAll(keys, owners);
    }

    @Override
    public Guarantee guarantee() {
        return store.guarantee();
    }

    @Override
    public SeenStats stats() {
        return store.stats();
    }
}
