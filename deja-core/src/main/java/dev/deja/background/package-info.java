/**
 * The background work of many owners (journals, stores, namespaces) on a few shared threads. Each owner's work runs
 * one task at a time, as it would on a thread of its own ({@link dev.deja.background.SerialWork},
 * {@link dev.deja.background.TaskQueue}), and stops with its owner; the threads belong to whoever made the executor,
 * so the number of threads does not grow with the number of owners.
 */
package dev.deja.background;
