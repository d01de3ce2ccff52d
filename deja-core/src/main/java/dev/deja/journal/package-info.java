/**
 * Durability for the stores held in memory: a {@link dev.deja.journal.JournaledSeenSet} applies each change to its
 * store and appends it to a write-ahead journal of checksummed records, fsynced by the policy chosen
 * ({@link dev.deja.journal.FsyncPolicy}), takes fuzzy snapshots of the store while writes go on, and on opening
 * recovers the newest valid snapshot and replays the journal after it, cutting or setting aside what is damaged. The
 * package holds the journal, the snapshot and segment files, recovery, and the threads the journals and snapshots of
 * every store share ({@link dev.deja.journal.JournalThreads}).
 */
package dev.deja.journal;
