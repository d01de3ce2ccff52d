package dev.deja.exact;

import java.time.Instant;

/**
 * What the exact store holds about one key.
 *
 * @param owner      the owner recorded with the key, {@link dev.deja.seen.SeenSet#NO_OWNER} for none
 * @param firstSeen  when the key was first recorded, rounded down to the store's time unit (a round duration of
 *                   about 1/256 of a generation's slice: a minute for a 24-hour window in 8 slices)
 * @param duplicates how many times it was reported {@code DUPLICATE} since, or -1 when the store does not count
 */
public record KeyInfo(long owner, Instant firstSeen, long duplicates) {}
