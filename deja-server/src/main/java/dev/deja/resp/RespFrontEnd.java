package dev.deja.resp;

import dev.deja.server.ServerConfig;
import dev.deja.server.ServerContext;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.redis.RedisDecoder;
import io.netty.handler.codec.redis.RedisEncoder;
import io.netty.handler.timeout.IdleStateHandler;
import java.nio.charset.StandardCharsets;

/**
 * Builds each RESP connection's pipeline: Netty's Redis decoder (inline commands included, their lines ended by
 * CR LF or, as Redis allows, a bare LF: {@link InlineLineEnds}), the assembler that
 * turns its parts into commands within the size limits, Netty's encoder with deja's RESP3 additions, then the
 * command handler.
 */
public final class RespFrontEnd extends ChannelInitializer<SocketChannel> {

    /** What a connection beyond the limit receives before it is closed. */
    public static final byte[] REFUSAL = "-ERR max number of clients reached\r\n".getBytes(StandardCharsets.US_ASCII);

    /** Arguments a command may have beyond its keys (name, namespace, options). */
    private static final int EXTRA_ARGUMENTS = 16;

    private final ServerContext context;
    private final RespCommands commands;
    private final ChannelHandler connectionLimit;

    /** A front end over the server's context; {@code connectionLimit} is the shared connection counter. */
    public RespFrontEnd(ServerContext context, ChannelHandler connectionLimit) {
        this.context = context;
        this.commands = new RespCommands(context);
        this.connectionLimit = connectionLimit;
    }

    /** The most arguments one command may have: a batch of n keys with owners takes 2n. */
    static long maxArguments(ServerConfig config) {
        return 2L * config.maxBatch() + EXTRA_ARGUMENTS;
    }

    @Override
    protected void initChannel(SocketChannel channel) {
        ChannelPipeline pipeline = channel.pipeline();
        pipeline.addLast(connectionLimit);
        if (context.config().respIdleTimeoutSeconds() > 0) {
            pipeline.addLast(new IdleStateHandler(0, 0, context.config().respIdleTimeoutSeconds()));
        }
        pipeline.addLast(new InlineLineEnds());
        pipeline.addLast(new RedisDecoder(true));
        pipeline.addLast(new CommandAssembler(maxArguments(context.config()), context.config().maxBodyBytes()));
        pipeline.addLast(new RedisEncoder());
        pipeline.addLast(new Resp3Encoder());
        pipeline.addLast(new RespHandler(commands, context.config().password() != null));
    }
}
