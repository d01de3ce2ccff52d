package dev.deja.http;

import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.LinkedHashMap;
import java.util.Map;

/** A request refused with a given status, message and headers; becomes a JSON error reply. */
final class HttpProblem extends RuntimeException {

    private final HttpResponseStatus status;
    private final Map<String, String> headers;

    HttpProblem(HttpResponseStatus status, String message) {
        this(status, message, Map.of());
    }

    private HttpProblem(HttpResponseStatus status, String message, Map<String, String> headers) {
        super(message, null, false, false);
        this.status = status;
        this.headers = headers;
    }

    HttpResponseStatus status() {
        return status;
    }

    /** Headers the error reply carries beside the JSON body ({@code Allow}, {@code WWW-Authenticate}). */
    Map<String, String> headers() {
        return headers;
    }

    /** This problem with one more header on its reply. */
    HttpProblem withHeader(String name, String value) {
        Map<String, String> more = new LinkedHashMap<>(headers);
        more.put(name, value);
        return new HttpProblem(status, getMessage(), Map.copyOf(more));
    }

    /** The JSON error reply. */
    HttpReply reply() {
        HttpReply reply = HttpReply.error(status, getMessage());
        for (Map.Entry<String, String> header : headers.entrySet()) {
            reply = reply.withHeader(header.getKey(), header.getValue());
        }
        return reply;
    }

    static HttpProblem methodNotAllowed(String message, String allow) {
        return new HttpProblem(HttpResponseStatus.METHOD_NOT_ALLOWED, message).withHeader("Allow", allow);
    }

    static HttpProblem badRequest(String message) {
        return new HttpProblem(HttpResponseStatus.BAD_REQUEST, message);
    }

    static HttpProblem tooLarge(String message) {
        return new HttpProblem(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, message);
    }
}
