package dev.deja.resp;

import dev.deja.server.RequestGuard;
import dev.deja.server.ServerConfig;
import dev.deja.server.ServerContext;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.redis.RedisDecoder;
import io.netty.handler.timeout.IdleStateHandler;
import java.nio.charset.StandardCharsets;

/**
 * Builds each RESP connection's pipeline: the connection limit, the {@link RequestGuard} (request memory and
 * timeout), Netty's Redis decoder (inline commands included, their lines ended by CR LF or, as Redis allows, a bare
 * LF: {@link InlineLineEnds}), the assembler that turns its parts into commands within the size limits, the encoder
 * that writes a batch's replies as one buffer ({@link ReplyEncoder}), then the command handler.
 */
public final class RespFrontEnd extends ChannelInitializer<SocketChannel> {

    /** What a connection beyond the limit receives before it is closed. */
    public static final byte[] REFUSAL = "-ERR max number of clients reached\r\n".getBytes(StandardCharsets.US_ASCII);

    private final ServerContext context;
    private final RespCommands commands;
    private final ChannelHandler connectionLimit;

    /** A front end over the server's context; {@code connectionLimit} counts and limits its connections. */
    public RespFrontEnd(ServerContext context, ChannelHandler connectionLimit) {
        this.context = context;
        this.commands = new RespCommands(context);
        this.connectionLimit = connectionLimit;
    }

    @Override
    protected void initChannel(SocketChannel channel) {
        ServerConfig config = context.config();
        RespSession session = new RespSession(config.password() != null);
        RequestGuard guard = context.requestGuard(RespCommands.FRONT_END, session::smallRequestsOnly);
        ChannelPipeline pipeline = channel.pipeline();
        pipeline.addLast(connectionLimit);
        pipeline.addLast(guard);
        if (context.config().respIdleTimeoutSeconds() > 0) {
            pipeline.addLast(new IdleStateHandler(0, 0, context.config().respIdleTimeoutSeconds()));
        }
        pipeline.addLast(new InlineLineEnds());
        pipeline.addLast(new RedisDecoder(true));
        pipeline.addLast(new CommandAssembler(config.maxCommandArguments(), config.maxBodyBytes(), guard, session));
        pipeline.addLast(new ReplyEncoder());
        pipeline.addLast(new RespHandler(commands, session, guard));
    }
}
