package dev.deja.resp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.redis.ArrayHeaderRedisMessage;
import io.netty.handler.codec.redis.BulkStringHeaderRedisMessage;
import io.netty.handler.codec.redis.BulkStringRedisContent;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.InlineCommandRedisMessage;
import io.netty.handler.codec.redis.LastBulkStringRedisContent;
import io.netty.handler.codec.redis.SimpleStringRedisMessage;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds commands ({@link RespArgs}) from the parts Netty's {@link io.netty.handler.codec.redis.RedisDecoder}
 * emits, copying each bulk string's bytes once, straight into its argument.
 *
 * <p>A command is a flat array of bulk strings, so Netty's general aggregators are not used: they join each bulk
 * string's pieces into a composite buffer and each array into a list of messages, which was a third of the
 * server's time under pipelined load. A command with more arguments, a longer bulk string, or more bytes in its
 * arguments together than the server accepts is refused from the header that crosses the limit, before that part
 * is buffered (so one command cannot make the server hold more than the limit), and so is a nested array: reading stops, as
 * the rest of the client's bytes cannot be framed, and a {@link Violation} is passed on, which the handler answers
 * after the commands before it with a Redis error, then closes that connection only. A command with an argument
 * that is not a string (an integer, a null), and a string where a command should start, are passed on as
 * {@link #NOT_A_COMMAND}, answered the same way.
 */
final class CommandAssembler extends ChannelInboundHandlerAdapter {

    /** A message that is not a command: answered with {@code message}, after which the connection closes. */
    record Violation(String message) {
    }

    /** What is passed on for a well-framed message that is not a command. */
    static final Violation NOT_A_COMMAND = new Violation("ERR Protocol error: expected an array of bulk strings");

    private final long maxArguments;
    private final int maxBulkBytes;

    /** The arguments of the command being assembled, or null between commands. */
    private List<byte[]> arguments;
    private long expected;
    /** Whether the command being assembled has an argument that is not a string. */
    private boolean unusable;
    /** Bytes announced by the bulk strings of the command being assembled so far. */
    private long commandBytes;
    /** The bulk string being filled, and how much of it is. */
    private byte[] bulk;
    private int filled;
    /** Set once the connection is refused: what the decoder still emits is dropped. */
    private boolean refused;

    CommandAssembler(long maxArguments, int maxBulkBytes) {
        this.maxArguments = maxArguments;
        this.maxBulkBytes = maxBulkBytes;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object message) {
        try {
            String refusal = refused ? null : take(ctx, message);
            if (refusal != null) {
                refused = true;
                refuse(ctx, refusal);
            }
        } finally {
            ReferenceCountUtil.release(message);
        }
    }

    /** Takes one decoded part; returns the refusal that ends the connection, if any. */
    private String take(ChannelHandlerContext ctx, Object message) {
        if (message instanceof ArrayHeaderRedisMessage header) {
            return arrayHeader(ctx, header);
        }
        if (message instanceof BulkStringHeaderRedisMessage header) {
            if (header.bulkStringLength() > maxBulkBytes) {
                return "ERR Protocol error: a bulk string may be at most " + maxBulkBytes + " bytes (got "
                        + header.bulkStringLength() + ")";
            }
            commandBytes += header.bulkStringLength();
            if (commandBytes > maxBulkBytes) {
                return "ERR Protocol error: the arguments of a command may hold at most " + maxBulkBytes
                        + " bytes together";
            }
            bulk = new byte[header.bulkStringLength()];
            filled = 0;
            return null;
        }
        if (message instanceof BulkStringRedisContent part && bulk != null) {
            ByteBuf content = part.content();
            int length = content.readableBytes();
            content.getBytes(content.readerIndex(), bulk, filled, length);
            filled += length;
            if (part instanceof LastBulkStringRedisContent) {
                byte[] done = bulk;
                bulk = null;
                return argument(ctx, done);
            }
            return null;
        }
        if (message instanceof FullBulkStringRedisMessage full) {
            // the decoder's shared instances for $0 and $-1
            return argument(ctx, full.isNull() ? null : new byte[0]);
        }
        if (message instanceof SimpleStringRedisMessage simple) {
            return argument(ctx, simple.content().getBytes(StandardCharsets.UTF_8));
        }
        if (message instanceof InlineCommandRedisMessage inline && arguments == null) {
            List<byte[]> words = InlineCommand.split(inline.content());
            if (words == null) {
                return "ERR Protocol error: unbalanced quotes in request";
            }
            ctx.fireChannelRead(new RespArgs(words));
            return null;
        }
        // an integer, an error or an inline command inside an array: not a string argument
        return argument(ctx, null);
    }

    private String arrayHeader(ChannelHandlerContext ctx, ArrayHeaderRedisMessage header) {
        if (arguments != null) {
            return "ERR Protocol error: a command is an array of bulk strings, not of arrays";
        }
        if (header.length() > maxArguments) {
            return "ERR Protocol error: a command may have at most " + maxArguments + " arguments (got "
                    + header.length() + ")";
        }
        if (header.isNull() || header.length() == 0) {
            // an empty command, or a null array (*-1) where a command should be: Redis ignores both, no reply
            ctx.fireChannelRead(new RespArgs(List.of()));
        } else {
            arguments = new ArrayList<>((int) header.length());
            expected = header.length();
            unusable = false;
            commandBytes = 0;
        }
        return null;
    }

    /** Adds one argument; the command is passed on once it has them all. */
    private String argument(ChannelHandlerContext ctx, byte[] value) {
        if (arguments == null) {
            ctx.fireChannelRead(NOT_A_COMMAND); // a string where a command should start
            return null;
        }
        unusable |= value == null;
        arguments.add(value);
        if (arguments.size() == expected) {
            Object command = unusable ? NOT_A_COMMAND : new RespArgs(arguments);
            arguments = null;
            ctx.fireChannelRead(command);
        }
        return null;
    }

    private static void refuse(ChannelHandlerContext ctx, String refusal) {
        ctx.channel().config().setAutoRead(false);
        ctx.fireChannelRead(new Violation(refusal));
    }
}
