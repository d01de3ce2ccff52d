package dev.deja.namespace;

import java.nio.file.Path;
import java.util.Objects;

/** Builds a {@link NamespaceRegistry}; every setter names the setting it sets. */
public final class NamespaceRegistryBuilder {
    final Path dataDir;
    StoreKinds kinds = StoreKinds.standard();
    NamespaceSpec defaultSpec;
    boolean autoCreate = true;
    Durability durability;
    NamespaceLimits limits = NamespaceLimits.defaults();

    NamespaceRegistryBuilder(Path dataDir) {
        this.dataDir = Objects.requireNonNull(dataDir, "dataDir");
    }

    /** The kinds namespaces may be of; {@link StoreKinds#standard()} by default. */
    public NamespaceRegistryBuilder kinds(StoreKinds kinds) {
        this.kinds = Objects.requireNonNull(kinds, "kinds");
        return this;
    }

    /** What the {@code default} namespace, and namespaces created on first use, are made of. */
    public NamespaceRegistryBuilder defaultSpec(NamespaceSpec defaultSpec) {
        this.defaultSpec = defaultSpec;
        return this;
    }

    /** Whether a namespace is created on first use rather than refused as unknown; true by default. */
    public NamespaceRegistryBuilder autoCreate(boolean autoCreate) {
        this.autoCreate = autoCreate;
        return this;
    }

    /** The journal's fsync policy and the snapshot interval of every namespace. */
    public NamespaceRegistryBuilder durability(Durability durability) {
        this.durability = durability;
        return this;
    }

    /** The memory and the number of namespaces the registry may hold; {@link NamespaceLimits#defaults()}. */
    public NamespaceRegistryBuilder limits(NamespaceLimits limits) {
        this.limits = Objects.requireNonNull(limits, "limits");
        return this;
    }

    /** The registry, not opened yet. */
    public NamespaceRegistry build() {
        return new NamespaceRegistry(this);
    }
}
