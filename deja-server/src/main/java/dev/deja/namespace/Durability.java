package dev.deja.namespace;

import dev.deja.journal.FsyncPolicy;
import java.time.Duration;

/**
 * How namespaces are kept durable: the journal's fsync policy and how often each namespace is snapshotted.
 *
 * @param fsync            when the journal is forced to disk
 * @param snapshotInterval time between snapshots of a namespace that changed; zero for none but on demand and at
 *                         shutdown
 * @param fromWhatIsReadable whether a store no snapshot and no whole journal can rebuild is opened from what its
 *                         files still hold instead of being refused (an operator's reset, never the default)
 */
public record Durability(FsyncPolicy fsync, Duration snapshotInterval, boolean fromWhatIsReadable) {

    /** Durability that refuses a store it cannot rebuild whole. */
    public Durability(FsyncPolicy fsync, Duration snapshotInterval) {
        this(fsync, snapshotInterval, /* fromWhatIsReadable= */ false);
    }

    /** The same, opening a store from what is readable. */
    Durability fromReadableFiles() {
        return new Durability(fsync, snapshotInterval, /* fromWhatIsReadable= */ true);
    }
}
