package dev.deja.kafka;

/**
 * Which Kafka Streams state store a {@link Dedup} step keeps its ids in. Both have a changelog topic, so a task moved
 * to another instance is rebuilt from Kafka and standby replicas work; both age ids out in whole time slices.
 */
public enum StoreKind {
    /**
     * deja's exact store (RocksDB, the window cut into time-sliced generations, an in-memory key filter per
     * generation so that a new id is answered without reading disk), registered as a state store. Its changelog
     * carries the ids added since the last commit in batches of up to {@value ChangelogBatch#MAX_ENTRIES} per
     * record, with time-based retention (the window plus {@value ExactStateStore#CHANGELOG_EXTRA_RETENTION_HOURS}
     * hours) instead of compaction. An id is held for at least the window and at most one slice (an eighth of it)
     * and a sixty-fourth of it longer (ids are written to the store in batches and dated when written, at most a
     * sixty-fourth of the window late); with record time, an id is dated by stream time, so a late record's id counts
     * from when it arrived. The window is at least one second, and {@link Dedup.Builder#maxIdsPerPartition} does not
     * apply.
     */
    EXACT,
    /**
     * Kafka Streams' persistent segmented window store, one changelog record per id (compacted and deleted with the
     * window). An id is held exactly the window around its time, late records included, and a cap on ids per
     * partition can shrink the window.
     */
    WINDOW
}
