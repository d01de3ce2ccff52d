/**
 * The arithmetic that sizes each store kind before it is built, behind {@code deja size}: the false-positive
 * probability of a blocked Bloom filter and the smallest filter for a target ({@link dev.deja.sizing.BloomSizing},
 * with where a key's bits lie, {@link dev.deja.sizing.BloomLayout}), the retention of a {@code recent} filter
 * ({@link dev.deja.sizing.RecentSizing}) and the disk of the {@code exact} store ({@link dev.deja.sizing.ExactSizing}),
 * each answer a record, with {@link dev.deja.sizing.Sizing} as one entry point for all three.
 */
package dev.deja.sizing;
