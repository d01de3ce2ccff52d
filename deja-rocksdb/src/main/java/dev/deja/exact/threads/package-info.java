/**
 * The background threads every exact store of the process shares ({@link dev.deja.exact.threads.ExactThreads}), so
 * that the number of threads does not grow with the number of stores. Exported only to deja-server, whose exact
 * namespaces run their own background work on them.
 */
package dev.deja.exact.threads;
