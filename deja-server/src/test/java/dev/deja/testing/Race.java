package dev.deja.testing;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Many connections racing: each queues its commands without sending them, then all send at once, so the server
 * sees them interleaved (and, for an event loop, in the same turns).
 */
public final class Race {

    /** Command {@code command} of connection {@code connection}. */
    public interface Command<T> {
        RedisFuture<T> send(RedisAsyncCommands<String, String> redis, int connection, int command);
    }

    private Race() {}

    /**
     * Runs the race and returns every reply: {@code result.get(c).get(k)} answers command {@code k} of connection
     * {@code c}. Fails when a reply takes more than 10 seconds.
     */
    public static <T> List<List<T>> run(RedisClient client, int connections, int commands, Command<T> command)
            throws Exception {
        List<StatefulRedisConnection<String, String>> open = new ArrayList<>();
        List<List<RedisFuture<T>>> sent = new ArrayList<>();
        try {
            for (int c = 0; c < connections; c++) {
                StatefulRedisConnection<String, String> conn = client.connect();
                conn.setAutoFlushCommands(false);
                open.add(conn);
                List<RedisFuture<T>> mine = new ArrayList<>();
                for (int k = 0; k < commands; k++) {
                    mine.add(command.send(conn.async(), c, k));
                }
                sent.add(mine);
            }
            open.parallelStream().forEach(StatefulRedisConnection::flushCommands);
            List<List<T>> replies = new ArrayList<>();
            for (List<RedisFuture<T>> mine : sent) {
                List<T> values = new ArrayList<>();
                for (RedisFuture<T> reply : mine) {
                    values.add(reply.get(10, TimeUnit.SECONDS));
                }
                replies.add(values);
            }
            return replies;
        } finally {
            open.forEach(StatefulRedisConnection::close);
        }
    }
}
