package dev.deja.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.Record;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Processor API form under at-least-once: a record read again at its own partition and offset (as after a crash
 * before its offset was committed) is a retry and is passed on again; a copy at another offset is a duplicate.
 */
class DedupProcessorTest {

    @TempDir
    Path stateDir;

    @Test
    void aRecordReadAgainAtItsOwnOffsetIsARetryNotADuplicate() {
        Dedup<String, String> dedup = Dedup.builder(Serdes.String(), Serdes.String())
                .id(IdSource.key())
                .duplicates(Route.toTopic("dups"))
                .build();
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "dedup-processor-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        MockProcessorContext<String, String> context =
                new MockProcessorContext<>(props, new TaskId(0, 3), stateDir.toFile());
        StateStore store = dedup.storeBuilder().withLoggingDisabled().build();
        store.init(context.getStateStoreContext(), store);
        context.addStateStore(store);
        Processor<String, String, String, String> processor = dedup.processor().get();
        processor.init(context);
        try {
            process(context, processor, 3, 17, "id-1", "first delivery");
            process(context, processor, 3, 17, "id-1", "same record read again");
            process(context, processor, 3, 40, "id-1", "a true duplicate");

            assertThat(values(context, dedup.uniqueChild()))
                    .containsExactly("first delivery", "same record read again");
            assertThat(values(context, dedup.duplicatesChild())).containsExactly("a true duplicate");
            assertThat(metric(context, DedupMetricNames.RETRIES)).isEqualTo(1);
            assertThat(metric(context, DedupMetricNames.DUPLICATES)).isEqualTo(1);
        } finally {
            processor.close();
            store.close();
        }
    }

    private static void process(
            MockProcessorContext<String, String> context,
            Processor<String, String, String, String> processor,
            int partition,
            long offset,
            String key,
            String value) {
        context.setRecordMetadata("in", partition, offset);
        context.setCurrentStreamTimeMs(1_000L);
        processor.process(new Record<>(key, value, 1_000L));
    }

    private static List<String> values(MockProcessorContext<String, String> context, String child) {
        return context.forwarded(child).stream()
                .map(f -> (String) f.record().value())
                .toList();
    }

    private static double metric(MockProcessorContext<String, String> context, String name) {
        return context.metrics().metrics().entrySet().stream()
                .filter(e -> e.getKey().group().equals(DedupMetricNames.GROUP)
                        && e.getKey().name().equals(name))
                .mapToDouble(e -> ((Number) ((Metric) e.getValue()).metricValue()).doubleValue())
                .sum();
    }
}
