package dev.deja.http;

import dev.deja.exact.StoreReadException;
import dev.deja.journal.JournalWriteException;
import dev.deja.metrics.ServerMetrics;
import dev.deja.namespace.Namespace;
import dev.deja.namespace.NamespaceException;
import dev.deja.seen.StoreClosedException;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.io.UncheckedIOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Turns what went wrong in a request into its JSON error reply, with the status that says so, and counts it. */
final class HttpErrors {

    private static final Logger log = LoggerFactory.getLogger(HttpErrors.class);

    /** The front end's name in the error counters. */
    static final String FRONT_END = "http";

    private final ServerMetrics metrics;

    HttpErrors(ServerMetrics metrics) {
        this.metrics = metrics;
    }

    /** The reply to {@code call} that failed with {@code error}. */
    HttpReply reply(HttpCall call, Throwable error) {
        return switch (error) {
            case HttpProblem e -> {
                count(e.status().reasonPhrase());
                yield e.reply();
            }
            case NamespaceException e ->
                counted(
                        switch (e.problem()) {
                            case UNKNOWN -> HttpResponseStatus.NOT_FOUND;
                            case EXISTS -> HttpResponseStatus.CONFLICT;
                            case NO_MEMORY, TOO_MANY -> HttpResponseStatus.INSUFFICIENT_STORAGE;
                            case CLOSED -> HttpResponseStatus.SERVICE_UNAVAILABLE;
                            // waiting does not help: an operator resets or deletes the namespace
                            case DAMAGED -> HttpResponseStatus.INTERNAL_SERVER_ERROR;
                        },
                        e.getMessage(),
                        e.problem().name());
            case IllegalArgumentException e -> counted(HttpResponseStatus.BAD_REQUEST, e.getMessage(), "Bad Request");
            case UnsupportedOperationException e ->
                counted(HttpResponseStatus.BAD_REQUEST, e.getMessage(), "Bad Request");
            case JournalWriteException e -> counted(HttpResponseStatus.SERVICE_UNAVAILABLE, e.getMessage(), "journal");
            // a damaged table file: waiting does not help, the store must be restored from a copy
            case StoreReadException e -> counted(HttpResponseStatus.INTERNAL_SERVER_ERROR, e.getMessage(), "read");
            case UncheckedIOException e -> counted(HttpResponseStatus.SERVICE_UNAVAILABLE, e.getMessage(), "storage");
            case StoreClosedException e ->
                counted(HttpResponseStatus.SERVICE_UNAVAILABLE, Namespace.closedMeanwhile(e), "closed");
            default -> {
                log.error("{} {} failed", call.method(), call.path(), error);
                yield counted(
                        HttpResponseStatus.SERVICE_UNAVAILABLE,
                        "cannot serve this request now: " + error,
                        "unavailable");
            }
        };
    }

    /** Counts one request answered with an error, by reason. */
    void count(String reason) {
        metrics.error(FRONT_END, reason);
    }

    private HttpReply counted(HttpResponseStatus status, String message, String reason) {
        count(reason);
        return HttpReply.error(status, message);
    }
}
