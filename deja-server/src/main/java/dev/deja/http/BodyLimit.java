package dev.deja.http;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;

/**
 * Netty's request aggregator with the body limit, answering an oversized body with deja's JSON 413 error
 * (Netty's own answer has no body) and closing the connection, whose remaining bytes are unread.
 */
final class BodyLimit extends HttpObjectAggregator {

    private final int maxBodyBytes;

    BodyLimit(int maxBodyBytes) {
        super(maxBodyBytes);
        this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
        HttpReply reply = HttpReply.error(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE,
                "request body must be at most " + maxBodyBytes + " bytes");
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, reply.status(),
                ctx.alloc().buffer(reply.body().length).writeBytes(reply.body()));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, reply.contentType())
                .setInt(HttpHeaderNames.CONTENT_LENGTH, reply.body().length)
                .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }
}
