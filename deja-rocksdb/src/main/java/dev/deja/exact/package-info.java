/**
 * The {@code exact} store: a seen-set on RocksDB that keeps every key's bytes and never answers wrongly about a key
 * within its window ({@link dev.deja.exact.ExactStore}, opened by {@link dev.deja.exact.ExactStoreBuilder}), with
 * an optional key-value view for Redis's {@code SET id value NX EX seconds} idiom. Its public types are that store,
 * its metrics ({@link dev.deja.exact.ExactMetrics}), what it holds about a key ({@link dev.deja.exact.KeyInfo}),
 * how ids become stored bytes ({@link dev.deja.exact.IdFormat}) and its read error
 * ({@link dev.deja.exact.StoreReadException}); the rest, package-private, is the engine behind them: one column family
 * per time slice (a generation) with an in-memory key filter each, the RocksDB tuning, and the on-disk metadata and
 * key filter files (docs/FORMAT.md section 6). The threads all exact stores share are in
 * {@code dev.deja.exact.threads}.
 */
package dev.deja.exact;
