package dev.deja.namespace;

/** How an operator brings a damaged namespace ({@link DamagedNamespace}) back into service. */
public enum ResetFrom {
    /**
     * From what its files still hold: every journal record left is replayed into an empty store, damaged snapshots
     * are set aside, and a snapshot is written at once. Keys only the damaged snapshots held are lost.
     */
    READABLE,
    /** From nothing: every file but its metadata is moved into a {@code set-aside-*} directory, and it starts empty. */
    EMPTY
}
