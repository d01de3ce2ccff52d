package dev.deja.bloom;

import dev.deja.seen.ErrorEstimate;
import dev.deja.seen.Guarantee;
import dev.deja.seen.SeenStats;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;

/**
 * What the structures made of several {@link BloomFilter}s (the generations of a {@link WindowedBloomFilter}, the
 * sub-filters of a {@link ScalingBloomFilter}) share: a lookup that asks each, their statistics together, and reading
 * one of them from a stream.
 */
final class FilterChains {

    private FilterChains() {}

    /** Whether any filter holds the key's hash, the newest (last) asked first. */
    static boolean anyHolds(BloomFilter[] filters, long high, long low) {
        for (int i = filters.length - 1; i >= 0; i--) {
            if (filters[i].checkHash(high, low)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Statistics over all the filters: the mean fill, the probability that a key never recorded is reported seen by
     * any of them ({@code 1 - prod(1 - fpp_i)}), and the target fpp.
     */
    static SeenStats stats(String kind, BloomFilter[] filters, double targetFpp) {
        double fill = 0;
        double allMiss = 1;
        long keys = 0;
        long memory = 0;
        for (BloomFilter f : filters) {
            ErrorEstimate.Bloom e = f.errorEstimate();
            fill += e.fillRatio() / filters.length;
            allMiss *= 1 - e.currentFpp();
            keys += f.approximateCount();
            memory += f.allocatedBytes();
        }
        return new SeenStats(
                kind, Guarantee.NEVER_FALSE_NEW, keys, memory, new ErrorEstimate.Bloom(fill, 1 - allMiss, targetFpp));
    }

    /**
     * Filter {@code index} of {@code count} in a stream of {@code structure} (such as "windowed bloom filter"), each
     * a {@code member} ("generation"); one cut short is reported as truncated there, not as a lone bloom filter.
     */
    static BloomFilter readMember(
            InputStream in, String structure, String member, int index, int count, BloomFilter.ShapeCheck shapeCheck)
            throws IOException {
        try {
            return BloomFilter.readFrom(in, shapeCheck);
        } catch (EOFException e) {
            EOFException here = new EOFException("truncated " + structure + ": " + member + " " + index + " of " + count
                    + " is cut short (" + e.getMessage() + ")");
            here.initCause(e);
            throw here;
        }
    }
}
