package dev.deja.kafka.testing;

import dev.deja.kafka.broker.EmbeddedBroker;
import dev.deja.kafka.broker.Topics;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * The in-process broker the broker tests share: started by the first test that asks for it and closed (its data
 * deleted) when the test JVM exits, so a run starts one broker rather than one per test class. Each test keeps to
 * topics and application ids of its own.
 */
public final class SharedBroker {

    private static EmbeddedBroker broker;

    private SharedBroker() {}

    /** The broker's address, starting it on first use. */
    public static synchronized String bootstrapServers() {
        if (broker == null) {
            EmbeddedBroker started = EmbeddedBroker.start();
            Runtime.getRuntime().addShutdownHook(new Thread(started::close, "shared-broker-close"));
            broker = started;
        }
        return broker.bootstrapServers();
    }

    /** Creates the topics, each with {@code partitions} partitions, once every partition answers. */
    public static void createTopics(int partitions, String... names) {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers()))) {
            Topics.create(admin, partitions, names);
        }
    }
}
