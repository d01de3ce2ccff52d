/**
 * The argument checks every store and codec shares ({@link dev.deja.checks.Require}), so that a bad argument gets
 * the same message, naming the argument and its valid range, from every class. Not part of deja-core's API: the
 * package is exported only to the other deja modules.
 */
package dev.deja.checks;
