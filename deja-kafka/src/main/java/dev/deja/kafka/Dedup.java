package dev.deja.kafka;

import java.time.Duration;
import java.util.Objects;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.kstream.Branched;
import org.apache.kafka.streams.kstream.BranchedKStream;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.state.StoreBuilder;

/**
 * A de-duplication step for Kafka Streams: passes on the first record carrying each id within a window and drops
 * the later copies, or sends them to a topic. Immutable; made by {@link #builder}.
 *
 * <pre>{@code
 * Dedup<String, String> dedup = Dedup.builder(Serdes.String(), Serdes.String())
 *         .id(IdSource.jsonField("context.messageId"))
 *         .window(Duration.ofHours(24))
 *         .build();
 * dedup.apply(builder.stream("events")).to("events-unique");
 * }</pre>
 *
 * <p><b>State.</b> The ids live in a Kafka Streams state store ({@link #storeName()}) with a changelog topic, so a
 * task moved to another instance is rebuilt from Kafka, and standby replicas work: deja's exact store by default, or
 * Kafka Streams' segmented window store ({@link StoreKind}, {@link Builder#store}). Each id costs its 16-byte hash
 * and an 8-byte owner. Either store ages out whole time slices as its clock passes, never a key at a time. The exact
 * store holds a task's newest ids in memory, about {@value #BYTES_PER_ID_IN_MEMORY} bytes each, and writes them to
 * RocksDB in batches ({@link Builder#idsInMemoryPerPartition}): copies that come before a batch is written are
 * answered from memory.
 *
 * <p><b>Guarantees.</b> Under {@code exactly_once_v2} the output, the store's changelog and the input offsets commit
 * together, so each id's first copy appears exactly once in the output. Under {@code at_least_once}, a crash may
 * leave ids recorded whose records' offsets were not committed: each id is stored with its owner, the input
 * partition and offset of its first copy, so that record, read again, is judged a retry and passed on again (never
 * dropped as its own duplicate), while a copy at another offset is a duplicate (deja-core's
 * {@code checkThenAdd(key, owner)}, {@link dev.deja.seen.Verdict}).
 *
 * <p><b>Partitioning.</b> Two copies of a message must meet in one task. {@link #apply} therefore repartitions the
 * input by id through a repartition topic unless the builder was told the input is already keyed (partitioned) by
 * the id ({@link Builder#inputKeyedById}, implied by {@link IdSource#key()}); the records come out with their own
 * keys. {@link #processor()}, for the Processor API, never repartitions: its input must be partitioned by id.
 *
 * <p><b>Metrics.</b> Per task, in Kafka Streams' metrics: {@link DedupMetricNames}. <b>Headers:</b> {@link
 * DedupHeaders}.
 */
public final class Dedup<K, V> {

    /** The store's name unless {@link Builder#storeName} says otherwise. */
    public static final String DEFAULT_STORE_NAME = "deja-dedup";
    /** The window unless {@link Builder#window} says otherwise. */
    public static final Duration DEFAULT_WINDOW = Duration.ofHours(24);
    /** The store unless {@link Builder#store} says otherwise. */
    public static final StoreKind DEFAULT_STORE = StoreKind.EXACT;
    /** The cap of {@link Builder#maxIdsPerPartition} that means none. */
    public static final long NO_CAP = Long.MAX_VALUE;
    /**
     * The new ids the exact store holds in memory per task unless {@link Builder#idsInMemoryPerPartition} says
     * otherwise: about 20 MiB once full, less than the three 16 MiB write buffers each of Kafka Streams' own RocksDB
     * stores may hold.
     */
    public static final int DEFAULT_IDS_IN_MEMORY_PER_PARTITION = 1 << 19;
    /** The fewest ids {@link Builder#idsInMemoryPerPartition} takes. */
    public static final int MIN_IDS_IN_MEMORY_PER_PARTITION = NewIds.MIN_CAPACITY;
    /** The most ids {@link Builder#idsInMemoryPerPartition} takes. */
    public static final int MAX_IDS_IN_MEMORY_PER_PARTITION = NewIds.MAX_CAPACITY;
    /** Memory per id the exact store holds in memory. */
    public static final int BYTES_PER_ID_IN_MEMORY = NewIds.BYTES_PER_ID;

