package dev.deja.kafka.worker;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.streams.StreamsConfig;

/**
 * The Kafka properties a worker passes on to Kafka Streams as they are: whatever a cluster needs that the worker has
 * no option for (TLS and SASL settings, client timeouts, a producer's compression), read from a properties file
 * ({@code --kafka-config}, as Kafka's own tools take one) and from {@code --kafka KEY=VALUE}, which wins.
 *
 * <p>Each key must be one Kafka Streams or its clients know: a Streams setting, a consumer, producer or admin client
 * setting (for all of Streams' clients), or one of those behind Streams' prefixes ({@code consumer.},
 * {@code main.consumer.}, {@code restore.consumer.}, {@code global.consumer.}, {@code producer.}, {@code admin.}), or
 * a topic setting for the topics Streams creates ({@code topic.}). A value must be one its setting takes. The settings
 * the worker's own options make ({@code bootstrap.servers}: {@code --bootstrap}, ...) are refused here, naming the
 * option, so that a setting has one place. A mistake is refused before anything connects, naming where it came from.
 */
record ClientProperties(Map<String, String> values) {

    /** No properties. */
    static final ClientProperties NONE = new ClientProperties(Map.of());

    /** The Kafka Streams settings the worker's options make, and the option that makes each. */
    static final Map<String, String> OWNED = Map.of(
            StreamsConfig.APPLICATION_ID_CONFIG, "--application-id",
            StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "--bootstrap",
            StreamsConfig.PROCESSING_GUARANTEE_CONFIG, "--guarantee",
            StreamsConfig.STATE_DIR_CONFIG, "--data-dir",
            StreamsConfig.NUM_STREAM_THREADS_CONFIG, "--threads",
            StreamsConfig.REPLICATION_FACTOR_CONFIG, "--replication-factor",
            StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, "--standby-replicas");

    /** Kafka Streams' prefixes for one kind of client, with the settings of that client. */
    private static final Map<String, ConfigDef> CLIENT_PREFIXES = Map.of(
            StreamsConfig.CONSUMER_PREFIX, ConsumerConfig.configDef(),
            StreamsConfig.MAIN_CONSUMER_PREFIX, ConsumerConfig.configDef(),
            StreamsConfig.RESTORE_CONSUMER_PREFIX, ConsumerConfig.configDef(),
            StreamsConfig.GLOBAL_CONSUMER_PREFIX, ConsumerConfig.configDef(),
            StreamsConfig.PRODUCER_PREFIX, ProducerConfig.configDef(),
            StreamsConfig.ADMIN_CLIENT_PREFIX, AdminClientConfig.configDef());

    /** The settings a key without a prefix may name: Streams' own, then its clients'. */
    private static final List<ConfigDef> UNPREFIXED = List.of(
            StreamsConfig.configDef(),
            ConsumerConfig.configDef(),
            ProducerConfig.configDef(),
            AdminClientConfig.configDef());

    ClientProperties {
        values = Map.copyOf(values);
    }

    /**
     * The properties of {@code file} (none when null), then {@code overrides} over them, each checked.
     *
     * @throws IllegalArgumentException naming the file or {@code --kafka} and the key, for a file that cannot be read,
     *     a key no Kafka setting has, a setting an option makes, or a value its setting does not take
     */
    static ClientProperties read(Path file, Map<String, String> overrides) {
        Map<String, String> values = new LinkedHashMap<>();
        Map<String, String> sources = new LinkedHashMap<>();
        if (file != null) {
            Properties properties = new Properties();
            try (InputStream in = Files.newInputStream(file)) {
                properties.load(in);
            } catch (IOException | IllegalArgumentException e) {
                // IllegalArgumentException: a malformed \\uXXXX escape in the file
                throw new IllegalArgumentException("cannot read the Kafka properties file " + file
                        + " (--kafka-config): " + (e instanceof NoSuchFileException ? "no such file" : e.toString()));
            }
            for (String key : properties.stringPropertyNames()) {
                values.put(key, properties.getProperty(key));
                sources.put(key, file + " (--kafka-config)");
            }
        }
        if (overrides != null) {
            overrides.forEach((key, value) -> {
                values.put(key, value);
                sources.put(key, "--kafka");
            });
        }
        values.forEach((key, value) -> check(key, value, sources.get(key)));
        return new ClientProperties(values);
    }

    /**
     * The settings of the worker's admin client, which checks the broker and the input topic before Kafka Streams
     * starts: the ones an admin client takes, as Kafka Streams would give its own ({@code admin.} ones win), in a new
     * map the caller adds its own to.
     */
    Map<String, Object> adminSettings() {
        Set<String> admin = AdminClientConfig.configNames();
        Map<String, Object> settings = new TreeMap<>();
        values.forEach((key, value) -> {
            if (admin.contains(key)) {
                settings.putIfAbsent(key, value);
            }
        });
        values.forEach((key, value) -> {
            if (key.startsWith(StreamsConfig.ADMIN_CLIENT_PREFIX)) {
                String name = key.substring(StreamsConfig.ADMIN_CLIENT_PREFIX.length());
                if (admin.contains(name)) {
                    settings.put(name, value);
                }
            }
        });
        return settings;
    }

    private static void check(String key, String value, String source) {
        String option = OWNED.get(key);
        if (option != null) {
            throw new IllegalArgumentException(
                    "the Kafka setting '" + key + "' in " + source + " is made by " + option + "; set it there");
        }
        if (key.startsWith(StreamsConfig.TOPIC_PREFIX) && key.length() > StreamsConfig.TOPIC_PREFIX.length()) {
            return; // a topic setting of the topics Kafka Streams creates: the broker checks it when it creates them
        }
        ConfigDef.ConfigKey setting = null;
        String name = key;
        for (Map.Entry<String, ConfigDef> prefix : CLIENT_PREFIXES.entrySet()) {
            if (key.startsWith(prefix.getKey())) {
                name = key.substring(prefix.getKey().length());
                setting = prefix.getValue().configKeys().get(name);
            }
        }
        for (int i = 0; setting == null && name.equals(key) && i < UNPREFIXED.size(); i++) {
            setting = UNPREFIXED.get(i).configKeys().get(key);
        }
        if (setting == null) {
            throw new IllegalArgumentException("'" + key + "' in " + source + " is no Kafka Streams, consumer, producer"
                    + " or admin client setting (a client's setting may carry the prefix consumer., producer. or"
                    + " admin.)");
        }
        try {
            Object parsed = ConfigDef.parseType(name, value, setting.type);
            if (setting.validator != null) {
                setting.validator.ensureValid(name, parsed);
            }
        } catch (ConfigException e) {
            throw new IllegalArgumentException("the Kafka setting '" + key + "' in " + source + ": " + e.getMessage());
        }
    }
}
