package dev.deja.kafka;

import static java.nio.charset.StandardCharsets.UTF_8;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Processor API form, ids from the record keys, duplicates sent to a topic, under at-least-once: a record read
 * again at its own partition and offset (as after a crash before its offset was committed) is a retry and is passed
 * on again; a copy at another offset is a duplicate, passed on with headers naming its first copy.
 */
class DedupProcessorTest {

    @TempDir
    Path stateDir;

    private final Dedup<String, String> dedup = Dedup.builder(Serdes.String(), Serdes.String())
            .id(IdSource.key())
            .duplicates(Route.toTopic("dups"))
            .build();
    private MockProcessorContext<String, String> context;
    private StateStore store;
    private Processor<String, String, String, String> processor;

    @BeforeEach
    void open() {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "dedup-processor-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        context = new MockProcessorContext<>(props, new TaskId(0, 3), stateDir.toFile());
        store = dedup.storeBuilder().withLoggingDisabled().build();
        store.init(context.getStateStoreContext(), store);
        context.addStateStore(store);
        processor = dedup.processor().get();
        processor.init(context);
    }

    @AfterEach
    void close() {
        processor.close();
        store.close();
    }

    @Test
    void aRecordReadAgainAtItsOwnOffsetIsARetryNotADuplicate() {
        process(new Record<>("id-1", "first delivery", 1_000L), 17);
        process(new Record<>("id-1", "same record read again", 1_000L), 17);
        process(new Record<>("id-1", "a true duplicate", 1_000L), 40);

        assertThat(values(dedup.uniqueChild())).containsExactly("first delivery", "same record read again");
        assertThat(values(dedup.duplicatesChild())).containsExactly("a true duplicate");
        assertThat(metric(DedupMetricNames.RETRIES)).isEqualTo(1);
        assertThat(metric(DedupMetricNames.DUPLICATES)).isEqualTo(1);
    }

    @Test
    void aDuplicateGoesOnWithHeadersNamingItsFirstCopyAndTheInputRecordKeepsItsOwn() {
        process(new Record<>("id-1", "first", 1_000L), 17);
        Record<String, String> copy = new Record<>("id-1", "copy", 1_000L);
        copy.headers().add("trace", new byte[] {7});
        process(copy, 40);

        // the record given to the processor, which other processors may also receive, is left as it was
        assertThat(copy.headers().toArray()).hasSize(1);
        Record<?, ?> forwarded =
                context.forwarded(dedup.duplicatesChild()).get(0).record();
        assertThat(forwarded.headers().lastHeader("trace").value()).containsExactly(7);
        assertThat(header(forwarded, DedupHeaders.FIRST_PARTITION)).isEqualTo("3");
        assertThat(header(forwarded, DedupHeaders.FIRST_OFFSET)).isEqualTo("17");
        assertThat(header(forwarded, DedupHeaders.FIRST_TIMESTAMP)).isEqualTo("1000");
        // a first copy goes on as it came, with no header added
        assertThat(context.forwarded(dedup.uniqueChild())
                        .get(0)
                        .record()
                        .headers()
                        .toArray())
                .isEmpty();
    }

    /** Processes the record as read from partition 3 of topic {@code in} at {@code offset}. */
    private void process(Record<String, String> record, long offset) {
        context.setRecordMetadata("in", 3, offset);
        context.setCurrentStreamTimeMs(record.timestamp());
        processor.process(record);
    }

    private List<String> values(String child) {
        return context.forwarded(child).stream()
                .map(f -> (String) f.record().value())
                .toList();
    }

    private static String header(Record<?, ?> record, String name) {
        return new String(record.headers().lastHeader(name).value(), UTF_8);
    }

    private double metric(String name) {
        return context.metrics().metrics().entrySet().stream()
                .filter(e -> e.getKey().group().equals(DedupMetricNames.GROUP)
                        && e.getKey().name().equals(name))
                .mapToDouble(e -> ((Number) ((Metric) e.getValue()).metricValue()).doubleValue())
                .sum();
    }
}
