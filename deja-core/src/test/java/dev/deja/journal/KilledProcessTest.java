package dev.deja.journal;

import static dev.deja.journal.JournaledSeenSetTest.key;
import static dev.deja.journal.JournaledSeenSetTest.keys;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Kills a writing process with SIGKILL and checks that every acknowledged change survives. */
@Timeout(120)
class KilledProcessTest {

    @TempDir
    Path tmp;

    @ParameterizedTest
    @EnumSource(
            value = FsyncPolicy.class,
            names = {"ALWAYS", "EVERYSEC"})
    void nothingAcknowledgedIsLostWhenTheProcessIsKilled(FsyncPolicy policy) throws Exception {
        Path dir = tmp.resolve("store");
        Process child = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Xmx256m",
                        "-cp",
                        System.getProperty("java.class.path"),
                        KilledWriter.class.getName(),
                        dir.toString(),
                        policy.name())
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        Set<Integer> added = new HashSet<>();
        Set<Integer> forgotten = new HashSet<>();
        try (BufferedReader lines =
                new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.US_ASCII))) {
            String line;
            boolean killed = false;
            while ((line = lines.readLine()) != null) {
                if (line.length() < 2) {
                    continue; // cut by the kill
                }
                (line.charAt(0) == '+' ? added : forgotten).add(Integer.parseInt(line.substring(1)));
                // kill once the store has a snapshot and journal records after it
                if (!killed && added.size() >= 1000 && !Snapshots.list(dir).isEmpty()) {
                    // SIGKILL: no shutdown hook, no final snapshot; the handle leaves the pipe open to read the rest
                    child.toHandle().destroyForcibly();
                    killed = true;
                }
            }
            assertThat(killed).as("the child ran until killed").isTrue();
        } finally {
            child.destroyForcibly().waitFor();
        }
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString())).anyMatch(n -> n.startsWith("journal-"));
        }

        try (JournaledSeenSet<MapSeenSet> recovered =
                JournaledSeenSetTest.builder(dir).open()) {
            assertThat(recovered.recovery().snapshot()).isPresent();
            for (int i : added) {
                int first = i * KilledWriter.BATCH;
                boolean forgot = forgotten.contains(i);
                if (i % 3 == 0) {
                    assertThat(recovered.checkAll(keys(first + 1, first + KilledWriter.BATCH)))
                            .containsOnly(true);
                }
                if (!forgot && i % 7 != 1) {
                    assertThat(recovered.check(key(first)))
                            .as("acknowledged add %d", i)
                            .isTrue();
                }
            }
            for (int i : forgotten) {
                assertThat(recovered.check(key(i * KilledWriter.BATCH)))
                        .as("acknowledged forget %d", i)
                        .isFalse();
            }
        }
    }
}
