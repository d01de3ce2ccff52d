package dev.deja.resp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * Lets a connection that types inline commands end its lines with a bare LF, as Redis allows ({@code echo PING |
 * nc host 6389}, a common health check); Netty's {@code RedisDecoder} insists on CR LF. A connection whose first byte
 * is {@code *} speaks RESP arrays, as every client library does, and this handler leaves its pipeline at once.
 * Otherwise it puts a CR before each bare LF, until a line starts with {@code *}: from there on the connection sends
 * arrays, whose bulk strings may hold any byte, and the handler leaves too.
 */
final class InlineLineEnds extends ChannelInboundHandlerAdapter {

    private boolean lineStart = true;
    private boolean afterCr;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object message) {
        if (!(message instanceof ByteBuf in)) {
            ctx.fireChannelRead(message);
            return;
        }
        if (lineStart && in.isReadable() && in.getByte(in.readerIndex()) == '*') {
            ctx.pipeline().remove(this);
            ctx.fireChannelRead(in);
            return;
        }
        ByteBuf out = ctx.alloc().buffer(in.readableBytes() + 8);
        try {
            for (int i = in.readerIndex(); i < in.writerIndex(); i++) {
                byte b = in.getByte(i);
                if (lineStart && b == '*') {
                    out.writeBytes(in, i, in.writerIndex() - i);
                    ctx.pipeline().remove(this);
                    break;
                }
                if (b == '\n' && !afterCr) {
                    out.writeByte('\r');
                }
                out.writeByte(b);
                lineStart = b == '\n';
                afterCr = b == '\r';
            }
        } finally {
            in.release();
        }
        ctx.fireChannelRead(out);
    }
}
