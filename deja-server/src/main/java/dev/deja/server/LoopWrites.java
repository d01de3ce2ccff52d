package dev.deja.server;

import dev.deja.journal.deferred.DeferredWrites;
import io.netty.util.concurrent.FastThreadLocal;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The journal writes of one event loop: the requests it executes in one turn of the loop, from every connection it
 * serves, have their journal records written together once its reads are done (one write per namespace per turn,
 * as Redis writes its append-only file once before it answers the clients it read from), and only then are their
 * replies sent. With many clients sending one request at a time this saves a write system call per request.
 */
final class LoopWrites {

    private static final Logger log = LoggerFactory.getLogger(LoopWrites.class);

    private static final FastThreadLocal<LoopWrites> CURRENT = new FastThreadLocal<>() {
        @Override
        protected LoopWrites initialValue() {
            return new LoopWrites();
        }
    };

    private final DeferredWrites deferred = new DeferredWrites();
    private List<Runnable> afterWrite = new ArrayList<>();
    private List<Runnable> running = new ArrayList<>();
    private boolean scheduled;

    /** The calling event loop's. */
    static LoopWrites current() {
        return CURRENT.get();
    }

    /** Runs {@code calls}, keeping the journal writes they make for the end of this turn of the loop. */
    void collect(Runnable calls) {
        deferred.collect(calls);
    }

    /**
     * When records wait to be written, makes sure they are written in this turn of {@code loop} and runs
     * {@code then} after, returning true; returns false when nothing waits.
     */
    boolean thenRun(Executor loop, Runnable then) {
        if (!deferred.pending()) {
            return false;
        }
        afterWrite.add(then);
        if (!scheduled) {
            scheduled = true;
            // a task queued from the loop itself runs once the loop has handled this turn's reads
            loop.execute(this::write);
        }
        return true;
    }

    private void write() {
        scheduled = false;
        deferred.write();
        // what runs now may collect and wait again: that goes to the next write
        List<Runnable> now = afterWrite;
        afterWrite = running;
        running = now;
        try {
            for (Runnable r : now) {
                try {
                    r.run();
                } catch (RuntimeException e) {
                    // one connection's failure must not leave the others unanswered
                    log.error("answering after a journal write failed", e);
                }
            }
        } finally {
            now.clear();
        }
    }
}
