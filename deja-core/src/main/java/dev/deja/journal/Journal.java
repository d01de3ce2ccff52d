package dev.deja.journal;

import dev.deja.background.SerialWork;
import dev.deja.journal.deferred.DeferredWrites;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The write-ahead log of one store: appends hashed operations to segment files with group commit.
 *
 * <p>Appenders put records into a bounded queue. Whoever writes drains whatever has accumulated (up to one group
 * at a time), encodes it into one buffer, writes it with one call, then completes the futures of the calls it
 * covered. Who writes depends on the policy:
 * <ul>
 *   <li>{@link FsyncPolicy#ALWAYS}: the journal's background work, which also forces each group with one fsync
 *       before completing it. An append that finds the work idle wakes it; each run writes one group and runs again
 *       at once while more is queued. While one group is written and fsynced the next accumulates, so the more
 *       writers wait, the larger the groups and the more widely the fsync cost is shared.
 *   <li>{@link FsyncPolicy#EVERYSEC} and {@link FsyncPolicy#NO}: the appender itself, in {@link #writeNow} right
 *       after its call (as Redis writes its append-only file before answering, in the same thread): handing each
 *       call to another thread and back costs more than the write to the page cache. The background work only
 *       fsyncs once a second (outside the lock, so appenders do not wait for the disk's flush), retries failed
 *       writes and writes anything an appender left.
 * </ul>
 * The background work runs on threads shared with other journals ({@link JournalThreads}), one run at a time per
 * journal ({@link SerialWork}), so a journal costs no thread of its own. When the disk falls behind the queue fills
 * and {@link #append} blocks (or, when the appender writes, writes a group itself): memory stays bounded by the
 * queue and the writers slow down to the disk's pace.
 *
 * <p>A failed write or fsync (a full disk) cuts the segment back to its last good end ({@link SegmentWriter}), fails
 * the futures of every record not yet written and keeps those records, in order, to retry every {@code retryDelay}.
 * The log therefore never has a gap, and its sequence numbers equal the order in which the owner applied the
 * operations.
 * While the failure lasts {@link #failure()} is set so the owner can refuse new writes before applying them. A
 * segment that cannot be started when the journal opens (a full disk at start) is a failure too: the store opens and
 * reads, and the background work tries to start the segment every {@code retryDelay}.
 *
 * <p>{@link #append} must be called by one thread at a time, under the owner's lock, in the order the operations
 * were applied to the store.
 */
final class Journal implements AutoCloseable, DeferredWrites.Writer {

    private static final Logger LOG = LoggerFactory.getLogger(Journal.class);
    private static final long EVERYSEC_NANOS = TimeUnit.SECONDS.toNanos(1);

    /**
     * One appended operation, or a marker (op 0, not written) whose future completes when every record before it
     * has; {@code done} is set on the last entry of a call.
     */
    private record Entry(byte op, long seq, long high, long low, long owner, CompletableFuture<Void> done) {
        boolean isMarker() {
            return op == 0;
        }
    }

    private static final byte MARKER = 0;

    private final Path dir;
    private final FsyncPolicy policy;
    private final int groupRecords;
    private final long retryDelayNanos;
    private final BlockingQueue<Entry> queue;
    /** Called (on the writing thread) when the segment being written was deleted by someone else. */
    private final Runnable onSegmentLost;

    private final ByteBuffer groupBuffer;
    /** Whether appenders write their own records ({@link #writeNow}); else only the background work writes. */
    private final boolean inline;
    /** Guards the writing state below: appenders, the background work and close take turns with it. */
    private final ReentrantLock writeLock = new ReentrantLock();
    /**
     * Under {@link FsyncPolicy#ALWAYS} writes and fsyncs the queued groups ({@link #drain}); under the other policies
     * fsyncs once a second and retries failed writes ({@link #tick}).
     */
    private final SerialWork background;

    /** The sequence number the next appended record gets; guarded by the owner's lock. */
    private long nextSeq;

    /** Every record before this sequence number has been written (and fsynced under ALWAYS). */
    private volatile long writtenSeq;

    /** The last write failure, until a write succeeds again. */
    private volatile IOException failure;

    // Writing state: records taken from the queue but not yet written (kept in order while writes fail).
    private final ArrayDeque<Entry> pending = new ArrayDeque<>();
    private final SegmentWriter segment;

    /**
     * A journal whose first record will be {@code nextSeq}, which starts its segment at once; when it cannot (a full
     * disk), it opens anyway and refuses writes until the background work manages to.
     *
     * @param onSegmentLost called, on the writing thread, when the segment being written was deleted by someone else
     */
    Journal(JournalSettings settings, long nextSeq, Runnable onSegmentLost) {
        this.dir = settings.dir();
        this.onSegmentLost = onSegmentLost;
        this.nextSeq = nextSeq;
        this.writtenSeq = nextSeq;
        this.policy = settings.policy();
        this.groupRecords = settings.groupRecords();
        this.retryDelayNanos = settings.retryDelay().toNanos();
        this.queue = new ArrayBlockingQueue<>(settings.bufferRecords());
        this.groupBuffer = Segment.buffer(groupRecords * Segment.RECORD_BYTES);
        this.inline = policy != FsyncPolicy.ALWAYS;
        this.segment = new SegmentWriter(dir, settings.segmentBytes(), settings.opener());
        try {
            segment.start(nextSeq);
        } catch (IOException e) {
            // A full disk at start: the store still opens, so its reads are served; writes are refused until the
            // background work manages to start the segment (reopenIfNeeded).
            failure = e;
            LOG.error(
                    "journal {}: cannot start a segment, refusing writes until the disk accepts them: {}",
                    dir,
                    e.toString());
        }
        this.background = new SerialWork("journal " + dir, settings.threads(), inline ? this::tick : this::drain);
        if (inline) {
            background.start(nextTickNanos());
        } else if (failure != null) {
            background.start(retryDelayNanos);
        }
    }

    /** The sequence number the next record will get: every record before it has been appended. */
    long nextSeq() {
        return nextSeq;
    }

    /** The failure that makes writes fail now, or null when the journal is writing. */
    IOException failure() {
        return failure;
    }

    /**
     * Appends one operation, blocking while the queue is full. {@code done}, when not null, completes once this
     * record and all before it are written (and fsynced under {@link FsyncPolicy#ALWAYS}), or fails if they were
     * not.
     */
    void append(byte op, long high, long low, long owner, CompletableFuture<Void> done) {
        enqueue(new Entry(op, nextSeq, high, low, owner, done));
        nextSeq++;
    }

    /**
     * Completes {@code done} once every record appended so far is written as {@link #append} promises, so that a
     * call that changed nothing (a duplicate) does not return before the change it observed is durable.
     */
    void sync(CompletableFuture<Void> done) {
        if (writtenSeq == nextSeq) {
            done.complete(null);
        } else {
            enqueue(new Entry(MARKER, nextSeq, 0, 0, 0, done));
        }
    }

    /** Whether appenders write their own records with {@link #writeNow} (else the background work writes them). */
    boolean appendersWrite() {
        return inline;
    }

    /**
     * Writes every record queued so far, on the calling thread, when appenders write their own records (see the
     * class comment); does nothing otherwise. Call it after {@link #append} or {@link #sync}, outside the owner's
     * lock, so that their futures complete before this returns (or fail, if the disk refuses the write).
     */
    @Override
    public void writeNow() {
        if (inline && !queue.isEmpty()) {
            writeQueuedLocked();
        }
    }

    private void writeQueuedLocked() {
        writeLock.lock();
        try {
            writeQueued();
        } finally {
            writeLock.unlock();
        }
    }

    /**
     * Under {@link #writeLock}: moves the queue into {@code pending} group by group and writes it. After a failure
     * the records stay pending for the background work to retry, and everything queued is failed at once.
     */
    private void writeQueued() {
        do {
            takeQueued();
            if (pending.isEmpty()) {
                return;
            }
            if (!writePending()) {
                return;
            }
        } while (!queue.isEmpty());
    }

    /**
     * Under {@link #writeLock}: moves queued records into {@code pending}, one group, or all of them while writes
     * fail (to fail their writers now rather than when the disk recovers). Memory stays within the queue's capacity
     * plus one group.
     */
    private void takeQueued() {
        if (failure == null) {
            queue.drainTo(pending, Math.max(0, groupRecords - pending.size()));
        } else {
            queue.drainTo(pending);
        }
    }

    /** Writes {@code pending}; on failure fails their futures, keeps them, and returns false. */
    private boolean writePending() {
        try {
            writeAll(pending);
            if (failure != null) {
                LOG.info("journal {}: writing again after: {}", dir, failure.toString());
                failure = null;
            }
            return true;
        } catch (IOException e) {
            if (failure == null) {
                LOG.error("journal {}: cannot write, refusing writes until the disk accepts them", dir, e);
            }
            failure = e;
            fail(pending, e);
            return false;
        }
    }

    private void enqueue(Entry e) {
        if (inline) {
            // The appender holds the owner's lock; when the queue is full it writes a group itself rather than
            // wait for the background work, which only looks once a second.
            while (!queue.offer(e)) {
                writeQueuedLocked();
            }
            return;
        }
        // Uninterruptible: the store already holds the change, so giving up here would leave it out of the log.
        // The queue is full only while a drain is queued or running (woken below by the appends that filled it),
        // which makes room.
        boolean interrupted = false;
        while (true) {
            try {
                queue.put(e);
                break;
            } catch (InterruptedException ex) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        // While writes fail a retry is queued or running and takes the record once its delay is out (drain);
        // waking the work would retry at once, at every append.
        if (failure == null) {
            background.wake();
        }
    }

    /**
     * Writes everything appended, fsyncs it and closes the segment, on the calling thread once the background work
     * has stopped; the owner appends nothing afterwards. When this returns, nothing of this journal runs on the
     * shared threads.
     */
    @Override
    public void close() {
        background.stop();
        writeLock.lock();
        try {
            if (!inline && !(pending.isEmpty() && queue.isEmpty())) {
                startAgainIfSegmentDeleted(); // as before every group written under always
            }
            writeQueued();
            if (!pending.isEmpty() && !writePending()) {
                LOG.error("journal {}: closed with {} records not written", dir, pending.size());
            }
            if (failure == null) {
                segment.close();
            } else {
                segment.closeWithoutFsync();
            }
        } finally {
            writeLock.unlock();
        }
    }

    /**
     * One run of the background work under {@link FsyncPolicy#ALWAYS}: writes and fsyncs one group (or retries what
     * failed), and returns when to run next: at once while more is queued, after the retry delay while writes fail
     * (then appenders do not wake it, so the retries keep their pace), else when an append wakes it.
     */
    private long drain() {
        writeLock.lock();
        try {
            takeQueued();
            if (pending.isEmpty()) {
                reopenIfNeeded();
            } else {
                startAgainIfSegmentDeleted();
                writePending();
            }
        } finally {
            writeLock.unlock();
        }
        return failure != null ? retryDelayNanos : queue.isEmpty() ? SerialWork.IDLE : 0;
    }

    /**
     * One run of the background work when appenders write: fsyncs (under {@code everysec}) when a second has passed
     * since the last fsync, retries a failed write, writes anything an appender left; runs again once a second, or
     * every retry delay while writes fail. It never waits on the queue, so appending wakes nobody.
     */
    private long tick() {
        writeLock.lock();
        try {
            startAgainIfSegmentDeleted();
            writeQueued();
            if (!pending.isEmpty()) {
                writePending(); // a retry after a failure
            } else {
                reopenIfNeeded();
            }
        } finally {
            writeLock.unlock();
        }
        forceOutsideLock();
        return nextTickNanos();
    }

    /** When the next {@link #tick} is due: when the next fsync is, or after the retry delay while writes fail. */
    private long nextTickNanos() {
        writeLock.lock();
        try {
            return failure != null
                    ? retryDelayNanos
                    : segment.dirty() && policy == FsyncPolicy.EVERYSEC
                            ? segment.lastForceNanos() + EVERYSEC_NANOS - System.nanoTime()
                            : EVERYSEC_NANOS;
        } finally {
            writeLock.unlock();
        }
    }

    /**
     * Fsyncs the segment when a second has passed since the last time, without holding {@link #writeLock}, so
     * appenders keep writing into the page cache meanwhile (a file may be forced while it is written).
     */
    private void forceOutsideLock() {
        FileChannel ch;
        writeLock.lock();
        try {
            if (policy != FsyncPolicy.EVERYSEC || System.nanoTime() - segment.lastForceNanos() < EVERYSEC_NANOS) {
                return;
            }
            ch = segment.channelToFsync();
        } finally {
            writeLock.unlock();
        }
        if (ch == null) {
            return;
        }
        try {
            ch.force(false);
        } catch (ClosedChannelException e) {
            // the segment was closed meanwhile, and closing a segment forces it
        } catch (IOException e) {
            // retried within a second, and the next group's own write reports a lasting failure
            LOG.warn("journal {}: fsync failed: {}", dir, e.toString());
            writeLock.lock();
            try {
                segment.fsyncFailed();
            } finally {
                writeLock.unlock();
            }
        }
    }

    /**
     * Drops a segment file deleted while it is written ({@link SegmentWriter#dropIfDeleted}), so that the next write
     * starts a new segment at its own sequence number, and tells the owner, which writes a snapshot: it holds every
     * change before its position, the deleted file's included, and replay goes on from the new segment. A crash
     * before that snapshot is written loses what only the deleted file held. Called under {@link #writeLock} by the
     * background work (once a second, or before each group under {@link FsyncPolicy#ALWAYS}) and by close.
     */
    private void startAgainIfSegmentDeleted() {
        if (segment.dropIfDeleted()) {
            onSegmentLost.run();
        }
    }

    /**
     * Starts the segment that could not be started (at open, on a full disk) when nothing is pending to do it, so
     * that writes are taken again once the disk has room; the background work calls it while writes fail.
     */
    private void reopenIfNeeded() {
        if (segment.isOpen() || failure == null) {
            return;
        }
        try {
            segment.start(writtenSeq);
            LOG.info("journal {}: writing again after: {}", dir, failure.toString());
            failure = null;
        } catch (IOException e) {
            failure = e;
        }
    }

    /** Writes the pending records group by group; on failure the unwritten ones stay pending. */
    private void writeAll(ArrayDeque<Entry> pending) throws IOException {
        while (!pending.isEmpty()) {
            int n = Math.min(groupRecords, pending.size());
            if (segment.needsNewSegmentFor(n)) {
                segment.start(pending.peekFirst().seq());
            }
            groupBuffer.clear();
            var it = pending.iterator();
            for (int i = 0; i < n; i++) {
                Entry e = it.next();
                if (!e.isMarker()) {
                    Segment.putRecord(groupBuffer, e.op(), e.seq(), e.high(), e.low(), e.owner());
                }
            }
            groupBuffer.flip();
            if (groupBuffer.hasRemaining() && policy == FsyncPolicy.ALWAYS) {
                segment.writeAndForce(groupBuffer);
            } else if (groupBuffer.hasRemaining()) {
                segment.write(groupBuffer);
            }
            for (int i = 0; i < n; i++) {
                Entry e = pending.pollFirst();
                if (!e.isMarker()) {
                    writtenSeq = e.seq() + 1;
                }
                if (e.done() != null) {
                    e.done().complete(null);
                }
            }
        }
    }

    private static void fail(ArrayDeque<Entry> pending, IOException cause) {
        JournalWriteException error = new JournalWriteException(
                "journal write failed (" + cause.getMessage()
                        + "); the change is not durable and writes are refused until the disk accepts them",
                cause);
        for (Entry e : pending) {
            if (e.done() != null) {
                e.done().completeExceptionally(error);
            }
        }
    }
}
