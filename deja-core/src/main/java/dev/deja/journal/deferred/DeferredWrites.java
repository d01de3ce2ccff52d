package dev.deja.journal.deferred;

import java.util.ArrayList;
import java.util.List;

/**
 * Lets one thread make many journaled calls and write their records with one write per journal later, as a server
 * does for the commands its clients sent: under {@code everysec} and {@code no} each call would otherwise write its
 * own records before it returns.
 *
 * <p>The futures of {@link dev.deja.journal.JournaledSeenSet#checkThenAddAllAsync} and
 * {@link dev.deja.journal.JournaledSeenSet#forgetAllAsync}
 * called inside {@link #collect} complete only once {@link #write} writes; waiting for one of them before that
 * would wait for the journal's background work (up to a second). The blocking calls are not deferred.
 *
 * <p>An instance belongs to one thread (an event loop collects across the connections it serves and writes once
 * per turn of its loop).
 *
 * <p>The package is not part of deja-core's API: it is exported to deja-server only, whose event loops use it.
 */
public final class DeferredWrites {

    private static final ThreadLocal<DeferredWrites> CURRENT = new ThreadLocal<>();

    /** The journals appended to since the last write; one or two in practice, so a list. */
    private final List<Writer> journals = new ArrayList<>(2);

    /** A journal whose appended records wait until {@link #writeNow} writes them. */
    public interface Writer {
        /** Writes every record appended so far, on the calling thread. */
        void writeNow();
    }

    /** Runs {@code calls} and writes their journal records once, at the end. */
    public static void run(Runnable calls) {
        DeferredWrites deferred = new DeferredWrites();
        deferred.collect(calls);
        deferred.write();
    }

    /** Runs {@code calls}, keeping the journal writes of the asynchronous calls they make for {@link #write}. */
    public void collect(Runnable calls) {
        if (CURRENT.get() != null) {
            calls.run(); // nested: the outer collection keeps them
            return;
        }
        CURRENT.set(this);
        try {
            calls.run();
        } finally {
            // set, not remove: the thread keeps its entry, so its next collection (a server's event loop makes one
            // per turn) allocates none; the entry holds nothing once cleared
            CURRENT.set(null);
        }
    }

    /** Whether some journal has records waiting for {@link #write}. */
    public boolean pending() {
        return !journals.isEmpty();
    }

    /** Writes every journal collected so far (completing or failing the futures waiting on them). */
    public void write() {
        while (!journals.isEmpty()) {
            journals.removeLast().writeNow();
        }
    }

    /**
     * Writes what an asynchronous call appended to {@code journal} now, or at the current collection's write. For a
     * journal whose appenders write their own records; a journal written by its background work does not call it.
     */
    public static void written(Writer journal) {
        DeferredWrites deferred = CURRENT.get();
        if (deferred == null) {
            journal.writeNow();
        } else if (!deferred.journals.contains(journal)) {
            deferred.journals.add(journal);
        }
    }
}
