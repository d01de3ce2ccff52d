package dev.deja.http;

import dev.deja.server.RequestGuard;
import dev.deja.server.ServerContext;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerKeepAliveHandler;
import io.netty.handler.timeout.IdleStateHandler;
import java.nio.charset.StandardCharsets;

/**
 * Builds each HTTP connection's pipeline: the connection limit, the {@link RequestGuard} (request memory and timeout),
 * Netty's HTTP/1.1 codec, keep-alive, the body limit and authentication before a body, then the API.
 */
public final class HttpFrontEnd extends ChannelInitializer<SocketChannel> {

    /** What a connection beyond the limit receives before it is closed. */
    public static final byte[] REFUSAL = refusal("{\"error\":\"too many connections to this server\",\"status\":503}");

    /** Requests one connection may have awaiting responses in Netty's codec; see {@link #initChannel}. */
    static final int MAX_PIPELINE_DEPTH = 1 << 16;

    private final ServerContext context;
    private final HttpAuth auth;
    private final HttpApi api;
    private final ChannelHandler connectionLimit;

    /** A front end over the server's context; {@code connectionLimit} counts and limits its connections. */
    public HttpFrontEnd(ServerContext context, ChannelHandler connectionLimit) {
        this.context = context;
        this.auth = new HttpAuth(context.config().password());
        this.api = new HttpApi(context, auth);
        this.connectionLimit = connectionLimit;
    }

    private static byte[] refusal(String body) {
        return ("HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: " + body.length()
                        + "\r\nConnection: close\r\n\r\n" + body)
                .getBytes(StandardCharsets.US_ASCII);
    }

    @Override
    protected void initChannel(SocketChannel channel) {
        int maxKey = context.config().maxKeyBytes();
        // a request carries its own credentials, so no connection is held to the limits of an unauthenticated one;
        // a body sent without them is refused before it is read (BodyLimit)
        RequestGuard guard = context.requestGuard(HttpErrors.FRONT_END, () -> false);
        ChannelPipeline pipeline = channel.pipeline();
        pipeline.addLast(connectionLimit);
        pipeline.addLast(guard);
        if (context.config().idleTimeoutSeconds() > 0) {
            pipeline.addLast(new IdleStateHandler(0, 0, context.config().idleTimeoutSeconds()));
        }
        // a key travels percent-encoded in the request line, so the line may be three times the key limit
        // Netty closes a connection with more than 128 requests awaiting their responses (its default pipeline
        // depth), unanswered, after running them. One read can hold a thousand small requests, decoded before the
        // request handler stops reading (at 16 waiting replies), so the depth is set far above what a read holds.
        pipeline.addLast(new HttpServerCodec(
                new HttpDecoderConfig()
                        .setMaxInitialLineLength((int) Math.min(Integer.MAX_VALUE, 3L * maxKey + 1024))
                        .setMaxHeaderSize(16 * 1024),
                MAX_PIPELINE_DEPTH));
        pipeline.addLast(new HttpServerKeepAliveHandler());
        pipeline.addLast(new BodyLimit(context.config().maxBodyBytes(), auth, guard));
        pipeline.addLast(new HttpRequestHandler(api, guard));
    }
}
