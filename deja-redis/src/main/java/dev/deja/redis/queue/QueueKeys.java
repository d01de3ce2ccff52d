package dev.deja.redis.queue;

import java.nio.charset.StandardCharsets;

/**
 * The Redis keys of one queue, all with the hash tag {@code {name}} so that they share a slot on a Redis Cluster and
 * one script may touch them all (docs/FORMAT.md section 8).
 */
final class QueueKeys {

    final byte[] due;
    final byte[] claimed;
    final byte[] tasks;
    final byte[] claims;
    final byte[] dead;

    QueueKeys(String name) {
        if (name.isEmpty() || name.contains("{") || name.contains("}")) {
            throw new IllegalArgumentException(
                    "a queue name must be non-empty and hold no braces (got \"" + name + "\")");
        }
        String tag = "{" + name + "}:";
        due = bytes(tag + "due");
        claimed = bytes(tag + "claimed");
        tasks = bytes(tag + "tasks");
        claims = bytes(tag + "claims");
        dead = bytes(tag + "dead");
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
