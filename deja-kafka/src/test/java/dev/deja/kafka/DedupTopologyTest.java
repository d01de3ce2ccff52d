package dev.deja.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Properties;
import java.util.function.UnaryOperator;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The operator in a whole topology: every id source and route on both stores, each store's window edges, both clocks.
 */
class DedupTopologyTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final Duration WINDOW = Duration.ofHours(1);

    @TempDir
    java.nio.file.Path stateDir;

    private TopologyTestDriver driver;
    private TestInputTopic<String, String> in;
    private TestOutputTopic<String, String> out;

    @AfterEach
    void close() {
        if (driver != null) {
            driver.close();
        }
    }

    private void start(UnaryOperator<Dedup.Builder<String, String>> configure) {
        StreamsBuilder builder = new StreamsBuilder();
        Dedup<String, String> dedup = configure
                .apply(Dedup.builder(Serdes.String(), Serdes.String()).window(WINDOW))
                .build();
        dedup.apply(builder.stream("in")).to("out");
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "dedup-test");
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        props.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        props.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        driver = new TopologyTestDriver(builder.build(), props, T0);
        in = driver.createInputTopic("in", new StringSerializer(), new StringSerializer(), T0, Duration.ZERO);
        out = driver.createOutputTopic("out", new StringDeserializer(), new StringDeserializer());
    }

    private void send(String key, String value, Instant time, Header... headers) {
        in.pipeInput(new TestRecord<>(key, value, new RecordHeaders(headers), time));
    }

    private double metric(String name) {
        double sum = 0;
        for (var e : driver.metrics().entrySet()) {
            MetricName n = e.getKey();
            if (n.group().equals(DedupMetricNames.GROUP) && n.name().equals(name)) {
                sum += ((Number) ((Metric) e.getValue()).metricValue()).doubleValue();
            }
        }
        return sum;
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void keyIdsPassTheFirstCopyOnly(StoreKind kind) {
        start(b -> b.store(kind).id(IdSource.key()));
        send("a", "1", T0);
        send("b", "2", T0);
        send("a", "3", T0.plusSeconds(1));
        assertThat(out.readKeyValuesToList()).containsExactly(KeyValue.pair("a", "1"), KeyValue.pair("b", "2"));
        assertThat(metric(DedupMetricNames.UNIQUE)).isEqualTo(2);
        assertThat(metric(DedupMetricNames.DUPLICATES)).isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void headerIdsAreReadFromTheLastHeaderOfThatName(StoreKind kind) {
        start(b -> b.store(kind).id(IdSource.header("msg-id")));
        send("k1", "1", T0, header("msg-id", "x"));
        send("k2", "2", T0, header("msg-id", "y"));
        send("k3", "3", T0, header("msg-id", "x"));
        assertThat(out.readValuesToList()).containsExactly("1", "2");
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void jsonFieldIdsRepartitionAndKeepTheRecordsOwnKeys(StoreKind kind) {
        start(b -> b.store(kind).id(IdSource.jsonField("context.messageId")));
        send("user-1", "{\"context\":{\"messageId\":\"m1\"},\"n\":1}", T0);
        send("user-2", "{\"context\":{\"messageId\":\"m1\"},\"n\":2}", T0); // same id under another key
        send("user-2", "{\"context\":{\"messageId\":42},\"n\":3}", T0); // a number's literal is its id
        send("user-3", "{\"context\":{\"messageId\":\"42\"},\"n\":4}", T0);
        assertThat(out.readKeyValuesToList())
                .containsExactly(
                        KeyValue.pair("user-1", "{\"context\":{\"messageId\":\"m1\"},\"n\":1}"),
                        KeyValue.pair("user-2", "{\"context\":{\"messageId\":42},\"n\":3}"));
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void valueHashIdsDropIdenticalContent(StoreKind kind) {
        start(b -> b.store(kind).id(IdSource.valueHash()).inputKeyedById(/* keyed= */ false));
        send("k1", "same body", T0);
        send("k2", "same body", T0);
        send("k3", "other body", T0);
        assertThat(out.readValuesToList()).containsExactly("same body", "other body");
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void recordsWithoutAnIdPassByDefaultAndAreCounted(StoreKind kind) {
        start(b -> b.store(kind).id(IdSource.jsonField("id")));
        send("k", "not json", T0);
        send("k", "{\"other\":1}", T0);
        send("k", "{\"id\":null}", T0);
        assertThat(out.readValuesToList()).containsExactly("not json", "{\"other\":1}", "{\"id\":null}");
        assertThat(metric(DedupMetricNames.MISSING_IDS)).isEqualTo(3);
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void recordsWithoutAnIdCanBeDroppedOrSentToATopic(StoreKind kind) {
        start(b -> b.store(kind).id(IdSource.header("id")).missingId(Route.toTopic("errors")));
        send("k", "no id", T0);
        send("k", "with id", T0, header("id", "1"));
        assertThat(out.readValuesToList()).containsExactly("with id");
        assertThat(driver.createOutputTopic("errors", new StringDeserializer(), new StringDeserializer())
                        .readValuesToList())
                .containsExactly("no id");
        driver.close();

        start(b ->
                b.store(kind).id(IdSource.header("id")).missingId(Route.drop()).storeName("other"));
        send("k", "no id", T0);
        assertThat(out.isEmpty()).isTrue();
        assertThat(metric(DedupMetricNames.MISSING_IDS)).isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void duplicatesSentToATopicNameTheirFirstCopy(StoreKind kind) {
        start(b -> b.store(kind).id(IdSource.key()).duplicates(Route.toTopic("dups")));
        send("a", "first", T0);
        send("a", "second", T0.plusSeconds(5));
        assertThat(out.readValuesToList()).containsExactly("first");
        TestRecord<String, String> dup = driver.createOutputTopic(
                        "dups", new StringDeserializer(), new StringDeserializer())
                .readRecord();
        assertThat(dup.value()).isEqualTo("second");
        assertThat(text(dup, DedupHeaders.FIRST_PARTITION)).isEqualTo("0");
        assertThat(text(dup, DedupHeaders.FIRST_OFFSET)).isEqualTo("0");
        assertThat(text(dup, DedupHeaders.FIRST_TIMESTAMP)).isEqualTo(Long.toString(T0.toEpochMilli()));
    }

    @Test
    void windowStoreRecordTimeHoldsAnIdForLessThanOneWindowEitherSide() {
        start(b -> b.store(StoreKind.WINDOW).id(IdSource.key()));
        send("a", "first", T0);
        send("a", "just inside", T0.plus(WINDOW).minusMillis(1));
        send("a", "one window later", T0.plus(WINDOW));
        send("b", "first", T0.plus(WINDOW));
        send("b", "late copy, just inside", T0.plusMillis(1)); // out of order, less than a window earlier
        send("c", "first", T0.plus(WINDOW.multipliedBy(3)));
        send("d", "a window behind stream time", T0);
        send("d", "again: too old to be held", T0);
        assertThat(out.readValuesToList())
                .containsExactly(
                        "first",
                        "one window later",
                        "first",
                        "first",
                        "a window behind stream time",
                        "again: too old to be held");
    }

    @Test
    void windowStoreWallClockCountsFromWhenTheIdWasFirstSeen() {
        start(b -> b.store(StoreKind.WINDOW).id(IdSource.key()).clock(WindowClock.WALL_CLOCK));
        send("a", "first", T0);
        send("a", "copy with a much later timestamp", T0.plus(WINDOW.multipliedBy(5)));
        driver.advanceWallClockTime(WINDOW.minusMillis(1));
        send("a", "still inside", T0);
        driver.advanceWallClockTime(Duration.ofMillis(1));
        send("a", "one window after first seen", T0);
        assertThat(out.readValuesToList()).containsExactly("first", "one window after first seen");
    }

    @Test
    void windowStoreCapGivesUpTheOldestSlicesAndShrinksTheEffectiveWindow() {
        Duration slice = WINDOW.dividedBy(HeldIds.SLICES);
        start(b -> b.store(StoreKind.WINDOW).id(IdSource.key()).maxIdsPerPartition(2));
        send("a", "a", T0);
        send("b", "b", T0.plus(slice));
        send("c", "c", T0.plus(slice.multipliedBy(2))); // three ids held: the slice holding "a" is given up
        send("a", "a again", T0.plus(slice.multipliedBy(2))); // passes, and gives up the slice holding "b"
        send("c", "c again", T0.plus(slice.multipliedBy(2)));
        assertThat(out.readValuesToList()).containsExactly("a", "b", "c", "a again");
        assertThat(metric(DedupMetricNames.EFFECTIVE_WINDOW)).isLessThan((double) WINDOW.toMillis());
    }

    @Test
    void exactStoreHoldsAnIdForAtLeastTheWindowAndDatesALateIdAtStreamTime() {
        start(b -> b.id(IdSource.key()).store(StoreKind.EXACT));
        send("a", "first", T0);
        send("a", "late copy", T0.minus(WINDOW));
        send("x", "first", T0.plus(WINDOW).minusMillis(1));
        send("a", "just inside", T0.plus(WINDOW).minusMillis(1));
        send("a", "two windows later", T0.plus(WINDOW.multipliedBy(2)));
        send("d", "a window behind stream time", T0);
        send("d", "again: dated at stream time, so held", T0);
        assertThat(out.readValuesToList())
                .containsExactly("first", "first", "two windows later", "a window behind stream time");
        assertThat(metric(DedupMetricNames.EFFECTIVE_WINDOW)).isPositive();
    }

    @Test
    void exactStoreWallClockWindowCountsFromWhenTheIdWasFirstSeen() {
        start(b -> b.id(IdSource.key()).store(StoreKind.EXACT).clock(WindowClock.WALL_CLOCK));
        send("a", "first", T0);
        send("a", "copy with a much later timestamp", T0.plus(WINDOW.multipliedBy(5)));
        driver.advanceWallClockTime(WINDOW.minusMillis(1));
        send("a", "still inside", T0);
        driver.advanceWallClockTime(WINDOW.plusMillis(1));
        send("a", "two windows after first seen", T0);
        assertThat(out.readValuesToList()).containsExactly("first", "two windows after first seen");
    }

    @Test
    void exactStoreRefusesACapAndAWindowUnderOneSecond() {
        Dedup.Builder<String, String> b =
                Dedup.builder(Serdes.String(), Serdes.String()).id(IdSource.key());
        assertThatThrownBy(() -> b.maxIdsPerPartition(5).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("StoreKind.WINDOW");
        assertThatThrownBy(() -> Dedup.builder(Serdes.String(), Serdes.String())
                        .id(IdSource.key())
                        .window(Duration.ofMillis(999))
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least PT1S");
        assertThat(b.store(StoreKind.WINDOW).build().maxIdsPerPartition()).isEqualTo(5);
    }

    @Test
    void idsInMemoryAreTheExactStoresWithinTheirBoundsAndDefault() {
        assertThat(Dedup.builder(Serdes.String(), Serdes.String())
                        .id(IdSource.key())
                        .build()
                        .idsInMemoryPerPartition())
                .isEqualTo(Dedup.DEFAULT_IDS_IN_MEMORY_PER_PARTITION);
        Dedup.Builder<String, String> b =
                Dedup.builder(Serdes.String(), Serdes.String()).id(IdSource.key());
        assertThat(b.idsInMemoryPerPartition(5_000).build().idsInMemoryPerPartition())
                .isEqualTo(5_000);
        assertThatThrownBy(() -> b.store(StoreKind.WINDOW).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("exact store only");
        for (int bad :
                new int[] {Dedup.MIN_IDS_IN_MEMORY_PER_PARTITION - 1, Dedup.MAX_IDS_IN_MEMORY_PER_PARTITION + 1, 0, -1
                }) {
            assertThatThrownBy(() -> b.idsInMemoryPerPartition(bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("ids in memory per partition must be in [1024, 67108864], not " + bad);
        }
    }

    private static Header header(String name, String value) {
        return new org.apache.kafka.common.header.internals.RecordHeader(name, value.getBytes(StandardCharsets.UTF_8));
    }

    private static String text(TestRecord<String, String> record, String header) {
        return new String(record.headers().lastHeader(header).value(), StandardCharsets.US_ASCII);
    }
}
