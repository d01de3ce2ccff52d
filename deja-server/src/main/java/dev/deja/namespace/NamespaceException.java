package dev.deja.namespace;

/**
 * A namespace operation refused: the namespace is missing, exists already or is damaged, or the server cannot hold
 * another.
 */
public final class NamespaceException extends RuntimeException {

    /** Why the operation was refused. */
    public enum Problem {
        /** No namespace has that name (and it was not to be created). */
        UNKNOWN,
        /** A namespace with that name exists already. */
        EXISTS,
        /** The namespace would take more heap or native memory than the server's limits leave free. */
        NO_MEMORY,
        /** The server holds as many namespaces as it may. */
        TOO_MANY,
        /** The namespace's store is closed: the server is stopping, or the store could not be opened again. */
        CLOSED,
        /** The namespace's files could not be opened when the server started: it is not served until reset. */
        DAMAGED
    }

    private final Problem problem;

    NamespaceException(Problem problem, String message) {
        super(message);
        this.problem = problem;
    }

    /** Why the operation was refused. */
    public Problem problem() {
        return problem;
    }

    /** The hint names auto-create only where it would have helped: on a server started without it. */
    static NamespaceException unknown(String name, boolean autoCreate) {
        return new NamespaceException(
                Problem.UNKNOWN,
                "namespace '" + name + "' does not exist (create it first"
                        + (autoCreate ? ")" : ", or start the server with auto-create on)"));
    }

    static NamespaceException damaged(DamagedNamespace damaged) {
        String name = damaged.name();
        String remedy = damaged.resettable()
                ? "DJ.RESET " + name + " READABLE opens it from what its files still hold; DJ.RESET " + name
                        + " EMPTY starts it empty, its files kept aside; DJ.DROP " + name + " deletes it"
                : "Its metadata cannot be read, so it cannot be reset; DJ.DROP " + name + " deletes it";
        return new NamespaceException(
                Problem.DAMAGED,
                "namespace '" + name + "' is not served: it could not be opened (" + damaged.reason() + "). " + remedy);
    }

    static NamespaceException noMemory(String message) {
        return new NamespaceException(Problem.NO_MEMORY, message);
    }

    static NamespaceException tooMany(String name, int limit) {
        return new NamespaceException(
                Problem.TOO_MANY,
                "cannot create namespace '" + name + "': the server holds" + " at most " + limit
                        + " namespaces (--max-namespaces); delete one first");
    }

    /** A write that met the namespace's store closed by a delete; a request a moment later finds no namespace. */
    static NamespaceException deletedMeanwhile(String name) {
        return new NamespaceException(
                Problem.UNKNOWN,
                "namespace '" + name + "' was deleted while this command ran;" + " nothing was changed");
    }

    static NamespaceException closed(String name, String why) {
        return new NamespaceException(
                Problem.CLOSED, "namespace '" + name + "' " + why + "; nothing was changed," + " retry");
    }

    static NamespaceException exists(String name) {
        return new NamespaceException(Problem.EXISTS, "namespace '" + name + "' already exists");
    }
}
