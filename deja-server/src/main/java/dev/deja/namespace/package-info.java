/**
 * Namespaces: named stores of one kind, each kept in its directory of the data dir. It holds the registry of a
 * server's namespaces and their limits ({@link dev.deja.namespace.NamespaceRegistry}), a namespace and its writes
 * ({@link dev.deja.namespace.Namespace}), the store kinds a namespace may be of ({@link dev.deja.namespace.StoreKind},
 * {@link dev.deja.namespace.SnapshotKind}: bloom, recent and exact), and how each kind's store is made durable, by
 * deja's journal and snapshots or by RocksDB's write-ahead log (docs/DESIGN.md section 5).
 */
package dev.deja.namespace;
