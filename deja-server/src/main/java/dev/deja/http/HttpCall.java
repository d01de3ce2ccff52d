package dev.deja.http;

import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.util.List;
import java.util.Map;

/**
 * One HTTP request copied out of Netty's buffers, so it can wait for the end of the read and be executed with the
 * rest of the pipelined batch.
 *
 * @param version       the request's HTTP version
 * @param method        the method
 * @param path          the decoded path
 * @param parameters    the decoded query parameters
 * @param authorization the Authorization header, or null
 * @param contentType   the Content-Type header, or null
 * @param body          the body's bytes
 * @param keepAlive     whether the connection stays open after the reply
 * @param failure       why the request could not be decoded, or null
 */
record HttpCall(HttpVersion version, HttpMethod method, String path, Map<String, List<String>> parameters,
                String authorization, String contentType, byte[] body, boolean keepAlive, Throwable failure) {

    /** Copies what the API needs out of a Netty request. */
    static HttpCall of(FullHttpRequest request) {
        QueryStringDecoder query = new QueryStringDecoder(request.uri());
        byte[] body = new byte[request.content().readableBytes()];
        request.content().getBytes(request.content().readerIndex(), body);
        Throwable failure = request.decoderResult().isFailure() ? request.decoderResult().cause() : null;
        return new HttpCall(request.protocolVersion(), request.method(), query.path(), query.parameters(),
                request.headers().get(HttpHeaderNames.AUTHORIZATION),
                request.headers().get(HttpHeaderNames.CONTENT_TYPE), body,
                failure == null && HttpUtil.isKeepAlive(request), failure);
    }

    /**
     * Refuses a query parameter this endpoint does not take, so that a misspelt one (say {@code namespace=} for
     * {@code ns=}) is an error instead of silently falling back to a default.
     *
     * @throws HttpProblem a 400 naming the parameter and the ones the endpoint takes
     */
    void onlyParameters(String... known) {
        for (String name : parameters.keySet()) {
            if (!List.of(known).contains(name)) {
                throw HttpProblem.badRequest("unknown query parameter '" + name + "' (" + path + " takes: "
                        + String.join(", ", known) + ")");
            }
        }
    }

    /** The first value of a query parameter, or null. */
    String parameter(String name) {
        List<String> values = parameters.get(name);
        return values == null || values.isEmpty() ? null : values.get(0);
    }
}
