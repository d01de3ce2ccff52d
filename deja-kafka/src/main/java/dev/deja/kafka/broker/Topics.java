package dev.deja.kafka.broker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * Creates topics and waits until every partition answers a ListOffsets request: on Kafka 4.3 and later a batch
 * produced right after createTopics, before the partitions' leaders are known everywhere, can be lost.
 */
public final class Topics {

    private static final Duration READY_TIMEOUT = Duration.ofSeconds(30);

    private Topics() {}

    /** Creates each topic with {@code partitions} partitions (one replica) unless it exists, and waits for them. */
    public static void create(Admin admin, int partitions, String... names) {
        List<NewTopic> topics = new ArrayList<>();
        for (String name : names) {
            topics.add(new NewTopic(name, partitions, (short) 1));
        }
        try {
            admin.createTopics(topics).all().get();
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw new IllegalStateException("cannot create topics " + List.of(names), e.getCause());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topics", e);
        }
        awaitReady(admin, partitions, names);
    }

    private static void awaitReady(Admin admin, int partitions, String... names) {
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        for (String name : names) {
            for (int p = 0; p < partitions; p++) {
                request.put(new TopicPartition(name, p), OffsetSpec.latest());
            }
        }
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        while (true) {
            try {
                admin.listOffsets(request).all().get();
                return;
            } catch (ExecutionException e) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("topics " + List.of(names) + " not ready", e.getCause());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for topics", e);
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for topics", e);
            }
        }
    }
}
