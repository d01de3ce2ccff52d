package dev.deja.resp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageEncoder;
import io.netty.handler.codec.redis.RedisMessage;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Encodes the RESP3 types Netty's RESP2 encoder lacks ({@link Resp3Map}, {@link Resp3Null}): it writes their own
 * framing bytes and hands every nested RESP2 message on to Netty's {@code RedisEncoder}, which sits after it.
 */
final class Resp3Encoder extends MessageToMessageEncoder<RedisMessage> {

    private static final byte[] NULL = "_\r\n".getBytes(StandardCharsets.US_ASCII);

    @Override
    public boolean acceptOutboundMessage(Object message) {
        return message instanceof Resp3Map || message instanceof Resp3Null;
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, RedisMessage message, List<Object> out) {
        flatten(ctx, message, out);
    }

    private static void flatten(ChannelHandlerContext ctx, RedisMessage message, List<Object> out) {
        if (message instanceof Resp3Null) {
            out.add(ctx.alloc().buffer(NULL.length).writeBytes(NULL));
        } else if (message instanceof Resp3Map map) {
            byte[] header = ("%" + map.entries().size() / 2 + "\r\n").getBytes(StandardCharsets.US_ASCII);
            ByteBuf buf = ctx.alloc().buffer(header.length).writeBytes(header);
            out.add(buf);
            for (RedisMessage entry : map.entries()) {
                flatten(ctx, entry, out);
            }
        } else {
            out.add(message);
        }
    }
}
