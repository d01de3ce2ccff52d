package dev.deja.kafka.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.kafka.testing.SharedBroker;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two workers with one application id against a real broker, exactly-once: they share the input's partitions, and
 * with a standby replica one takes the other's partitions over with their de-dup state.
 */
class WorkerGroupTest {

    private static final int PARTITIONS = 4;

    @TempDir
    Path dataDir;

    @Test
    void twoWorkersShareThePartitionsAndEmitEveryUniqueIdOnce() throws Exception {
        SharedBroker.createTopics(PARTITIONS, "g-in", "g-out");
        try (Worker first = Worker.start(settings("g-in", "g-out", "group-test", "first", 0));
                Worker second = Worker.start(settings("g-in", "g-out", "group-test", "second", 0))) {
            Workers.await(
                    "both workers running a share of the partitions",
                    () -> Workers.activeTasks(first) > 0
                            && Workers.activeTasks(second) > 0
                            && Workers.activeTasks(first) + Workers.activeTasks(second) == PARTITIONS);
            List<String> ids = Workers.ids("g", 400);
            List<String> input = new ArrayList<>(ids);
            input.addAll(ids.subList(0, 100)); // a copy of each of the first hundred, after them
            Workers.send("g-in", input);

            assertThat(Workers.readCommittedKeys("g-out", ids.size())).containsExactlyInAnyOrderElementsOf(ids);
        }
    }

    @Test
    void aStandbyTakesOverAClosedWorkersPartitionsWithTheirState() throws Exception {
        SharedBroker.createTopics(PARTITIONS, "s-in", "s-out");
        List<String> before = Workers.ids("before-", 300);
        List<String> after = Workers.ids("after-", 100);
        try (Worker staying = Worker.start(settings("s-in", "s-out", "standby-test", "staying", 1))) {
            Worker leaving = Worker.start(settings("s-in", "s-out", "standby-test", "leaving", 1));
            try {
                Workers.await(
                        "both workers running a share of the partitions, each a standby of the other's",
                        () -> Workers.activeTasks(leaving) > 0
                                && Workers.activeTasks(staying) > 0
                                && Workers.standbyTasks(leaving) > 0
                                && Workers.standbyTasks(staying) > 0);
                Workers.send("s-in", before);
                assertThat(Workers.readCommittedKeys("s-out", before.size())).hasSameSizeAs(before);
            } finally {
                leaving.close();
            }
            Workers.await(
                    "the staying worker running every partition", () -> Workers.activeTasks(staying) == PARTITIONS);
            List<String> input = new ArrayList<>(before); // a copy of every id seen before the takeover
            input.addAll(after);
            Workers.send("s-in", input);

            List<String> expected = new ArrayList<>(before);
            expected.addAll(after);
            assertThat(Workers.readCommittedKeys("s-out", expected.size()))
                    .containsExactlyInAnyOrderElementsOf(expected);
        }
    }

    private WorkerSettings settings(String in, String out, String app, String name, int standbys) {
        return Workers.settings(in, out, app, Guarantee.EXACTLY_ONCE, dataDir.resolve(name), standbys);
    }
}