    private final Serde<K> keySerde;
    private final Serde<V> valueSerde;
    private final Settings settings;

    private Dedup(Builder<K, V> b) {
        this.keySerde = b.keySerde;
        this.valueSerde = b.valueSerde;
        IdSource idSource = Objects.requireNonNull(b.idSource, "the id source must be given: id(IdSource...)");
        this.settings = new Settings(
                idSource,
                b.inputKeyedById || idSource.kind() == IdSource.Kind.KEY,
                b.window,
                b.clock,
                b.maxIdsPerPartition,
                b.idsInMemoryPerPartition == null ? DEFAULT_IDS_IN_MEMORY_PER_PARTITION : b.idsInMemoryPerPartition,
                b.duplicates,
                b.missingId,
                b.storeName,
                b.store);
    }

    /** A builder for a step over records whose keys and values these serdes read and write. */
    public static <K, V> Builder<K, V> builder(Serde<K> keySerde, Serde<V> valueSerde) {
        return new Builder<>(keySerde, valueSerde);
    }

    /**
     * Adds the step to a stream: returns the first copies (and, per {@link #missingId()}, records without an id),
     * with their keys, values, timestamps and headers unchanged, and writes duplicates and records without an id to
     * their topics when their routes say so. Repartitions by id first unless the input is keyed by it.
     */
    public KStream<K, V> apply(KStream<K, V> input) {
        String name = settings.storeName();
        if (settings.inputKeyedById()) {
            if (!settings.routesToTopics()) {
                return input.processValues(FirstCopiesProcessor.supplier(settings, extractor()), Named.as(name));
            }
            return route(input.processValues(DedupValuesProcessor.supplier(settings, extractor()), Named.as(name)));
        }
        KStream<Bytes, V> byId = input.process(
                        () -> new KeyById<>(extractor(), keySerde.serializer()), Named.as(name + "-key-by-id"))
                .repartition(Repartitioned.<Bytes, V>as(name + "-by-id")
                        .withKeySerde(Serdes.Bytes())
                        .withValueSerde(valueSerde));
        IdExtractor<Bytes, V> byKey =
                IdExtractor.of(IdSource.key(), Serdes.Bytes().serializer(), valueSerde.serializer());
        if (!settings.routesToTopics()) {
            return byId.processValues(FirstCopiesProcessor.supplier(settings, byKey), Named.as(name))
                    .process(() -> new RestoreKey<K, V>(keySerde.deserializer()), Named.as(name + "-restore-key"));
        }
        KStream<K, Judged<V>> judged = byId.processValues(
                        DedupValuesProcessor.supplier(settings, byKey), Named.as(name))
                .process(() -> new RestoreKey<K, Judged<V>>(keySerde.deserializer()), Named.as(name + "-restore-key"));
        return route(judged);
    }

    /**
     * The step for the Processor API ({@code Topology.addProcessor}), bringing its store: first copies go to the child
     * named {@link #uniqueChild()}, duplicates to {@link #duplicatesChild()} and records without an id to {@link
     * #missingIdChild()} when those routes are topics (add sinks of those names); when neither is, first copies go
     * to every child. Its input must already be partitioned by id.
     */
    public ProcessorSupplier<K, V, K, V> processor() {
        return DedupProcessor.supplier(settings, extractor());
    }

    /** The store the step keeps its ids in, with its changelog ({@link #store()}). */
    public StoreBuilder<? extends StateStore> storeBuilder() {
        return settings.storeBuilder();
    }

    private KStream<K, V> route(KStream<K, Judged<V>> judged) {
        String name = settings.storeName();
        if (!settings.routesToTopics()) {
            return judged.mapValues(Judged::value, Named.as(name + "-unique"));
        }
        BranchedKStream<K, Judged<V>> split = judged.split(Named.as(name + "-"));
        if (settings.duplicates().kind() == Route.Kind.TOPIC) {
            split = split.branch(
                    (k, j) -> j.outcome() == Outcome.DUPLICATE,
                    toTopic(settings.duplicates().topic(), "duplicates"));
        }
        if (settings.missingId().kind() == Route.Kind.TOPIC) {
            split = split.branch(
                    (k, j) -> j.outcome() == Outcome.MISSING_ID,
                    toTopic(settings.missingId().topic(), "missing-id"));
        }
        return split.defaultBranch(Branched.as("unique"))
                .get(name + "-unique")
                .mapValues(Judged::value, Named.as(name + "-unique-values"));
    }

