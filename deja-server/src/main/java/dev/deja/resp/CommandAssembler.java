package dev.deja.resp;

import dev.deja.server.RequestGuard;
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
import java.util.Arrays;
import java.util.List;

/**
 * Builds commands ({@link RespArgs}) from the parts Netty's {@link io.netty.handler.codec.redis.RedisDecoder}
 * emits, copying each bulk string's bytes once, straight into its argument.
 *
 * <p>A command is a flat array of bulk strings, so Netty's general aggregators are not used: they join each bulk
 * string's pieces into a composite buffer and each array into a list of messages, an allocation per piece and per
 * message that a command needs none of, on the path every request takes. A command with more arguments, a longer bulk
 * string, or more bytes in its arguments together than the server accepts is refused from the header that crosses the
 * limit, and so is a nested array: reading stops, as the rest of the client's bytes cannot be framed, and a
 * {@link Violation} is passed on, which the handler answers after the commands before it with a Redis error, then
 * closes that connection only. A command with an argument that is not a string (an integer, a null), and a string where
 * a command should start, are passed on as {@link #NOT_A_COMMAND}, answered the same way.
 *
 * <p>Memory follows the bytes that arrive, never what a header announces: an argument's buffer is allocated when its
 * first bytes come, at their size when they are all of it, and grows as more come, at most doubling, so a header
 * announcing a large bulk string costs nothing until its bytes are sent. The connection's {@link RequestGuard} counts
 * the bytes read; the assembler adds {@link RespArgs#ARGUMENT_OVERHEAD} per argument, the heap an argument takes beside
 * its bytes, so that the server's request memory bounds the heap its commands take (a bulk string still arriving in
 * parts may occupy up to twice its bytes so far, the room its buffer has grown into). Until the connection
 * authenticates, when the server has a password, a command may have at most {@value #UNAUTHENTICATED_MAX_ARGUMENTS}
 * arguments of at most {@value #UNAUTHENTICATED_MAX_BULK_BYTES} bytes each, as Redis allows an unauthenticated client,
 * with Redis's errors; a command that may authenticate ({@code AUTH}, {@code HELLO}) lifts that limit for the commands
 * after it until it has executed.
 */
final class CommandAssembler extends ChannelInboundHandlerAdapter {

    /** A message that is not a command: answered with {@code message}, after which the connection closes. */
    record Violation(String message) {}

    /** What is passed on for a well-framed message that is not a command. */
    static final Violation NOT_A_COMMAND = new Violation("ERR Protocol error: expected an array of bulk strings");

    /** Most arguments of a command sent before authenticating, as in Redis. */
    static final int UNAUTHENTICATED_MAX_ARGUMENTS = 10;
    /** Longest bulk string sent before authenticating, as in Redis. */
    static final int UNAUTHENTICATED_MAX_BULK_BYTES = 16 * 1024;
    /** The smallest buffer allocated for a bulk string whose bytes come in more than one part. */
    private static final int MIN_PARTIAL_CAPACITY = 4 * 1024;

    private final long maxArguments;
    private final int maxBulkBytes;
    private final RequestGuard guard;
    private final RespSession session;

    /** The arguments of the command being assembled, or null between commands. */
    private List<byte[]> arguments;

    private long expected;
    /** Whether the command being assembled has an argument that is not a string. */
    private boolean unusable;
    /** Bytes announced by the bulk strings of the command being assembled so far. */
    private long commandBytes;
    /** The length announced by the bulk string being received, or -1 between bulk strings. */
    private int bulkLength = -1;
    /** The bulk string's buffer once its first bytes came, and how much of it is filled. */
    private byte[] bulk;

    private int filled;
    /** Set once the connection is refused: what the decoder still emits is dropped. */
    private boolean refused;

