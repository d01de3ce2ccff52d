package dev.deja.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;

/**
 * Netty's request aggregator with the body limit. A request whose body is over the limit is passed on as one that
 * failed to decode, carrying the {@link HttpProblem}, so that the request handler answers it in its turn, after
 * the requests pipelined before it, with deja's JSON 413, and closes the connection. Netty's own refusals are
 * written at once, ahead of the answers still owed to those requests, and have no body.
 */
final class BodyLimit extends HttpObjectAggregator {

    BodyLimit(int maxBodyBytes) {
        super(maxBodyBytes);
    }

    @Override
    protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
        // the aggregator discards the rest of this body; the connection is closed once the 413 is written
        HttpRequest request = (HttpRequest) oversized;
        FullHttpRequest refused = new DefaultFullHttpRequest(request.protocolVersion(), request.method(),
                request.uri());
        refused.setDecoderResult(DecoderResult.failure(HttpProblem.tooLarge(
                "request body must be at most " + maxContentLength() + " bytes")));
        ctx.fireChannelRead(refused);
    }

    /**
     * The "100 Continue" that invites a body within the limit, and nothing otherwise: a body announced over the
     * limit (curl asks with "100-continue" for bodies over 1 MiB) is refused by {@link #handleOversizedMessage}
     * without being invited, and an expectation other than "100-continue" is refused by the request handler
     * ({@link HttpCall}), both in their turn.
     */
    @Override
    protected Object newContinueResponse(HttpMessage start, int maxContentLength, ChannelPipeline pipeline) {
        if (start.decoderResult().isFailure() || HttpCall.unsupportedExpectation(start) != null
                || HttpUtil.getContentLength(start, -1L) > maxContentLength) {
            return null;
        }
        return super.newContinueResponse(start, maxContentLength, pipeline);
    }
}
