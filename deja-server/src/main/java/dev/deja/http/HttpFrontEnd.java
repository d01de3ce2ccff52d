package dev.deja.http;

import dev.deja.server.RequestGuard;
import dev.deja.server.ServerContext;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.timeout.IdleStateHandler;
import java.nio.charset.StandardCharsets;

/**
 * Builds each HTTP connection's pipeline: the connection limit, the {@link RequestGuard} (request memory and timeout),
 * Netty's HTTP/1.1 codec, the body limit and authentication before a body, then the API. Keep-alive needs no handler
 * of its own: the request handler answers the last request of a connection (HTTP/1.0 without keep-alive,
 * {@code Connection: close}) with {@code Connection: close} and closes it once the answer is written.
 */
public final class HttpFrontEnd extends ChannelInitializer<SocketChannel> {

    /** What a connection beyond the limit receives before it is closed. */
    public static final byte[] REFUSAL = refusal("{\"error\":\"too many connections to this server\",\"status\":503}");

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
        pipeline.addLast(new RequestCodec(new HttpDecoderConfig()
                .setMaxInitialLineLength((int) Math.min(Integer.MAX_VALUE, 3L * maxKey + 1024))
                .setMaxHeaderSize(16 * 1024)));
        pipeline.addLast(new BodyLimit(context.config().maxBodyBytes(), auth, guard));
        pipeline.addLast(new HttpRequestHandler(api, guard));
    }
}
