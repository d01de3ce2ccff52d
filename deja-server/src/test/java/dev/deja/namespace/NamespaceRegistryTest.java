package dev.deja.namespace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.journal.FsyncPolicy;
import dev.deja.testing.FixtureKind;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Namespaces on disk: names, kinds and parameters, journaled content that survives reopening and damage. */
class NamespaceRegistryTest {

    private static final StoreKinds FIXTURE = StoreKinds.of(new FixtureKind("bloom"), new FixtureKind("recent"));
    private static final Durability DURABILITY = new Durability(FsyncPolicy.NO, Duration.ZERO);

    @TempDir
    Path dataDir;

    private NamespaceRegistry open(StoreKinds kinds, boolean autoCreate) throws IOException {
        NamespaceRegistry registry = new NamespaceRegistry(dataDir, kinds,
                NamespaceSpec.parse("bloom", "capacity=1000"), autoCreate, DURABILITY);
        registry.open();
        return registry;
    }

    @Test
    void namesThatCouldLeaveTheDataDirAreRefused() throws IOException {
        try (NamespaceRegistry registry = open(FIXTURE, true)) {
            for (String bad : new String[] {"", "..", "../x", "a/b", ".hidden", "a\\b", "x".repeat(129), "sp ace"}) {
                assertThatThrownBy(() -> registry.create(bad, "bloom", Map.of()))
                        .as(bad).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("namespace name must be");
            }
            assertThat(registry.create("bf:users-2026.v1_a", "bloom", Map.of()).name())
                    .isEqualTo("bf:users-2026.v1_a");
        }
    }

    @Test
    void unknownNamespaceIsAClearErrorWhenAutoCreateIsOff() throws IOException {
        try (NamespaceRegistry registry = open(FIXTURE, false)) {
            assertThatThrownBy(() -> registry.getOrCreate("nope"))
                    .isInstanceOf(NamespaceException.class)
                    .hasMessageContaining("namespace 'nope' does not exist");
            assertThat(registry.find("nope")).isEmpty();
            assertThat(registry.getOrCreate(NamespaceRegistry.DEFAULT).name()).isEqualTo("default");
        }
    }

    @Test
    void realKindsResolveTheirParametersToAShape() throws IOException {
        try (NamespaceRegistry registry = open(StoreKinds.standard(), true)) {
            Namespace a = registry.create("shape-a", "bloom", Map.of("capacity", "10000", "fpp", "0.01"));
            Namespace b = registry.create("shape-b", "bloom", Map.of("bits", a.parameters().get("bits"),
                    "k", a.parameters().get("k"), "capacity", "10000"));
            assertThat(b.parameters()).isEqualTo(a.parameters()).containsKeys("bits", "k", "capacity");
            Namespace recent = registry.create("shape-r", "recent", Map.of("keys", "1000"));
            assertThat(recent.parameters()).containsEntry("ways", "8").containsEntry("owners", "true");
            assertThatThrownBy(() -> registry.create("shape-c", "bloom", Map.of("bits", "1000", "k", "3")))
                    .hasMessageContaining("bits");
            assertThatThrownBy(() -> registry.create("shape-c", "bloom", Map.of("k", "3")))
                    .hasMessageContaining("k needs bits");
        }
    }

    @Test
    void kindParametersAndContentSurviveAReopen() throws IOException {
        try (NamespaceRegistry registry = open(StoreKinds.standard(), true)) {
            registry.create("kept", "recent", Map.of("keys", "1000"));
            registry.get("kept").checkThenAdd(List.of("a".getBytes()), new long[] {7}).join();
        }
        try (NamespaceRegistry reopened = open(StoreKinds.standard(), true)) {
            Namespace kept = reopened.get("kept");
            assertThat(kept.kind().name()).isEqualTo("recent");
            assertThat(kept.store().check("a".getBytes())).isTrue();
            assertThat(kept.checkThenAdd(List.of("a".getBytes()), new long[] {7}).join()[0].name())
                    .as("the owner survived too").isEqualTo("RETRY");
            assertThat(reopened.list()).extracting(Namespace::name).containsExactly("default", "kept");
        }
    }

    @Test
    void aDamagedSnapshotFallsBackToThePreviousOneAndTheJournal() throws IOException {
        try (NamespaceRegistry registry = open(FIXTURE, true)) {
            registry.create("fragile", "bloom", Map.of()).checkThenAdd(List.of("first".getBytes()), null).join();
        }
        try (NamespaceRegistry registry = open(FIXTURE, true)) {
            registry.get("fragile").checkThenAdd(List.of("second".getBytes()), null).join();
        }
        flipByte(newest(dataDir.resolve("fragile"), "snapshot-"), 40);
        try (NamespaceRegistry registry = open(FIXTURE, true)) {
            Namespace reloaded = registry.get("fragile");
            assertThat(reloaded.store().check("first".getBytes())).isTrue();
            assertThat(reloaded.store().check("second".getBytes())).as("replayed from the journal").isTrue();
        }
    }

    @Test
    void clearForgetsEverythingAndDeleteRemovesTheFiles() throws IOException {
        try (NamespaceRegistry registry = open(FIXTURE, true)) {
            registry.create("gone", "bloom", Map.of()).checkThenAdd(List.of("k".getBytes()), null).join();
            registry.clear("gone");
            assertThat(registry.get("gone").store().check("k".getBytes())).isFalse();
            registry.get("gone").checkThenAdd(List.of("after".getBytes()), null).join();
        }
        try (NamespaceRegistry registry = open(FIXTURE, true)) {
            assertThat(registry.get("gone").store().check("k".getBytes())).as("clear is durable").isFalse();
            assertThat(registry.get("gone").store().check("after".getBytes())).isTrue();
            registry.delete("gone");
            assertThat(dataDir.resolve("gone")).doesNotExist();
            assertThatThrownBy(() -> registry.get("gone")).isInstanceOf(NamespaceException.class);
        }
    }

    private static Path newest(Path dir, String prefix) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().startsWith(prefix)
                            && !f.getFileName().toString().endsWith(".tmp"))
                    .max(Comparator.comparing(Path::toString)).orElseThrow();
        }
    }

    private static void flipByte(Path file, long position) throws IOException {
        assertThat(Files.size(file)).isGreaterThan(position);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer one = ByteBuffer.allocate(1);
            channel.read(one, position);
            one.put(0, (byte) (one.get(0) ^ 0x5A)).rewind();
            channel.write(one, position);
        }
    }
}
