package dev.deja.kafka.worker;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.UUID;

/**
 * The demo's messages: JSON events with a {@code messageId}, of which a known share are copies of earlier ones,
 * half of them of a recent message, half of one from anywhere earlier in the stream (far apart in time).
 */
final class DemoStream {

    /** One message: its id (also its key) and its JSON value. */
    record Message(String id, String value) {}

    private DemoStream() {}

    /** {@code count} messages, {@code duplicateShare} of them copies, from a fixed seed so a run can be repeated. */
    static List<Message> generate(int count, double duplicateShare, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        List<Message> messages = new ArrayList<>(count);
        List<Message> originals = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            if (!originals.isEmpty() && random.nextDouble() < duplicateShare) {
                int back = random.nextBoolean()
                        ? originals.size() - 1 - random.nextInt(Math.min(100, originals.size()))
                        : random.nextInt(originals.size());
                messages.add(originals.get(back));
                continue;
            }
            String id = new UUID(random.nextLong(), random.nextLong()).toString();
            String json =
                    "{\"messageId\":\"" + id + "\",\"type\":\"track\",\"event\":\"Order Completed\",\"n\":" + i + "}";
            Message m = new Message(id, json);
            originals.add(m);
            messages.add(m);
        }
        return messages;
    }
}
