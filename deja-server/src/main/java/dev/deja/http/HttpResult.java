package dev.deja.http;

import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/** What an endpoint answers: a reply now, a reply once its write is durable, or work to run off the event loop. */
sealed interface HttpResult {

    /** A reply ready now. */
    record Now(HttpReply reply) implements HttpResult {}

    /** A reply once the journal has the request's writes; the future fails with the write's error. */
    record Later(CompletableFuture<HttpReply> reply) implements HttpResult {}

    /**
     * Work that may take seconds (creating, deleting, clearing or merging a namespace), run off the event loop so
     * that the other connections it serves are not held up; it returns a {@link Now} or a {@link Later}.
     */
    record OffLoop(Supplier<HttpResult> work) implements HttpResult {}

    static HttpResult now(HttpReply reply) {
        return new Now(reply);
    }
}
