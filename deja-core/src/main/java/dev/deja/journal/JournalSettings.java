package dev.deja.journal;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;

/**
 * How a {@link Journal} writes: the settings its store was built with.
 *
 * @param dir           the directory of the segment files
 * @param policy        when records are fsynced, and so who writes them
 * @param segmentBytes  the size past which a segment is closed and a new one started
 * @param bufferRecords how many records may wait for the disk before appenders block
 * @param groupRecords  the most records written with one write (and one fsync)
 * @param retryDelay    how long to wait before retrying a failed write
 * @param opener        how segment files are opened
 * @param threads       where the journal's background work runs, shared with other journals
 */
record JournalSettings(
        Path dir,
        FsyncPolicy policy,
        long segmentBytes,
        int bufferRecords,
        int groupRecords,
        Duration retryDelay,
        ChannelOpener opener,
        ScheduledExecutorService threads) {}
