package dev.deja.resp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.testing.TestServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.RedisClient;

/**
 * A cuckoo namespace keeps its copies and deletes across restarts: from its final snapshot after a clean stop, and
 * from what a crash leaves (a copy of the data directory taken while the server runs: the journal alone, or a snapshot
 * and the journal after it), each journaled copy recovered once.
 */
class CuckooRestartTest {

    @TempDir
    Path tmp;

    @Test
    void copiesAndDeletesSurviveACleanStopAndACrash() throws Exception {
        Path live = tmp.resolve("live");
        Path journalOnly = tmp.resolve("crash-journal-only");
        Path snapshotAndJournal = tmp.resolve("crash-snapshot-and-journal");
        try (TestServer server = TestServer.start(live);
                RedisClient jedis = RedisClient.create("127.0.0.1", server.respPort())) {
            jedis.cfReserve("kept", 1000);
            for (int i = 0; i < 300; i++) {
                jedis.cfAdd("kept", "k" + i);
            }
            jedis.cfAdd("kept", "k7");
            jedis.cfAddNx("kept", "k8");
            jedis.cfDel("kept", "k9");
            copy(live, journalOnly); // replies came after the journal's write: a crash here keeps them
        } // a clean stop writes a final snapshot
        try (TestServer server = TestServer.start(live);
                RedisClient jedis = RedisClient.create("127.0.0.1", server.respPort())) {
            assertKept(jedis, 2, 300);
            jedis.cfAdd("kept", "after");
            jedis.cfAdd("kept", "k7");
            copy(live, snapshotAndJournal);
        }
        try (TestServer server = TestServer.start(journalOnly);
                RedisClient jedis = RedisClient.create("127.0.0.1", server.respPort())) {
            assertKept(jedis, 2, 300);
        }
        try (TestServer server = TestServer.start(snapshotAndJournal);
                RedisClient jedis = RedisClient.create("127.0.0.1", server.respPort())) {
            assertKept(jedis, 3, 302);
            assertThat(jedis.cfExists("kept", "after")).isTrue();
        }
    }

    private static void assertKept(RedisClient jedis, long copiesOfK7, long items) {
        assertThat(jedis.cfCount("kept", "k7")).isEqualTo(copiesOfK7);
        assertThat(jedis.cfCount("kept", "k8")).isEqualTo(1);
        assertThat(jedis.cfExists("kept", "k9")).isFalse();
        assertThat(jedis.cfExists("kept", "k299")).isTrue();
        assertThat(jedis.cfInfo("kept"))
                .containsEntry("Number of items inserted", items)
                .containsEntry("Number of items deleted", 1L);
    }

    /** Copies the data directory's files as they are now, as a killed process would leave them. */
    private static void copy(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            files.forEach(f -> {
                try {
                    Path target = to.resolve(from.relativize(f).toString());
                    if (Files.isDirectory(f)) {
                        Files.createDirectories(target);
                    } else if (!f.getFileName().toString().endsWith(".lock")) {
                        Files.copy(f, target);
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }
}
