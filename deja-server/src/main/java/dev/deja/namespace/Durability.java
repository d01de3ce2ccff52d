package dev.deja.namespace;

import dev.deja.journal.FsyncPolicy;
import java.time.Duration;

/**
 * How namespaces are kept durable: the journal's fsync policy and how often each namespace is snapshotted.
 *
 * @param fsync            when the journal is forced to disk
 * @param snapshotInterval time between snapshots of a namespace that changed; zero for none but on demand and at
 *                         shutdown
 */
public record Durability(FsyncPolicy fsync, Duration snapshotInterval) {}
