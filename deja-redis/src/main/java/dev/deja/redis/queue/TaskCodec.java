package dev.deja.redis.queue;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A task as the queue stores it in Redis: one JSON object with the task's fields and its failures (docs/FORMAT.md
 * section 8).
 */
final class TaskCodec {

    /** The stored form. */
    record Stored(String id, String payload, String seenKey, long owner, List<Failure> failures) {

        Stored {
            failures = failures == null ? List.of() : List.copyOf(failures);
        }

        static Stored of(Task task, List<Failure> failures) {
            return new Stored(task.id(), task.payload(), task.seenKey(), task.owner(), failures);
        }

        Task task() {
            return new Task(id, payload, seenKey, owner);
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private TaskCodec() {}

    static byte[] encode(Task task, List<Failure> failures) {
        try {
            return JSON.writeValueAsBytes(Stored.of(task, failures));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a task always encodes", e);
        }
    }

    static Stored decode(byte[] json) {
        try {
            return JSON.readValue(json, Stored.class);
        } catch (java.io.IOException e) {
            throw new IllegalStateException("not a task of this queue: " + new String(json, StandardCharsets.UTF_8), e);
        }
    }
}
