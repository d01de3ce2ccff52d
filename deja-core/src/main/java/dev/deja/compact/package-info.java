/**
 * A seen-set small enough for a cookie or a header: {@link dev.deja.compact.CompactSeenSet}, an immutable set of key
 * fingerprints encoded as the rank of their subset, in as few characters as its false-positive rate allows, with the
 * encoding and the combinatorial arithmetic it rests on.
 */
package dev.deja.compact;
