package dev.deja.journal;

import java.util.ArrayList;
import java.util.List;

/**
 * Lets one thread make many journaled calls and write their records with one write per journal at the end, as a
 * server does for the commands a client pipelined: under {@code everysec} and {@code no} each call would otherwise
 * write its own records before it returns (see {@link Journal#writeNow}).
 *
 * <p>Inside {@link #run}, the futures of {@link JournaledSeenSet#checkThenAddAllAsync} and
 * {@link JournaledSeenSet#forgetAllAsync} complete only once {@code run} writes, just before it returns; waiting
 * for one of them inside {@code run} would wait for the writer thread (up to a second). The blocking calls are not
 * deferred.
 */
public final class DeferredWrites {

    private static final ThreadLocal<DeferredWrites> CURRENT = new ThreadLocal<>();

    /** The journals appended to inside {@link #run}; one or two in practice, so a list. */
    private final List<Journal> journals = new ArrayList<>(2);

    private DeferredWrites() {
    }

    /** Runs {@code calls}, deferring the journal writes of the asynchronous calls they make to its end. */
    public static void run(Runnable calls) {
        if (CURRENT.get() != null) {
            calls.run(); // nested: the outer run writes
            return;
        }
        DeferredWrites deferred = new DeferredWrites();
        CURRENT.set(deferred);
        try {
            calls.run();
        } finally {
            CURRENT.remove();
            for (Journal journal : deferred.journals) {
                journal.writeNow();
            }
        }
    }

    /** Writes what an asynchronous call appended to {@code journal} now, or at the end of the current run. */
    static void written(Journal journal) {
        DeferredWrites deferred = CURRENT.get();
        if (deferred == null) {
            journal.writeNow();
        } else if (!deferred.journals.contains(journal)) {
            deferred.journals.add(journal);
        }
    }
}
