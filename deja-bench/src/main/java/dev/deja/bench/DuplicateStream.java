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

    /** The next delivery; a new key is written into one array that the next new key overwrites. */
    byte[] next() {
        if (newEvery != 0 && ++sinceNew == newEvery) {
            sinceNew = 0;
            return fresh.next();
        }
        return pool.heldAt(held += 2);
    }
}
