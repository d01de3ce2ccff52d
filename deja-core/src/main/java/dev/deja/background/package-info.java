/**
 * The background work of many owners (journals, stores, namespaces) on a few shared threads. Each owner's work runs
 * one task at a time, as it would on a thread of its own ({@link dev.deja.background.SerialWork},
 * {@link dev.deja.background.TaskQueue}), and stops with its owner; the threads belong to whoever made the executor,
 * so the number of threads does not grow with the number of owners. Not part of deja-core's API: the package is
 * exported only to the other deja modules, whose stores and servers run on the same threads.
 */
package dev.deja.background;