    CommandAssembler(long maxArguments, int maxBulkBytes, RequestGuard guard, RespSession session) {
        this.maxArguments = maxArguments;
        this.maxBulkBytes = maxBulkBytes;
        this.guard = guard;
        this.session = session;
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
            return bulkHeader(header.bulkStringLength());
        }
        if (message instanceof BulkStringRedisContent part && bulkLength >= 0) {
            return content(ctx, part);
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
            if (!held((long) words.size() * RespArgs.ARGUMENT_OVERHEAD)) {
                return null;
            }
            pass(ctx, new RespArgs(words));
            return null;
        }
        // an integer, an error or an inline command inside an array: not a string argument
        return argument(ctx, null);
    }

    private String arrayHeader(ChannelHandlerContext ctx, ArrayHeaderRedisMessage header) {
        if (arguments != null) {
            return "ERR Protocol error: a command is an array of bulk strings, not of arrays";
        }
        guard.started();
        if (header.length() > UNAUTHENTICATED_MAX_ARGUMENTS && session.smallRequestsOnly()) {
            return "ERR Protocol error: unauthenticated multibulk length";
        }
        if (header.length() > maxArguments) {
            return "ERR Protocol error: a command may have at most " + maxArguments + " arguments (got "
                    + header.length() + ")";
        }
        if (header.isNull() || header.length() == 0) {
            // an empty command, or a null array (*-1) where a command should be: Redis ignores both, no reply
            pass(ctx, new RespArgs(List.of()));
        } else {
            // grown as arguments arrive: the announced count only bounds it
            arguments = new ArrayList<>((int) Math.min(header.length(), UNAUTHENTICATED_MAX_ARGUMENTS));
            expected = header.length();
            unusable = false;
            commandBytes = 0;
        }
        return null;
    }

    private String bulkHeader(int length) {
        if (length > UNAUTHENTICATED_MAX_BULK_BYTES && session.smallRequestsOnly()) {
            return "ERR Protocol error: unauthenticated bulk length";
        }
        if (length > maxBulkBytes) {
            return "ERR Protocol error: a bulk string may be at most " + maxBulkBytes + " bytes (got " + length + ")";
        }
        commandBytes += length;
        if (commandBytes > maxBulkBytes) {
            return "ERR Protocol error: the arguments of a command may hold at most " + maxBulkBytes
                    + " bytes together";
        }
        bulkLength = length;
        bulk = null;
        filled = 0;
        return null;
    }

    /** Copies a part of the bulk string being received into its buffer, allocated or grown for what came. */
    private String content(ChannelHandlerContext ctx, BulkStringRedisContent part) {
        ByteBuf content = part.content();
        int length = content.readableBytes();
        int capacity = bulk == null ? 0 : bulk.length;
        if (filled + length > capacity) {
            int grown = filled + length == bulkLength
                    ? bulkLength
                    : (int) Math.min(bulkLength, Math.max(MIN_PARTIAL_CAPACITY, 2L * (filled + length)));
            bulk = bulk == null ? new byte[grown] : Arrays.copyOf(bulk, grown);
        }
        content.getBytes(content.readerIndex(), bulk, filled, length);
        filled += length;
        if (part instanceof LastBulkStringRedisContent) {
            byte[] done = bulk; // full: its last growth was to the announced length
            bulk = null;
            bulkLength = -1;
            return argument(ctx, done);
        }
        return null;
    }

    /** Adds one argument; the command is passed on once it has them all. */
    private String argument(ChannelHandlerContext ctx, byte[] value) {
        if (arguments == null) {
            pass(ctx, NOT_A_COMMAND); // a string where a command should start
            return null;
        }
        if (!held(RespArgs.ARGUMENT_OVERHEAD)) {
            return null;
        }
        unusable |= value == null;
        arguments.add(value);
        if (arguments.size() == expected) {
            Object command = unusable ? NOT_A_COMMAND : new RespArgs(arguments);
            arguments = null;
            pass(ctx, command);
        }
        return null;
    }

    private void pass(ChannelHandlerContext ctx, Object command) {
        if (command instanceof RespArgs args && session.mayAuthenticate(args)) {
            session.authenticationsPending++;
        }
        ctx.fireChannelRead(command);
    }

    /** Counts heap the command holds with the guard; false, the connection refused by it, when it has no room. */
    private boolean held(long bytes) {
        if (bytes <= 0 || guard.hold(bytes)) {
            return true;
        }
        refused = true; // the guard passed its refusal on; nothing more is assembled
        return false;
    }

    private static void refuse(ChannelHandlerContext ctx, String refusal) {
        ctx.channel().config().setAutoRead(false);
        ctx.fireChannelRead(new Violation(refusal));
    }
}
