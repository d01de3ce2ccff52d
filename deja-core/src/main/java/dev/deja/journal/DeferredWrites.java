package dev.deja.journal;

import java.util.ArrayList;
import java.util.List;

/**
 * Lets one thread make many journaled calls and write their records with one write per journal later, as a server
 * does for the commands its clients sent: under {@code everysec} and {@code no} each call would otherwise write its
 * own records before it returns (see {@link Journal#writeNow}).
 *
 * <p>The futures of {@link JournaledSeenSet#checkThenAddAllAsync} and {@link JournaledSeenSet#forgetAllAsync}
 * called inside {@link #collect} complete only once {@link #write} writes; waiting for one of them before that
 * would wait for the journal's background work (up to a second). The blocking calls are not deferred.
 *
 * <p>An instance belongs to one thread (an event loop collects across the connections it serves and writes once
 * per turn of its loop).
 */
public final class DeferredWrites {

    private static final ThreadLocal<DeferredWrites> CURRENT = new ThreadLocal<>();

    /** The journals appended to since the last write; one or two in practice, so a list. */
    private final List<Journal> journals = new ArrayList<>(2);

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

    /** Writes what an asynchronous call appended to {@code journal} now, or at the current collection's write. */
    static void written(Journal journal) {
        DeferredWrites deferred = CURRENT.get();
        if (!journal.appendersWrite()) {
            return; // the journal's background work writes them
        }
        if (deferred == null) {
            journal.writeNow();
        } else if (!deferred.journals.contains(journal)) {
            deferred.journals.add(journal);
        }
    }
}
