package dev.deja.journal;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * What recovery loaded when a journaled store was opened, and every piece of damage it found and cut or set aside.
 *
 * @param snapshot          the snapshot loaded, or empty when the store started empty
 * @param snapshotPosition  journal position the snapshot covers (records before it were not replayed); 0 if none
 * @param rejectedSnapshots newer snapshots that failed verification, each with the reason
 * @param recordsReplayed   journal records applied on top of the snapshot
 * @param nextPosition      the sequence number the next journal record gets
 * @param bytesCut          bytes removed from the journal (torn or corrupt tails, broken segment headers)
 * @param setAside          files renamed or copied aside as {@code *.corrupt} (rejected snapshots, damaged journal
 *                          data and the journal after it); kept for inspection, never loaded
 * @param problems          one line per cut, set-aside or gap, in the order found
 */
public record RecoveryReport(
        Optional<Path> snapshot,
        long snapshotPosition,
        List<String> rejectedSnapshots,
        long recordsReplayed,
        long nextPosition,
        long bytesCut,
        List<Path> setAside,
        List<String> problems) {

    public RecoveryReport {
        rejectedSnapshots = List.copyOf(rejectedSnapshots);
        setAside = List.copyOf(setAside);
        problems = List.copyOf(problems);
    }

    /** Whether recovery found nothing to cut, set aside or reject. */
    public boolean clean() {
        return rejectedSnapshots.isEmpty() && problems.isEmpty();
    }

    /** One line for a log. */
    public String summary() {
        return "loaded "
                + snapshot.map(p -> p.getFileName() + " (position " + snapshotPosition + ")")
                        .orElse("no snapshot") + ", replayed " + recordsReplayed + " journal records, next position "
                + nextPosition
                + (clean()
                        ? ""
                        : "; rejected snapshots " + rejectedSnapshots + ", cut " + bytesCut + " bytes, set aside "
                                + setAside + ", problems " + problems);
    }
}
