/**
 * The one hash of a key every store derives its indexes from: XXH3-128 of the key's bytes, as the two 64-bit halves
 * of a {@link dev.deja.hash.Hash128}, with the multiply-high reduction that maps a half onto a range. Keys of 9 to 128
 * bytes, nearly every id, are hashed by XXH3's short-input paths written out here, which compile into the caller; the
 * others by hash4j.
 */
package dev.deja.hash;
