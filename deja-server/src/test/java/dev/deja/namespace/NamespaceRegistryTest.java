package dev.deja.namespace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.testing.TestServer;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Namespaces on disk: names, persistence of kind and parameters, and snapshots that survive damage. */
class NamespaceRegistryTest {

    @TempDir
    Path dataDir;

    private NamespaceRegistry open(boolean autoCreate) throws IOException {
        NamespaceRegistry registry = new NamespaceRegistry(dataDir, TestServer.KINDS,
                NamespaceSpec.parse("bloom", "capacity=1000"), autoCreate);
        registry.open();
        return registry;
    }

    @Test
    void namesThatCouldLeaveTheDataDirAreRefused() throws IOException {
        NamespaceRegistry registry = open(true);
        for (String bad : new String[] {"", "..", "../x", "a/b", ".hidden", "a\\b", "x".repeat(129), "sp ace"}) {
            assertThatThrownBy(() -> registry.create(bad, "bloom", Map.of()))
                    .as(bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("namespace name must be");
        }
        assertThat(registry.create("bf:users-2026.v1_a", "bloom", Map.of()).name()).isEqualTo("bf:users-2026.v1_a");
    }

    @Test
    void unknownNamespaceIsAClearErrorWhenAutoCreateIsOff() throws IOException {
        NamespaceRegistry registry = open(false);
        assertThatThrownBy(() -> registry.getOrCreate("nope"))
                .isInstanceOf(NamespaceException.class)
                .hasMessageContaining("namespace 'nope' does not exist");
        assertThat(registry.find("nope")).isEmpty();
        assertThat(registry.getOrCreate(NamespaceRegistry.DEFAULT).name()).isEqualTo("default");
    }

    @Test
    void kindParametersAndContentSurviveAReopen() throws IOException {
        NamespaceRegistry registry = open(true);
        registry.create("kept", "recent", Map.of("capacity", "77"));
        registry.get("kept").store().add("a".getBytes());
        registry.close();

        NamespaceRegistry reopened = open(true);
        Namespace kept = reopened.get("kept");
        assertThat(kept.kind().name()).isEqualTo("recent");
        assertThat(kept.parameters()).containsEntry("capacity", "77");
        assertThat(kept.store().check("a".getBytes())).isTrue();
        assertThat(reopened.list()).extracting(Namespace::name).containsExactly("default", "kept");
    }

    @Test
    void aDamagedSnapshotFallsBackToThePreviousOne() throws IOException {
        NamespaceRegistry registry = open(true);
        Namespace ns = registry.create("fragile", "bloom", Map.of());
        ns.store().add("first".getBytes());
        registry.snapshot("fragile");
        ns.store().add("second".getBytes());
        registry.snapshot("fragile");
        Path current = dataDir.resolve("fragile").resolve(SnapshotFiles.CURRENT);
        flipByte(current, 12);

        Namespace reloaded = open(true).get("fragile");
        assertThat(reloaded.store().check("first".getBytes())).isTrue();
        assertThat(reloaded.store().check("second".getBytes())).as("only in the damaged snapshot").isFalse();

        flipByte(dataDir.resolve("fragile").resolve(SnapshotFiles.PREVIOUS), 12);
        Namespace empty = open(true).get("fragile");
        assertThat(empty.store().check("first".getBytes())).as("no usable snapshot: starts empty").isFalse();
    }

    @Test
    void deleteRemovesTheFiles() throws IOException {
        NamespaceRegistry registry = open(true);
        registry.create("gone", "bloom", Map.of());
        registry.snapshot("gone");
        registry.delete("gone");
        assertThat(dataDir.resolve("gone")).doesNotExist();
        assertThatThrownBy(() -> registry.get("gone")).isInstanceOf(NamespaceException.class);
    }

    private static void flipByte(Path file, long position) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer one = ByteBuffer.allocate(1);
            channel.read(one, position);
            one.put(0, (byte) (one.get(0) ^ 0x5A)).rewind();
            channel.write(one, position);
        }
        assertThat(Files.size(file)).isGreaterThan(position);
    }
}
