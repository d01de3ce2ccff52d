package dev.deja.http;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;

/**
 * Netty's request aggregator with the body limit, answering an oversized body with deja's JSON 413 error
 * (Netty's own answer has no body) and closing the connection, whose remaining bytes are unread.
 */
final class BodyLimit extends HttpObjectAggregator {

    private final int maxBodyBytes;

    BodyLimit(int maxBodyBytes) {
        // close after refusing an "Expect: 100-continue": the client may send the body anyway or not at all, so the
        // next bytes on the connection could be either
        super(maxBodyBytes, true);
        this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
        ctx.writeAndFlush(tooLarge(ctx.alloc())).addListener(ChannelFutureListener.CLOSE);
    }

    /**
     * The answer to an {@code Expect} header: for a body over the limit (curl asks with "100-continue" for bodies
     * over 1 MiB) deja's JSON 413, and for an expectation other than "100-continue" a JSON 417 instead of Netty's
     * empty one; the connection is closed after either.
     */
    @Override
    protected Object newContinueResponse(HttpMessage start, int maxContentLength, ChannelPipeline pipeline) {
        String expectation = start.headers().get(HttpHeaderNames.EXPECT); // Netty's answer removes the header
        Object response = super.newContinueResponse(start, maxContentLength, pipeline);
        if (response instanceof HttpResponse refused) {
            int status = refused.status().code();
            if (status == HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE.code()) {
                ReferenceCountUtil.release(response);
                return tooLarge(pipeline.channel().alloc());
            }
            if (status == HttpResponseStatus.EXPECTATION_FAILED.code()) {
                ReferenceCountUtil.release(response);
                return closing(pipeline.channel().alloc(), HttpReply.error(HttpResponseStatus.EXPECTATION_FAILED,
                        "unsupported expectation '" + expectation
                                + "': only '100-continue' is understood"));
            }
        }
        return response;
    }

    private FullHttpResponse tooLarge(ByteBufAllocator alloc) {
        return closing(alloc, HttpReply.error(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE,
                "request body must be at most " + maxBodyBytes + " bytes"));
    }

    private static FullHttpResponse closing(ByteBufAllocator alloc, HttpReply reply) {
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, reply.status(),
                alloc.buffer(reply.body().length).writeBytes(reply.body()));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, reply.contentType())
                .setInt(HttpHeaderNames.CONTENT_LENGTH, reply.body().length)
                .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        return response;
    }
}
