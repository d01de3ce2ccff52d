package dev.deja.resp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.EncoderException;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.ErrorRedisMessage;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.IntegerRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.handler.codec.redis.SimpleStringRedisMessage;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.PromiseNotifier;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Encodes replies (RESP2, and the RESP3 types of {@link Resp3Map}, {@link Resp3Null} and {@link Resp3Boolean}) into
 * one buffer per flush: the replies to a batch of pipelined commands leave in one buffer and one write of the socket,
 * not as a buffer, an entry of the channel's outbound queue and a piece of a gathering write each. Netty's
 * {@code RedisEncoder} would make those per reply; its framing is what this writes.
 *
 * <p>A bulk string of {@value #COPY_LIMIT} bytes or more is not copied: the replies before it go as one buffer, its
 * content as its own (a dump's chunk may be megabytes). A message that is not a reply (the empty buffer written before
 * a connection closes) goes after the replies written before it. The promise of each reply completes when the buffer
 * holding it is written.
 */
final class ReplyEncoder extends ChannelOutboundHandlerAdapter {

    /** Bulk strings from this length on are written as their own buffer instead of being copied. */
    static final int COPY_LIMIT = 16 * 1024;

    private static final byte[] CRLF = {'\r', '\n'};
    private static final byte[] NULL_BULK = "$-1\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NULL_ARRAY = "*-1\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] RESP3_NULL = "_\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] TRUE = "#t\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] FALSE = "#f\r\n".getBytes(StandardCharsets.US_ASCII);
    /** The framing of the integers replies hold most: 0 and 1. */
    private static final byte[][] SMALL_INTEGERS = {
        ":0\r\n".getBytes(StandardCharsets.US_ASCII), ":1\r\n".getBytes(StandardCharsets.US_ASCII)
    };

    /** Replies encoded since the last write to the socket's queue, or null. */
    private ByteBuf pending;
    /** The promises of the replies in {@link #pending} that someone may wait on. */
    private List<ChannelPromise> promises;

    @Override
    public void write(ChannelHandlerContext ctx, Object message, ChannelPromise promise) {
        if (!(message instanceof RedisMessage reply)) {
            writePending(ctx);
            ChannelFuture unused = ctx.write(message, promise); // the caller holds its promise
            return;
        }
        try {
            encode(ctx, reply);
        } catch (RuntimeException e) {
            // part of the reply may be in the buffer, and the client would take the next reply for this one: the
            // connection ends here
            promise.tryFailure(e);
            handlerRemoved(ctx);
            ChannelFuture unused = ctx.close();
            return;
        } finally {
            ReferenceCountUtil.release(reply);
        }
        if (!promise.isVoid()) {
            if (promises == null) {
                promises = new ArrayList<>();
            }
            promises.add(promise);
        }
    }

    @Override
    public void flush(ChannelHandlerContext ctx) {
        writePending(ctx);
        ctx.flush();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        if (pending != null) {
            pending.release();
            pending = null;
        }
        if (promises != null) {
            for (ChannelPromise promise : promises) {
                promise.tryFailure(new EncoderException("the connection's reply encoder was removed"));
            }
            promises = null;
        }
    }

    private void writePending(ChannelHandlerContext ctx) {
        if (pending == null) {
            return;
        }
        ByteBuf buffer = pending;
        pending = null;
        if (promises == null) {
            ChannelFuture unused = ctx.write(buffer, ctx.voidPromise());
            return;
        }
        ChannelPromise[] waiting = promises.toArray(ChannelPromise[]::new);
        promises = null;
        ChannelFuture unused = ctx.write(buffer).addListener(new PromiseNotifier<>(waiting));
    }

    private ByteBuf out(ChannelHandlerContext ctx) {
        if (pending == null) {
            pending = ctx.alloc().ioBuffer();
        }
        return pending;
    }

    /** Adds one reply's bytes; the caller releases the reply. */
    private void encode(ChannelHandlerContext ctx, RedisMessage reply) {
        switch (reply) {
            case IntegerRedisMessage integer -> {
                long value = integer.value();
                if (value == 0 || value == 1) {
                    out(ctx).writeBytes(SMALL_INTEGERS[(int) value]);
                } else {
                    line(ctx, ':', Long.toString(value));
                }
            }
            case SimpleStringRedisMessage simple -> line(ctx, '+', simple.content());
            case ErrorRedisMessage error -> line(ctx, '-', error.content());
            case FullBulkStringRedisMessage bulk -> bulk(ctx, bulk);
            case ArrayRedisMessage array -> {
                if (array.isNull()) {
                    out(ctx).writeBytes(NULL_ARRAY);
                } else {
                    line(ctx, '*', Integer.toString(array.children().size()));
                    for (RedisMessage child : array.children()) {
                        encode(ctx, child); // the array releases its children
                    }
                }
            }
            case Resp3Map map -> {
                line(ctx, '%', Integer.toString(map.entries().size() / 2));
                for (RedisMessage entry : map.entries()) {
                    try {
                        encode(ctx, entry);
                    } finally {
                        ReferenceCountUtil.release(entry); // a map counts no references: its entries are released here
                    }
                }
            }
            case Resp3Null unused -> out(ctx).writeBytes(RESP3_NULL);
            case Resp3Boolean bool -> out(ctx).writeBytes(bool == Resp3Boolean.TRUE ? TRUE : FALSE);
            default ->
                throw new EncoderException("no RESP encoding for a reply of type "
                        + reply.getClass().getName());
        }
    }

    private void bulk(ChannelHandlerContext ctx, FullBulkStringRedisMessage bulk) {
        if (bulk.isNull()) {
            out(ctx).writeBytes(NULL_BULK);
            return;
        }
        ByteBuf content = bulk.content();
        int length = content.readableBytes();
        line(ctx, '$', Integer.toString(length));
        if (length < COPY_LIMIT) {
            out(ctx).writeBytes(content, content.readerIndex(), length).writeBytes(CRLF);
            return;
        }
        writePending(ctx);
        // its own reference, released once written; the reply's is released by the caller
        ChannelFuture unused = ctx.write(content.retainedDuplicate(), ctx.voidPromise());
        out(ctx).writeBytes(CRLF);
    }

    private void line(ChannelHandlerContext ctx, char type, String text) {
        ByteBuf out = out(ctx);
        out.writeByte(type);
        out.writeCharSequence(text, StandardCharsets.UTF_8);
        out.writeBytes(CRLF);
    }
}
