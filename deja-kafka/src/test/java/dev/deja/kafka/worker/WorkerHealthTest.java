package dev.deja.kafka.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.kafka.testing.SharedBroker;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code /health} against a real broker: 200 while the application runs, 503 once its stream thread has died. */
class WorkerHealthTest {

    @TempDir
    Path dataDir;

    @Test
    void healthIs200WhileRunningAnd503OnceTheApplicationHasFailed() throws Exception {
        SharedBroker.createTopics(1, "h-in", "h-out");
        Workers.send("h-in", List.of("a", "b", "a"));
        try (Worker worker =
                Worker.start(Workers.settings("h-in", "h-out", "health-test", Guarantee.EXACTLY_ONCE, dataDir, 0))) {
            assertThat(Workers.readCommittedKeys("h-out", 2)).containsExactlyInAnyOrder("a", "b");
            HttpResponse<String> running = Workers.get(worker, "/health");
            assertThat(running.statusCode()).isEqualTo(200);
            assertThat(running.body()).contains("RUNNING");

            // The input topic goes away under the worker (its offsets committed with the output above): its stream
            // thread fails, and the application with it.
            try (Admin admin =
                    Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, SharedBroker.bootstrapServers()))) {
                admin.deleteTopics(Set.of("h-in")).all().get();
            }
            assertThat(worker.awaitEnd()).isTrue();
            HttpResponse<String> failed = Workers.get(worker, "/health");
            assertThat(failed.statusCode()).isEqualTo(503);
            assertThat(failed.body()).contains("ERROR");
        }
    }
}
