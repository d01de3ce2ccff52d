package dev.deja.kafka;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.streams.state.StoreBuilder;

/**
 * Builds an {@link ExactStateStore}. Its changelog is deleted by time, not compacted (a record is a batch of ids, not
 * one key's latest value): retention the window plus {@value ExactStateStore#CHANGELOG_EXTRA_RETENTION_HOURS} hours,
 * counted from each batch's latest id. The store has no cache layer, so caching is always off.
 */
final class ExactStateStoreBuilder implements StoreBuilder<ExactStateStore> {

    private final String name;
    private final Duration window;
    private final int idsInMemory;
    private boolean logged = true;
    private final Map<String, String> logConfig = new HashMap<>();

    ExactStateStoreBuilder(String name, Duration window, int idsInMemory) {
        this.name = name;
        this.window = window;
        this.idsInMemory = idsInMemory;
        logConfig.putAll(defaultLogConfig(window));
    }

    static Map<String, String> defaultLogConfig(Duration window) {
        long retention = window.plus(Duration.ofHours(ExactStateStore.CHANGELOG_EXTRA_RETENTION_HOURS))
                .toMillis();
        return Map.of(
                TopicConfig.CLEANUP_POLICY_CONFIG,
                TopicConfig.CLEANUP_POLICY_DELETE,
                TopicConfig.RETENTION_MS_CONFIG,
                Long.toString(retention));
    }

    @Override
    public StoreBuilder<ExactStateStore> withCachingEnabled() {
        return this;
    }

    @Override
    public StoreBuilder<ExactStateStore> withCachingDisabled() {
        return this;
    }

    /** Logs to the changelog with these topic settings over the defaults. */
    @Override
    public StoreBuilder<ExactStateStore> withLoggingEnabled(Map<String, String> config) {
        logged = true;
        logConfig.putAll(config);
        return this;
    }

    @Override
    public StoreBuilder<ExactStateStore> withLoggingDisabled() {
        logged = false;
        logConfig.clear();
        return this;
    }

    @Override
    public ExactStateStore build() {
        return new ExactStateStore(name, window, idsInMemory, logged);
    }

    @Override
    public Map<String, String> logConfig() {
        return Map.copyOf(logConfig);
    }

    @Override
    public boolean loggingEnabled() {
        return logged;
    }

    @Override
    public String name() {
        return name;
    }
}
