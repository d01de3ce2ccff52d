package dev.deja.bench;

/**
 * A de-duplication stream for a filter holding {@link KeyPool#held()}: the held keys redelivered in a cycle, with a
 * key that no filter holds ({@link BloomNewKeyBenchmark.FreshKeys}) in place of every {@code newEvery}-th. So
 * {@code newEvery = 0} is a stream of duplicates only, 1 one of new keys only, and 16 duplicates with one new key in
 * sixteen. Streams built alike give the same keys, so two filters can be measured on the same deliveries.
 */
final class DuplicateStream {

    private final KeyPool pool;
    private final BloomNewKeyBenchmark.FreshKeys fresh;
    private final int newEvery;
    private int held;
    private int sinceNew;

    /**
     * @param newEvery    a new key in place of every {@code newEvery}-th held key; 0 for none
     * @param freshSeries which series of new keys ({@link BloomNewKeyBenchmark.FreshKeys}): streams that must not
     *                    meet each other's new keys take different ones
     */
    DuplicateStream(KeyPool pool, int newEvery, int freshSeries) {
        if (newEvery < 0) {
            throw new IllegalArgumentException("newEvery must be 0 (no new keys) or more (got " + newEvery + ")");
        }
        this.pool = pool;
        this.newEvery = newEvery;
        this.fresh = new BloomNewKeyBenchmark.FreshKeys(freshSeries);
    }

    /** The next delivery; a new key is written into one array that the next call overwrites. */
    byte[] next() {
        if (newEvery == 0) {
            return pool.heldAt(held += 2);
        }
        // A new key is made for every delivery, and delivered for one in newEvery. Made only for that one, the call
        // would run too rarely for HotSpot to inline it (or the store it makes), and a call left in the measured loop
        // weighs on deja's check, bound by its instructions, more than on Guava's, bound by its memory accesses. Made
        // every time, it is inlined, and costs both filters the same store per delivery.
        byte[] key = fresh.next();
        if (++sinceNew == newEvery) {
            sinceNew = 0;
            return key;
        }
        return pool.heldAt(held += 2);
    }
}
