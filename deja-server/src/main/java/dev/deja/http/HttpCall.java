package dev.deja.http;

import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One HTTP request copied out of Netty's buffers, so it can wait for the end of the read and be executed with the
 * rest of the pipelined batch.
 *
 * @param version       the request's HTTP version
 * @param method        the method
 * @param path          the decoded path
 * @param parameters    the query parameters, percent-decoded to one char per byte (ISO-8859-1), so that a key's
 *                      bytes are exactly the ones the client encoded; read them with {@link #parameter} (text) or
 *                      {@link #parameterBytes} (keys)
 * @param authorization the Authorization header, or null
 * @param contentType   the Content-Type header, or null
 * @param ifNoneMatch   the If-None-Match header (the entity tags of a copy the client has), or null
 * @param body          the body's bytes
 * @param keepAlive     whether the connection stays open after the reply
 * @param failure       why the request could not be decoded, or null; an {@link HttpProblem} for one that was
 *                      refused before it was read whole (a body over the limit) or for its headers (no Host, an
 *                      unsupported expectation)
 * @param malformedUri  why the request's path or query could not be percent-decoded, or null; the request was
 *                      framed correctly, so it gets a 400 and the connection stays open
 */
@SuppressWarnings("ArrayRecordComponent") // never compared: a request is read once and dropped
record HttpCall(
        HttpVersion version,
        HttpMethod method,
        String path,
        Map<String, List<String>> parameters,
        String authorization,
        String contentType,
        String ifNoneMatch,
        byte[] body,
        boolean keepAlive,
        Throwable failure,
        String malformedUri) {

    /**
     * Netty's request line holds one char per byte; decoding %XX to one char per byte as well keeps a key's bytes
     * whether the client percent-encoded them or not, and never folds two different invalid UTF-8 sequences into the
     * same replacement character (the same key). Only '&' separates parameters, as in HTML forms: a ';' is a
     * character of the key ('e=a;ns=x' is the key "a;ns=x", not "a" in "x"). The builder keeps only these settings,
     * so every request's decoder is built from the one.
     */
    private static final QueryStringDecoder.Builder QUERY =
            QueryStringDecoder.builder().charset(StandardCharsets.ISO_8859_1).semicolonIsNormalChar(true);

    /** Copies what the API needs out of a Netty request. */
    static HttpCall of(FullHttpRequest request) {
        byte[] body = new byte[request.content().readableBytes()];
        request.content().getBytes(request.content().readerIndex(), body);
        Throwable failure =
                request.decoderResult().isFailure() ? request.decoderResult().cause() : null;
        int hosts = request.headers().getAll(HttpHeaderNames.HOST).size();
        if (failure == null
                && hosts != 1
                && request.protocolVersion().majorVersion() == 1
                && request.protocolVersion().minorVersion() >= 1) {
            // RFC 9112, section 3.2 (a MUST): which host would a request with two have meant?
            failure = HttpProblem.badRequest("an HTTP/1.1 request needs exactly one Host header (got " + hosts + ")");
        }
        String expectation = failure == null ? unsupportedExpectation(request) : null;
        if (expectation != null) {
            // RFC 9110, section 10.1.1; the aggregator leaves it to be answered in its turn (see BodyLimit)
            failure = new HttpProblem(
                    HttpResponseStatus.EXPECTATION_FAILED,
                    "unsupported expectation '" + expectation + "': only '100-continue' is understood");
        }
        String path;
        Map<String, List<String>> parameters;
        String malformedUri = null;
        try {
            if (request.uri().indexOf('#') >= 0) {
                // Netty's decoder would end the query there and drop what follows, a key's end or its 'ns'
                throw new IllegalArgumentException("a request target cannot hold '#' (a fragment, which clients do"
                        + " not send); a '#' in a key is sent as %23");
            }
            QueryStringDecoder query = QUERY.build(originForm(request.uri()));
            path = utf8(query.path());
            parameters = query.parameters();
        } catch (IllegalArgumentException e) {
            path = request.uri().split("\\?", 2)[0];
            parameters = Map.of();
            malformedUri = "malformed URI: " + e.getMessage();
        }
        return new HttpCall(
                request.protocolVersion(),
                request.method(),
                path,
                parameters,
                request.headers().get(HttpHeaderNames.AUTHORIZATION),
                request.headers().get(HttpHeaderNames.CONTENT_TYPE),
                request.headers().get(HttpHeaderNames.IF_NONE_MATCH),
                body,
                failure == null && HttpUtil.isKeepAlive(request),
                failure,
                malformedUri);
    }

    /**
     * A request that was refused before it was read whole: answered with {@code failure}, then the connection closes.
     */
    static HttpCall failed(Throwable failure) {
        return new HttpCall(
                HttpVersion.HTTP_1_1,
                HttpMethod.GET,
                "",
                Map.of(),
                /* authorization= */ null,
                /* contentType= */ null,
                /* ifNoneMatch= */ null,
                new byte[0],
                /* keepAlive= */ false,
                failure,
                /* malformedUri= */ null);
    }

    /** The value of an HTTP/1.1 request's {@code Expect} header other than "100-continue", or null. */
    static String unsupportedExpectation(HttpMessage message) {
        String expect = message.headers().get(HttpHeaderNames.EXPECT);
        boolean applies = message.protocolVersion().compareTo(HttpVersion.HTTP_1_1) >= 0; // 1.0 ignores it
        return applies && expect != null && !HttpHeaderValues.CONTINUE.contentEqualsIgnoreCase(expect) ? expect : null;
    }

    /**
     * The path and query of a request target, which a client may send in absolute form
     * ({@code GET http://host:8889/check?e=a}, as proxies do); RFC 9112 asks a server to accept it.
     */
    static String originForm(String target) {
        if (target.startsWith("/")
                || !(target.regionMatches(true, 0, "http://", 0, 7)
                        || target.regionMatches(true, 0, "https://", 0, 8))) {
            return target;
        }
        int authority = target.indexOf("://") + 3;
        for (int i = authority; i < target.length(); i++) {
            char c = target.charAt(i);
            if (c == '/') {
                return target.substring(i);
            }
            if (c == '?') {
                return "/" + target.substring(i);
            }
        }
        return "/";
    }

    /**
     * Refuses a query parameter this endpoint does not take, so that a misspelt one (say {@code namespace=} for
     * {@code ns=}) is an error instead of silently falling back to a default.
     *
     * @throws HttpProblem a 400 naming the parameter and the ones the endpoint takes
     */
    void onlyParameters(String... known) {
        for (Map.Entry<String, List<String>> parameter : parameters.entrySet()) {
            String name = parameter.getKey();
            if (!List.of(known).contains(name)) {
                throw HttpProblem.badRequest("unknown query parameter '" + utf8(name) + "' (" + path + " takes: "
                        + (known.length == 0 ? "none" : String.join(", ", known)) + ")");
            }
            if (parameter.getValue().size() > 1) {
                // e=a&e=b: which one was meant? Taking the first would drop a key without a word
                throw HttpProblem.badRequest("query parameter '" + name + "' must be given once (got "
                        + parameter.getValue().size() + ")");
            }
        }
    }

    /** Refuses the request with a 405 naming the methods allowed when its method is not one of them. */
    void allow(HttpMethod... methods) {
        for (HttpMethod allowed : methods) {
            if (allowed.equals(method)) {
                return;
            }
        }
        StringBuilder allowed = new StringBuilder();
        for (HttpMethod allowedMethod : methods) {
            allowed.append(allowed.isEmpty() ? "" : ", ").append(allowedMethod.name());
        }
        throw HttpProblem.methodNotAllowed(
                method + " is not allowed on " + path + " (allowed: " + allowed + ")", allowed.toString());
    }

    /** A query parameter that must be given, as UTF-8 text; a 400 when it is not. */
    String required(String name) {
        String value = parameter(name);
        if (value == null) {
            throw missing(name);
        }
        return value;
    }

    /** The bytes of a query parameter that must be given (see {@link #parameterBytes}); a 400 when it is not. */
    byte[] requiredBytes(String name) {
        byte[] value = parameterBytes(name);
        if (value == null) {
            throw missing(name);
        }
        return value;
    }

    private static HttpProblem missing(String name) {
        return HttpProblem.badRequest("parameter " + name + " is required");
    }

    /**
     * Whether a Content-Type names JSON: {@code application/json} or a {@code +json} type (RFC 6839), parameters
     * such as a charset aside. Only the media type counts: {@code application/jsonl} or {@code application/json-seq}
     * (a line or a record per document) are not one JSON document, and their bodies are read as text lines.
     */
    static boolean isJson(String contentType) {
        if (contentType == null) {
            return false;
        }
        CharSequence mime = HttpUtil.getMimeType(contentType);
        String type = (mime != null ? mime.toString() : contentType).strip().toLowerCase(Locale.ROOT);
        return type.equals("application/json") || (type.startsWith("application/") && type.endsWith("+json"));
    }

    /** The first value of a query parameter as UTF-8 text, or null. */
    String parameter(String name) {
        String value = first(name);
        return value == null ? null : utf8(value);
    }

    /** The bytes of the first value of a query parameter, exactly as the client percent-encoded them, or null. */
    byte[] parameterBytes(String name) {
        String value = first(name);
        return value == null ? null : value.getBytes(StandardCharsets.ISO_8859_1);
    }

    private String first(String name) {
        List<String> values = parameters.get(name);
        return values == null || values.isEmpty() ? null : values.get(0);
    }

    private static String utf8(String oneCharPerByte) {
        for (int i = 0; i < oneCharPerByte.length(); i++) {
            if (oneCharPerByte.charAt(i) >= 0x80) {
                return new String(oneCharPerByte.getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8);
            }
        }
        return oneCharPerByte; // ASCII, the usual case, reads the same either way
    }
}
