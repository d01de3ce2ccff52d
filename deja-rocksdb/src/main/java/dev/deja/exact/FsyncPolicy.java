package dev.deja.exact;

/**
 * When the exact store forces RocksDB's write-ahead log to disk, named like Redis's {@code appendfsync}.
 */
public enum FsyncPolicy {
    /** Every write batch is synced before it is acknowledged: nothing acknowledged is lost, even on power loss. */
    ALWAYS,
    /** The log is synced once a second: a power loss may lose the last second; a process crash loses nothing. */
    EVERYSEC,
    /** The operating system decides: a process crash loses nothing, a power loss may lose more. */
    NO
}
