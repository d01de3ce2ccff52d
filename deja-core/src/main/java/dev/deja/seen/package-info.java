/**
 * The contract every store keeps: a {@link dev.deja.seen.SeenSet} answers "have I seen this key before?" with
 * {@code check}, {@code add}, {@code checkThenAdd} and {@code forget} and their batch forms, and a
 * {@link dev.deja.seen.HashedSeenSet} the same calls on a key's 128-bit hash. The package holds what those calls
 * return and declare ({@link dev.deja.seen.Verdict}, the one error a store may make, {@link dev.deja.seen.Guarantee},
 * and its live {@link dev.deja.seen.ErrorEstimate} in {@link dev.deja.seen.SeenStats}), and the exception of a closed
 * store.
 */
package dev.deja.seen;
