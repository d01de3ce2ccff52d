package dev.deja.http;

import dev.deja.server.RequestGuard;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import java.util.List;

/**
 * Netty's request aggregator with the body limit and authentication before the body. A request whose body is over
 * the limit, or that carries a body without the server's password, is passed on as one that failed to decode,
 * carrying the {@link HttpProblem} (413, 401), so that the request handler answers it in its turn, after the requests
 * pipelined before it, with deja's JSON error, and closes the connection; its body is never buffered. Netty's own
 * refusals are written at once, ahead of the answers still owed to those requests, and have no body.
 *
 * <p>Each request head tells the connection's {@link RequestGuard} that a request has begun, so that its clock runs
 * from there even when its first bytes came with the end of the request before it.
 */
final class BodyLimit extends HttpObjectAggregator {

    private final HttpAuth auth;
    private final RequestGuard guard;

    BodyLimit(int maxBodyBytes, HttpAuth auth, RequestGuard guard) {
        super(maxBodyBytes);
        this.auth = auth;
        this.guard = guard;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, HttpObject message, List<Object> out) throws Exception {
        if (message instanceof HttpRequest) {
            guard.started();
        }
        super.decode(ctx, message, out);
    }

    /** Over the limit, or a body sent without the password: refused before a byte of the body is read. */
    @Override
    protected boolean isContentLengthInvalid(HttpMessage start, int maxContentLength) {
        return unauthorizedBody(start) != null || super.isContentLengthInvalid(start, maxContentLength);
    }

    @Override
    protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
        // the aggregator discards the rest of this body; the connection is closed once the refusal is written
        HttpRequest request = (HttpRequest) oversized;
        HttpProblem unauthorized = unauthorizedBody(request);
        FullHttpRequest refused =
                new DefaultFullHttpRequest(request.protocolVersion(), request.method(), request.uri());
        refused.setDecoderResult(DecoderResult.failure(
                unauthorized != null
                        ? unauthorized
                        : HttpProblem.tooLarge("request body must be at most " + maxContentLength() + " bytes")));
        ctx.fireChannelRead(refused);
    }

    /**
     * The "100 Continue" that invites a body within the limit, and nothing otherwise: a body announced over the
     * limit (curl asks with "100-continue" for bodies over 1 MiB) or without the password is refused by
     * {@link #handleOversizedMessage} without being invited, and an expectation other than "100-continue" is refused
     * by the request handler ({@link HttpCall}), both in their turn.
     */
    @Override
    protected Object newContinueResponse(HttpMessage start, int maxContentLength, ChannelPipeline pipeline) {
        if (start.decoderResult().isFailure()
                || HttpCall.unsupportedExpectation(start) != null
                || HttpUtil.getContentLength(start, -1L) > maxContentLength
                || unauthorizedBody(start) != null) {
            return null;
        }
        return super.newContinueResponse(start, maxContentLength, pipeline);
    }

    /** The 401 of a request that announces a body without the server's password, or null. */
    private HttpProblem unauthorizedBody(HttpMessage start) {
        if (!(start instanceof HttpRequest request)
                || start.decoderResult().isFailure()
                || (HttpUtil.getContentLength(start, 0L) <= 0 && !HttpUtil.isTransferEncodingChunked(start))) {
            return null;
        }
        String target = HttpCall.originForm(request.uri());
        int query = target.indexOf('?');
        return auth.refusal(
                query < 0 ? target : target.substring(0, query),
                request.headers().get(HttpHeaderNames.AUTHORIZATION));
    }
}
