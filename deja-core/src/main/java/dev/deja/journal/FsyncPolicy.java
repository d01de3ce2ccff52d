package dev.deja.journal;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * When the journal asks the operating system to put appended records on the disk, as Redis's {@code appendfsync}.
 *
 * <p>Under every policy a write returns only after its record has been handed to the operating system, so killing
 * the process loses nothing that was acknowledged. The policies differ in what a power loss or kernel crash may lose.
 */
public enum FsyncPolicy {
    /** Every group of records is fsynced before its writers return: a power loss loses nothing acknowledged. */
    ALWAYS,
    /** The journal is fsynced at most once a second: a power loss may lose the last second of writes. */
    EVERYSEC,
    /** The journal is fsynced only when a segment is closed: the operating system decides when data reaches disk. */
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
        throw new IllegalArgumentException("fsync must be one of "
                + Arrays.stream(values())
                        .map(p -> p.name().toLowerCase(Locale.ROOT))
                        .collect(Collectors.joining("|")) + " (got "
                + (name == null ? "null" : "\"" + name + "\"") + ")");
    }
}
