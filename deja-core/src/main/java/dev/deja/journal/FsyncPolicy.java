package dev.deja.journal;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * When the journal asks the operating system to put appended records on the disk, as Redis's {@code appendfsync}.
 *
 * <p>Under {@code ALWAYS} a write returns only after its record is written and fsynced, so neither a killed process
 * nor a power loss loses anything acknowledged. Under {@code EVERYSEC} and {@code NO} a write returns once its
 * record is queued for the journal's writer thread, which hands queued records to the operating system about every
 * millisecond (as Redis answers once a command is in its AOF buffer): a killed process loses the acknowledged
 * records still queued, at most the journal's buffer plus one group (in practice about the last millisecond of
 * writes), and a power loss or kernel crash loses in addition what the operating system had not put on the disk.
 */
public enum FsyncPolicy {
    /** Every group of records is fsynced before its writers return: a power loss loses nothing acknowledged. */
    ALWAYS,
    /** Writes return when queued; the journal is fsynced about once a second: a power loss may lose the last second. */
    EVERYSEC,
    /** Writes return when queued; fsynced only when a segment is closed: the operating system decides when. */
    NO;

    /** The policy named {@code always}, {@code everysec} or {@code no} (case-insensitive). */
    public static FsyncPolicy parse(String name) {
        if (name != null) {
            for (FsyncPolicy policy : values()) {
                if (policy.name().equalsIgnoreCase(name.trim())) {
                    return policy;
                }
            }
        }
        throw new IllegalArgumentException("fsync must be one of " + Arrays.stream(values())
                .map(p -> p.name().toLowerCase(Locale.ROOT)).collect(Collectors.joining("|")) + " (got "
                + (name == null ? "null" : "\"" + name + "\"") + ")");
    }
}
