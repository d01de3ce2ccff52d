package dev.deja.seen;

import java.time.Duration;

/**
 * A store's live estimate of the error it may currently make (docs/DESIGN.md section 1).
 */
public sealed interface ErrorEstimate {

    /**
     * Bloom: how full the bit array is and the false-positive probability a new key meets right now.
     *
     * @param fillRatio  fraction of bits set, in [0, 1]
     * @param currentFpp probability that a key never added is reported as seen, at the current fill
     * @param targetFpp  the false-positive probability the filter was sized for
     */
    record Bloom(double fillRatio, double currentFpp, double targetFpp) implements ErrorEstimate {}

    /**
     * Recent: how many later insertions a key survives with 90% probability. A key is still held with at least
     * 90% probability until that many other new keys have been recorded after it.
     *
     * @param keysHeldAt90Percent insertions after which a key is still held with probability 0.9
     * @param ways                bucket associativity the estimate was computed for
     */
    record Recent(long keysHeldAt90Percent, int ways) implements ErrorEstimate {}

    /**
     * Exact: the effective window, the age of the oldest key still held.
     *
     * @param effectiveWindow age of the oldest key still held; {@link Duration#ZERO} when empty
     */
    record Exact(Duration effectiveWindow) implements ErrorEstimate {}

    /**
     * Cuckoo: how full the tables are and the bound on the false-positive probability a new key meets right now.
     *
     * @param load       fingerprints held over slots, all tables together, in [0, 1]
     * @param currentFpp bound on the probability that a key never added is reported as seen, at the current load
     * @param targetFpp  that bound for one full table
     */
    record Cuckoo(double load, double currentFpp, double targetFpp) implements ErrorEstimate {}
}