    private Branched<K, Judged<V>> toTopic(String topic, String branch) {
        String name = settings.storeName() + "-" + branch;
        return Branched.withConsumer(
                s -> s.mapValues(Judged::value, Named.as(name + "-values"))
                        .to(topic, Produced.with(keySerde, valueSerde).withName(name + "-sink")),
                branch);
    }

    private IdExtractor<K, V> extractor() {
        return IdExtractor.of(settings.idSource(), keySerde.serializer(), valueSerde.serializer());
    }

    /** Where ids come from. */
    public IdSource idSource() {
        return settings.idSource();
    }

    /** Whether the input is taken to be partitioned by id already (no repartition). */
    public boolean inputKeyedById() {
        return settings.inputKeyedById();
    }

    /** How long an id is held. */
    public Duration window() {
        return settings.window();
    }

    /** Which time places an id in the window. */
    public WindowClock clock() {
        return settings.clock();
    }

    /** The most ids a task (an input partition) answers from, or {@link #NO_CAP}. */
    public long maxIdsPerPartition() {
        return settings.maxIdsPerPartition();
    }

    /** The most new ids the exact store holds in memory per task before it writes them to RocksDB. */
    public int idsInMemoryPerPartition() {
        return settings.idsInMemoryPerPartition();
    }

    /** Where duplicates go: dropped or to a topic. */
    public Route duplicates() {
        return settings.duplicates();
    }

    /** Where records without an id go. */
    public Route missingId() {
        return settings.missingId();
    }

    /** The state store's name, also the prefix of the step's processor names. */
    public String storeName() {
        return settings.storeName();
    }

    /** Which state store holds the ids. */
    public StoreKind store() {
        return settings.store();
    }

    /** The Processor API child that receives first copies when a route is a topic. */
    public String uniqueChild() {
        return settings.uniqueChild();
    }

    /** The Processor API child that receives duplicates when their route is a topic. */
    public String duplicatesChild() {
        return settings.duplicatesChild();
    }

    /** The Processor API child that receives records without an id when their route is a topic. */
    public String missingIdChild() {
        return settings.missingIdChild();
    }

    /** Builds a {@link Dedup}; every setter validates its argument at once. */
    public static final class Builder<K, V> {
        private final Serde<K> keySerde;
        private final Serde<V> valueSerde;
        private IdSource idSource;
        private boolean inputKeyedById;
        private Duration window = DEFAULT_WINDOW;
        private WindowClock clock = WindowClock.RECORD_TIME;
        private long maxIdsPerPartition = NO_CAP;
        private Integer idsInMemoryPerPartition;
        private Route duplicates = Route.drop();
        private Route missingId = Route.pass();
        private String storeName = DEFAULT_STORE_NAME;
        private StoreKind store = DEFAULT_STORE;

        private Builder(Serde<K> keySerde, Serde<V> valueSerde) {
            this.keySerde = Objects.requireNonNull(keySerde, "keySerde");
            this.valueSerde = Objects.requireNonNull(valueSerde, "valueSerde");
        }

        /** Where ids come from; required. */
        public Builder<K, V> id(IdSource source) {
            this.idSource = Objects.requireNonNull(source, "source");
            return this;
        }

        /** Whether the input is already partitioned by id, so no repartition is needed; default false. */
        public Builder<K, V> inputKeyedById(boolean keyed) {
            this.inputKeyedById = keyed;
            return this;
        }

        /** How long an id is held, at least 1 ms; default {@link #DEFAULT_WINDOW}. */
        public Builder<K, V> window(Duration window) {
            if (window == null || window.toMillis() < 1) {
                throw new IllegalArgumentException("the window must be at least 1 ms, not " + window);
            }
            this.window = window;
            return this;
        }

