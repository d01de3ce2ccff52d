/**
 * The {@code bloom} store: a blocked Bloom filter ({@link dev.deja.bloom.BloomFilter}), its windowed variant for
 * unbounded streams ({@link dev.deja.bloom.WindowedBloomFilter}) and a reader for filters written by Guava
 * ({@link dev.deja.bloom.GuavaBloomFilters}). These stores may answer "seen" for a new key, with probability at most
 * their fpp, and never answer "new" for a key they hold.
 */
package dev.deja.bloom;
