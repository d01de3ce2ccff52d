package dev.deja.http;

import dev.deja.server.PipelinedHandler;
import dev.deja.server.PipelinedHandler.Offloaded;
import dev.deja.server.RequestGuard;
import dev.deja.server.RequestRefusal;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeadersFactory;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns aggregated HTTP requests into {@link HttpCall}s and writes the API's replies, one per request in order;
 * a request Netty could not decode gets a JSON 400 (413 when a line or header is too long), one refused before
 * it was read whole (see {@link BodyLimit}) its own JSON error, in its turn, and either closes only its connection.
 */
final class HttpRequestHandler extends PipelinedHandler<HttpCall> {

    private static final Logger log = LoggerFactory.getLogger(HttpRequestHandler.class);

    /**
     * Response headers are not checked for characters a header cannot hold: every name and value this server sends
     * is its own text (content types, lengths, dates, {@code Allow}, the authentication challenge), none a client's.
     */
    private static final HttpHeadersFactory RESPONSE_HEADERS =
            DefaultHttpHeadersFactory.headersFactory().withValidation(false);

    private final HttpApi api;

    HttpRequestHandler(HttpApi api, RequestGuard guard) {
        super(guard);
        this.api = api;
    }

    @Override
    protected HttpCall request(ChannelHandlerContext ctx, Object message) {
        HttpCall call = HttpCall.of((FullHttpRequest) message);
        if (call.failure() != null) {
            // refused as it was read (over a limit, malformed, an unsupported expectation): counted here, while the
            // request guard counts the refusals it makes itself (refused)
            api.countRefused(refusal(call.failure()).status());
        }
        return call;
    }

    @Override
    protected Object execute(ChannelHandlerContext ctx, HttpCall call) {
        if (call.failure() != null) {
            return new Closing(response(HttpVersion.HTTP_1_1, refusal(call.failure()), /* keepAlive= */ false));
        }
        if (call.version().majorVersion() != 1) {
            // HTTP/2 and later are not framed as HTTP/1 is: nothing else on this connection can be read
            HttpReply reply = HttpReply.error(
                    HttpResponseStatus.HTTP_VERSION_NOT_SUPPORTED,
                    call.version().text() + " is not supported: this server speaks HTTP/1.1");
            return new Closing(response(HttpVersion.HTTP_1_1, reply, /* keepAlive= */ false));
        }
        // an HTTP/1.0 request gets an HTTP/1.0 answer, any later 1.x one the version this server speaks
        HttpVersion version = call.version().minorVersion() == 0 ? HttpVersion.HTTP_1_0 : HttpVersion.HTTP_1_1;
        HttpResult result = api.handle(call);
        Object response = result instanceof HttpResult.OffLoop offLoop
                ? new Offloaded(() -> response(version, call, offLoop.work().get()))
                : response(version, call, result);
        // the connection's last request ("Connection: close", HTTP/1.0): requests pipelined after it are not run
        // (RFC 9112, section 9.6), as the client will not read their answers
        return call.keepAlive() ? response : new Closing(response);
    }

    /** The response to {@code call} for the API's result, or a future of it. */
    private static Object response(HttpVersion version, HttpCall call, HttpResult result) {
        boolean head = call.method().equals(HttpMethod.HEAD);
        return switch (result) {
            case HttpResult.Now now -> response(version, now.reply(), call.keepAlive(), head);
            case HttpResult.Later later ->
                later.reply().thenApply(reply -> response(version, reply, call.keepAlive(), head));
            case HttpResult.OffLoop offLoop -> throw new IllegalStateException("work off the loop returned more work");
        };
    }

    /**
     * The answer to a request that could not be decoded, or was refused before it was read whole: 414 for a request
     * line over the limit (a key travels in it, so it is the URI that is too long), 431 for headers over theirs,
     * 413 for a body, 400 for anything else.
     */
    private static HttpReply refusal(Throwable failure) {
        if (failure instanceof HttpProblem problem) {
            return problem.reply();
        }
        if (failure instanceof TooLongHttpLineException) {
            return HttpReply.error(
                    HttpResponseStatus.REQUEST_URI_TOO_LONG, "request line too long: " + failure.getMessage());
        }
        if (failure instanceof TooLongHttpHeaderException) {
            return HttpReply.error(
                    HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE,
                    "request headers too large: " + failure.getMessage());
        }
        HttpResponseStatus status = failure instanceof TooLongFrameException
                ? HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE
                : HttpResponseStatus.BAD_REQUEST;
        return HttpReply.error(status, "malformed HTTP request: " + failure.getMessage());
    }

    /** 413 for a request larger than a connection may hold, 503 when the request memory is full, 408 for a timeout. */
    @Override
    protected HttpCall refused(RequestRefusal refusal) {
        HttpProblem problem = switch (refusal.reason()) {
            case TOO_LARGE -> HttpProblem.tooLarge(refusal.message());
            case MEMORY_FULL ->
                new HttpProblem(HttpResponseStatus.SERVICE_UNAVAILABLE, refusal.message())
                        .withHeader("Retry-After", "1");
            case TIMEOUT -> new HttpProblem(HttpResponseStatus.REQUEST_TIMEOUT, refusal.message());
        };
        return HttpCall.failed(problem);
    }

    @Override
    protected Object failure(Throwable cause) {
        log.error("HTTP request failed", cause);
        return response(
                HttpVersion.HTTP_1_1,
                HttpReply.error(HttpResponseStatus.INTERNAL_SERVER_ERROR, "internal error: " + cause),
                /* keepAlive= */ false);
    }

    private static FullHttpResponse response(HttpVersion version, HttpReply reply, boolean keepAlive) {
        return response(version, reply, keepAlive, /* head= */ false);
    }

    /** The response; to a HEAD, the headers a GET would get (its content-length too) and no body. */
    private static FullHttpResponse response(HttpVersion version, HttpReply reply, boolean keepAlive, boolean head) {
        FullHttpResponse response = new DefaultFullHttpResponse(
                version,
                reply.status(),
                head ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(reply.body()),
                RESPONSE_HEADERS,
                RESPONSE_HEADERS);
        if (reply.status().equals(HttpResponseStatus.NOT_MODIFIED)) {
            // RFC 9110 (15.4.5): no body, and no content headers that would describe this empty one; the reply's
            // own headers give the length a 200 would have
            response.headers().set(HttpHeaderNames.DATE, HttpDate.now());
        } else {
            response.headers()
                    .set(HttpHeaderNames.CONTENT_TYPE, reply.contentType())
                    .setInt(HttpHeaderNames.CONTENT_LENGTH, reply.body().length)
                    .set(HttpHeaderNames.DATE, HttpDate.now());
        }
        reply.headers().forEach(response.headers()::set);
        if (!keepAlive) {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        }
        HttpUtil.setKeepAlive(response, keepAlive);
        return response;
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.debug("HTTP connection {} closed after an error", ctx.channel().remoteAddress(), cause);
        ChannelFuture unused = ctx.close(); // a failure to close leaves nothing to do
    }
}
