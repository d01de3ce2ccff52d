package dev.deja.server;

import java.util.concurrent.CompletionException;

/** What went wrong in a future: the front ends answer the cause, not the wrapper a dependent stage adds. */
public final class Failures {

    private Failures() {}

    /** The cause of a {@link CompletionException}, or the error itself. */
    public static Throwable cause(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }
}
