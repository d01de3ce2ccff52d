package dev.deja.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.seen.Verdict;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ExactStateStore} on its own: ids held in memory until as many as the step holds have gathered, then written
 * to the store as a table file, answered the same wherever they are, and held across a commit, a close and a reopen.
 */
class ExactStateStoreTest {

    private static final long T0 = Instant.parse("2026-01-01T00:00:00Z").toEpochMilli();

    @TempDir
    Path stateDir;

    /** Ids held in memory: a few times the fewest the step takes, and not a power of two. */
    private static final int IN_MEMORY = 5_000;

    private final Dedup<String, String> dedup = Dedup.builder(Serdes.String(), Serdes.String())
            .id(IdSource.key())
            .idsInMemoryPerPartition(IN_MEMORY)
            .build();

    @Test
    void idsWrittenOnceMemoryIsFullAreAnsweredAsIdsStillInMemoryAre() throws IOException {
        int ids = IN_MEMORY + 1_000;
        StateStore store = open();
        SeenIds seen = (SeenIds) store;
        long filesBefore = 0;
        for (int i = 0; i < ids; i++) {
            if (i == IN_MEMORY - 1) {
                filesBefore = tableFiles();
            }
            assertThat(seen.checkThenAdd(id(i), owner(i), T0).verdict()).isEqualTo(Verdict.NEW);
        }
        assertThat(tableFiles())
                .as("the first %d ids, written as a table file", IN_MEMORY)
                .isEqualTo(filesBefore + 1);

        for (int i : new int[] {0, IN_MEMORY - 1, IN_MEMORY, ids - 1}) {
            SeenIds.Seen copy = seen.checkThenAdd(id(i), owner(ids + i), T0 + 1);
            assertThat(copy.verdict()).as("id %d", i).isEqualTo(Verdict.DUPLICATE);
            assertThat(copy.firstOwner()).isEqualTo(owner(i));
            assertThat(seen.checkThenAdd(id(i), owner(i), T0 + 1).verdict()).isEqualTo(Verdict.RETRY);
        }

        store.commit(Map.of()); // what Kafka Streams calls before a checkpoint: the ids in memory go to the store
        store.close();
        StateStore reopened = open();
        for (int i : new int[] {0, IN_MEMORY, ids - 1}) {
            assertThat(((SeenIds) reopened)
                            .checkThenAdd(id(i), owner(ids + i), T0 + 2)
                            .verdict())
                    .as("id %d after a reopen", i)
                    .isEqualTo(Verdict.DUPLICATE);
        }
        assertThat(((SeenIds) reopened)
                        .checkThenAdd(id(ids), owner(ids), T0 + 2)
                        .verdict())
                .isEqualTo(Verdict.NEW);
        reopened.close();
    }

    private StateStore open() {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "exact-state-store-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        MockProcessorContext<String, String> context =
                new MockProcessorContext<>(props, new TaskId(0, 0), stateDir.toFile());
        StateStore store = dedup.storeBuilder().withLoggingDisabled().build();
        store.init(context.getStateStoreContext(), store);
        return store;
    }

    private long tableFiles() throws IOException {
        try (Stream<Path> files = Files.walk(stateDir)) {
            return files.filter(f -> f.toString().endsWith(".sst")).count();
        }
    }

    private static byte[] id(int i) {
        return ("id-" + i).getBytes(StandardCharsets.UTF_8);
    }

    private static long owner(int i) {
        return Owners.of(0, i);
    }
}
