package dev.deja.redis.testing;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One {@link RedisServer} shared by every test of a class: started before the first test and closed after the last, so
 * a test class that needs a plain server declares
 * {@code @RegisterExtension static final RedisServerExtension redis = new RedisServerExtension();} instead of its own
 * start and stop methods. Tests keep their data apart by key prefix or queue name, since the server is not emptied
 * between them.
 */
public final class RedisServerExtension implements BeforeAllCallback, AfterAllCallback {

    private RedisServer server;
    private RedisClient client;
    private StatefulRedisConnection<byte[], byte[]> connection;

    @Override
    public void beforeAll(ExtensionContext context) {
        server = RedisServer.start();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (connection != null) {
            connection.close();
            client.shutdown();
            connection = null;
            client = null;
        }
        server.close();
        server = null;
    }

    /** The running server, for what the shortcuts below do not cover (a restart, its directory). */
    public RedisServer server() {
        if (server == null) {
            throw new IllegalStateException("the Redis server runs only while the tests of its class run");
        }
        return server;
    }

    /** Where Lettuce connects to the server. */
    public RedisURI uri() {
        return server().uri();
    }

    /** The loopback port the server listens on. */
    public int port() {
        return server().port();
    }

    /** Commands over one Lettuce connection with binary keys and values, opened at the first call, closed after all. */
    public synchronized RedisCommands<byte[], byte[]> bytes() {
        if (connection == null) {
            client = RedisClient.create(uri());
            connection = client.connect(ByteArrayCodec.INSTANCE);
        }
        return connection.sync();
    }

    /** Runs {@code redis-cli} against the server and returns what it printed, trimmed. */
    public String cli(String... args) {
        return server().cli(args);
    }
}
