package dev.deja.server;

import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.util.Locale;

/**
 * The socket layer the event loops run on. Linux's epoll through Netty's native transport reads and writes the
 * sockets without the JDK's NIO selector and its bookkeeping per ready key; NIO runs everywhere a JVM does.
 * {@link #AUTO}, the default, takes epoll where Netty's native library loads (Linux on x86_64) and NIO elsewhere.
 */
public enum Transport {
    /** epoll where it is available, otherwise NIO. */
    AUTO,
    /** Netty's native epoll transport; refused where its library does not load. */
    EPOLL,
    /** The JDK's NIO selector. */
    NIO;

    /** The transport named {@code auto}, {@code epoll} or {@code nio} (case-insensitive). */
    public static Transport parse(String name) {
        if (name != null) {
            for (Transport transport : values()) {
                if (transport.name().equalsIgnoreCase(name.trim())) {
                    return transport;
                }
            }
        }
        throw new IllegalArgumentException(
                "transport must be one of auto|epoll|nio (got " + (name == null ? "null" : "\"" + name + "\"") + ")");
    }

    /**
     * The transport this setting means on this machine: {@link #AUTO} resolved to {@link #EPOLL} or {@link #NIO}.
     *
     * @throws IllegalStateException for {@link #EPOLL} where it is unavailable, saying why
     */
    public Transport resolve() {
        return switch (this) {
            case AUTO -> Epoll.isAvailable() ? EPOLL : NIO;
            case EPOLL -> {
                if (!Epoll.isAvailable()) {
                    throw new IllegalStateException(
                            "the epoll transport is not available here: " + epollUnavailability(),
                            Epoll.unavailabilityCause());
                }
                yield EPOLL;
            }
            case NIO -> NIO;
        };
    }

    /** Why epoll is not available here, or null where it is. */
    public static String epollUnavailability() {
        Throwable cause = Epoll.unavailabilityCause();
        if (cause == null) {
            return null;
        }
        Throwable root = cause;
        while (root.getCause() != null) {
            root = root.getCause();
        }
        return root.getMessage() == null ? root.toString() : root.getMessage();
    }

    /** The event loops' I/O handlers; of a resolved transport only. */
    IoHandlerFactory ioHandlers() {
        return switch (this) {
            case EPOLL -> EpollIoHandler.newFactory();
            case NIO -> NioIoHandler.newFactory();
            case AUTO -> throw new IllegalStateException("resolve() the transport first");
        };
    }

    /** The listening socket's channel, which must match {@link #ioHandlers}; of a resolved transport only. */
    Class<? extends ServerChannel> serverChannel() {
        return switch (this) {
            case EPOLL -> EpollServerSocketChannel.class;
            case NIO -> NioServerSocketChannel.class;
            case AUTO -> throw new IllegalStateException("resolve() the transport first");
        };
    }

    /** The name the command line and the logs use: {@code auto}, {@code epoll}, {@code nio}. */
    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