        /** Which time places an id in the window; default {@link WindowClock#RECORD_TIME}. */
        public Builder<K, V> clock(WindowClock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * The most ids a task answers from; past it, the oldest eighth of the window is given up at a time (the
         * effective window shrinks). Counting needs a scan of the task's store when it starts. Default none.
         */
        public Builder<K, V> maxIdsPerPartition(long max) {
            if (max < 1) {
                throw new IllegalArgumentException("the cap must be at least 1 id, not " + max);
            }
            this.maxIdsPerPartition = max;
            return this;
        }

        /**
         * The most new ids the exact store holds in memory per task, about {@value #BYTES_PER_ID_IN_MEMORY} bytes each,
         * before it writes them to RocksDB as one table file; in [{@value #MIN_IDS_IN_MEMORY_PER_PARTITION}, {@value
         * #MAX_IDS_IN_MEMORY_PER_PARTITION}], default {@value #DEFAULT_IDS_IN_MEMORY_PER_PARTITION}. It writes them
         * sooner when its clock passes the oldest by a 64th of the window, and before each checkpoint. Copies of ids
         * still in memory are answered without RocksDB, and the changelog holds every id from the commit that brought
         * it, so more memory means fewer, larger writes and fewer reads, never less safety. {@link StoreKind#EXACT}
         * only.
         */
        public Builder<K, V> idsInMemoryPerPartition(int ids) {
            if (ids < MIN_IDS_IN_MEMORY_PER_PARTITION || ids > MAX_IDS_IN_MEMORY_PER_PARTITION) {
                throw new IllegalArgumentException("ids in memory per partition must be in ["
                        + MIN_IDS_IN_MEMORY_PER_PARTITION + ", " + MAX_IDS_IN_MEMORY_PER_PARTITION + "], not " + ids);
            }
            this.idsInMemoryPerPartition = ids;
            return this;
        }

        /** Where duplicates go: {@link Route#drop()} (the default) or {@link Route#toTopic}. */
        public Builder<K, V> duplicates(Route route) {
            if (Objects.requireNonNull(route, "route").kind() == Route.Kind.PASS) {
                throw new IllegalArgumentException("duplicates are dropped or sent to a topic, not passed on");
            }
            this.duplicates = route;
            return this;
        }

        /** Where records without an id go: {@link Route#pass()} (the default), dropped, or to a topic. */
        public Builder<K, V> missingId(Route route) {
            this.missingId = Objects.requireNonNull(route, "route");
            return this;
        }

        /** The state store's name (and its changelog's); default {@link #DEFAULT_STORE_NAME}. */
        public Builder<K, V> storeName(String name) {
            if (name == null || !name.matches("[a-zA-Z0-9._-]+")) {
                throw new IllegalArgumentException("a store name is letters, digits, '.', '_' and '-': " + name);
            }
            this.storeName = name;
            return this;
        }

        /** Which state store holds the ids; default {@link #DEFAULT_STORE}. */
        public Builder<K, V> store(StoreKind kind) {
            this.store = Objects.requireNonNull(kind, "kind");
            return this;
        }

        /**
         * The step, as configured.
         *
         * @throws IllegalArgumentException when the exact store is asked for with a window under {@link
         *     StoreKind#EXACT}'s minimum of one second or with a cap on ids (which only the window store applies), or
         *     the window store with ids in memory (which only the exact store holds)
         */
        public Dedup<K, V> build() {
            if (store == StoreKind.EXACT && window.compareTo(ExactStateStore.MIN_WINDOW) < 0) {
                throw new IllegalArgumentException("the exact store holds a window of at least "
                        + ExactStateStore.MIN_WINDOW + ", not " + window + "; use store(StoreKind.WINDOW)");
            }
            if (store == StoreKind.EXACT && maxIdsPerPartition != NO_CAP) {
                throw new IllegalArgumentException(
                        "a cap on ids per partition applies to the window store only; use store(StoreKind.WINDOW)");
            }
            if (store == StoreKind.WINDOW && idsInMemoryPerPartition != null) {
                throw new IllegalArgumentException(
                        "ids in memory per partition apply to the exact store only; use store(StoreKind.EXACT)");
            }
            return new Dedup<>(this);
        }
    }
}
