package dev.deja.http;

import io.netty.handler.codec.http.HttpResponseStatus;

/** A request refused with a given status and message; becomes a JSON error reply. */
final class HttpProblem extends RuntimeException {

    private final HttpResponseStatus status;
    private final String allow;

    HttpProblem(HttpResponseStatus status, String message) {
        this(status, message, null);
    }

    private HttpProblem(HttpResponseStatus status, String message, String allow) {
        super(message, null, false, false);
        this.status = status;
        this.allow = allow;
    }

    HttpResponseStatus status() {
        return status;
    }

    /** The methods the path allows, for a 405's {@code Allow} header; null otherwise. */
    String allow() {
        return allow;
    }

    static HttpProblem methodNotAllowed(String message, String allow) {
        return new HttpProblem(HttpResponseStatus.METHOD_NOT_ALLOWED, message, allow);
    }

    static HttpProblem badRequest(String message) {
        return new HttpProblem(HttpResponseStatus.BAD_REQUEST, message);
    }

    static HttpProblem tooLarge(String message) {
        return new HttpProblem(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, message);
    }
}
