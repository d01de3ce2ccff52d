package dev.deja.server;

import dev.deja.http.HttpFrontEnd;
import dev.deja.metrics.ServerMetrics;
import dev.deja.namespace.NamespaceRegistry;
import dev.deja.resp.RespFrontEnd;
import dev.deja.status.StatusSampler;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.SocketChannel;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running deja server: the namespaces and the HTTP and RESP front ends.
 *
 * <p>{@link #close()} stops it the way SIGTERM should: stop accepting connections, let in-flight requests finish,
 * then write out every namespace's journal and snapshot it.
 */
public final class DejaServer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(DejaServer.class);

    private final ServerContext context;
    private final EventLoopGroup acceptors;
    private final EventLoopGroup workers;
    private final Channel http;
    private final Channel resp;
    private final Transport transport;
    private boolean closed;

    private DejaServer(
            ServerContext context,
            Transport transport,
            EventLoopGroup acceptors,
            EventLoopGroup workers,
            Channel http,
            Channel resp) {
        this.context = context;
        this.transport = transport;
        this.acceptors = acceptors;
        this.workers = workers;
        this.http = http;
        this.resp = resp;
    }

    /** Recovers the namespaces from the data dir and binds the enabled front ends. */
    public static DejaServer start(ServerConfig config) throws IOException, InterruptedException {
        // refused before the namespaces load: an unavailable transport asked for by name is a configuration error
        Transport transport = config.transport().resolve();
        NamespaceRegistry namespaces = NamespaceRegistry.builder(config.dataDir())
                .kinds(config.kinds())
                .defaultSpec(config.defaultSpec())
                .autoCreate(config.autoCreate())
                .durability(config.durability())
                .limits(config.namespaceLimits())
                .build();
        namespaces.open();
        ConnectionLimit httpConnections = new ConnectionLimit(config.maxHttpConnections(), HttpFrontEnd.REFUSAL);
        ConnectionLimit respConnections = new ConnectionLimit(config.maxRespConnections(), RespFrontEnd.REFUSAL);
        RequestMemory requestMemory = new RequestMemory(config.requestMemory());
        ServerContext context = new ServerContext(
                config,
                namespaces,
                new ServerMetrics(namespaces, () -> httpConnections.open() + respConnections.open(), requestMemory),
                requestMemory,
                StatusSampler.start(namespaces, config.dataDir()));
        EventLoopGroup acceptors = new MultiThreadIoEventLoopGroup(1, transport.ioHandlers());
        EventLoopGroup workers = new MultiThreadIoEventLoopGroup(ioThreads(config), transport.ioHandlers());
        if (transport == Transport.NIO && config.transport() == Transport.AUTO) {
            log.info(
                    "network transport: nio (epoll is not available here: {}); event loops: {}",
                    Transport.epollUnavailability(),
                    ioThreads(config));
        } else {
            log.info("network transport: {}; event loops: {}", transport, ioThreads(config));
        }
        Channel http = null;
        Channel resp = null;
        try {
            if (enabled(config, config.httpPort())) {
                http = bind(
                        config,
                        transport,
                        config.httpPort(),
                        acceptors,
                        workers,
                        new HttpFrontEnd(context, httpConnections));
            }
            if (enabled(config, config.respPort())) {
                resp = bind(
                        config,
                        transport,
                        config.respPort(),
                        acceptors,
                        workers,
                        new RespFrontEnd(context, respConnections));
            }
        } catch (RuntimeException | InterruptedException e) {
            // the loops stop before the namespaces close, as in close(); waited for without throwing, so that the
            // start's own failure is what the caller hears
            acceptors.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
            workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
            context.status().close();
            namespaces.close();
            throw e;
        }
        return new DejaServer(context, transport, acceptors, workers, http, resp);
    }

    private static int ioThreads(ServerConfig config) {
        return config.ioThreads() > 0
                ? config.ioThreads()
                : defaultIoThreads(Runtime.getRuntime().availableProcessors());
    }

    /**
     * The event loops unless configured: one per core but one, and at least one; not Netty's default of two per
     * core. A loop runs each of its connections' requests from the read to the reply's write, so when another
     * thread takes its core (the journal's background work, the garbage collector, a client on the same machine)
     * every reply of that loop's turn waits. A core left to them keeps the loops from taking turns with them; loops
     * beyond that only contend for the cores and for each namespace's lock (docs/BENCHMARKS.md, section Server
     * settings).
     */
    static int defaultIoThreads(int cores) {
        return Math.max(1, cores - 1);
    }

    private static boolean enabled(ServerConfig config, int port) {
        return port > 0 || config.ephemeralPorts();
    }

    private static Channel bind(
            ServerConfig config,
            Transport transport,
            int port,
            EventLoopGroup acceptors,
            EventLoopGroup workers,
            ChannelInitializer<SocketChannel> frontEnd)
            throws InterruptedException {
        return new ServerBootstrap()
                .group(acceptors, workers)
                .channel(transport.serverChannel())
                .option(ChannelOption.SO_BACKLOG, 1024)
                .childOption(ChannelOption.TCP_NODELAY, true)
                // replies beyond the high mark pause reading from that client (PipelinedHandler), which bounds what
                // a client that does not read its replies makes the server hold
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(64 << 10, 256 << 10))
                .childHandler(frontEnd)
                .bind(config.bind(), port)
                .sync()
                .channel();
    }

    /** The bound HTTP port, or -1 when HTTP is disabled. */
    public int httpPort() {
        return http == null ? -1 : ((InetSocketAddress) http.localAddress()).getPort();
    }

    /** The bound RESP port, or -1 when RESP is disabled. */
    public int respPort() {
        return resp == null ? -1 : ((InetSocketAddress) resp.localAddress()).getPort();
    }

    /** The socket layer the event loops run on: {@link Transport#EPOLL} or {@link Transport#NIO}. */
    public Transport transport() {
        return transport;
    }

    /** The namespaces, configuration and metrics. */
    public ServerContext context() {
        return context;
    }

    /** Stops accepting, finishes in-flight requests, then closes every namespace (journal and snapshot). */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (http != null) {
            http.close().syncUninterruptibly();
        }
        if (resp != null) {
            resp.close().syncUninterruptibly();
        }
        acceptors.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        // the quiet period lets requests already read finish and their replies be flushed
        workers.shutdownGracefully(100, 5_000, TimeUnit.MILLISECONDS).syncUninterruptibly();
        context.status().close();
        List<String> notSnapshotted = context.namespaces().closeAll();
        if (notSnapshotted.isEmpty()) {
            log.info("deja stopped; every namespace's journal is written out and snapshotted");
        } else {
            log.warn(
                    "deja stopped; every namespace's journal is written out, but the final snapshot of {} failed"
                            + " (see the errors above): their journals still hold every acknowledged write"
                            + " and are replayed at the next start, so nothing is lost",
                    notSnapshotted);
        }
    }
}
