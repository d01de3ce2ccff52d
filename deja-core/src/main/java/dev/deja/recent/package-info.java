/**
 * The {@code recent} store: a fixed array of buckets of key fingerprints, overwritten on collision, so that it may
 * forget an old key but never answers "seen" for a new one ({@link dev.deja.recent.RecentFilter}, the NSQ "opposite
 * of a Bloom filter" made set-associative), with its buckets, the chunked arrays under them and the reader and writer
 * of its format.
 */
package dev.deja.recent;
