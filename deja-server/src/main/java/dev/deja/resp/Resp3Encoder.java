package dev.deja.resp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageEncoder;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Encodes the RESP3 types Netty's RESP2 encoder lacks ({@link Resp3Map}, {@link Resp3Null}, {@link Resp3Boolean}),
 * at the top of a reply
 * or anywhere inside an array: it writes their framing bytes, and the headers of the arrays that hold them, itself
 * and hands every other message on to Netty's {@code RedisEncoder}, which sits after it.
 */
final class Resp3Encoder extends MessageToMessageEncoder<RedisMessage> {

    private static final byte[] NULL = "_\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] TRUE = "#t\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] FALSE = "#f\r\n".getBytes(StandardCharsets.US_ASCII);

    @Override
    public boolean acceptOutboundMessage(Object message) {
        return message instanceof RedisMessage reply && holdsResp3(reply);
    }

    private static boolean holdsResp3(RedisMessage message) {
        if (message instanceof Resp3Map || message instanceof Resp3Null || message instanceof Resp3Boolean) {
            return true;
        }
        if (message instanceof ArrayRedisMessage array && !array.isNull()) {
            for (RedisMessage child : array.children()) {
                if (holdsResp3(child)) {
                    return true;
                }
            }
        }
        return false;
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, RedisMessage message, List<Object> out) {
        flatten(ctx, message, out, /* owned= */ true);
    }

    /**
     * Adds the parts of a message to {@code out}, each with a reference of its own: the children of an
     * {@link ArrayRedisMessage} are retained, since the array releases them when the encoder releases it; the
     * entries of a {@link Resp3Map}, which counts no references, are handed on as they are.
     */
    private static void flatten(ChannelHandlerContext ctx, RedisMessage message, List<Object> out, boolean owned) {
        switch (message) {
            case Resp3Null.INSTANCE -> out.add(ctx.alloc().buffer(NULL.length).writeBytes(NULL));
            case Resp3Boolean.TRUE -> out.add(ctx.alloc().buffer(TRUE.length).writeBytes(TRUE));
            case Resp3Boolean.FALSE -> out.add(ctx.alloc().buffer(FALSE.length).writeBytes(FALSE));
            case Resp3Map map -> {
                out.add(header(ctx, '%', map.entries().size() / 2));
                for (RedisMessage entry : map.entries()) {
                    flatten(ctx, entry, out, /* owned= */ true);
                }
            }
            case ArrayRedisMessage array
            when holdsResp3(array) -> {
                out.add(header(ctx, '*', array.children().size()));
                for (RedisMessage child : array.children()) {
                    flatten(ctx, child, out, /* owned= */ false);
                }
            }
            default -> out.add(owned ? message : ReferenceCountUtil.retain(message));
        }
    }

    private static ByteBuf header(ChannelHandlerContext ctx, char type, int size) {
        byte[] header = (type + Integer.toString(size) + "\r\n").getBytes(StandardCharsets.US_ASCII);
        return ctx.alloc().buffer(header.length).writeBytes(header);
    }
}
