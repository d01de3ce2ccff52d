package dev.deja.namespace;

import dev.deja.bloom.ScalingBloomFilter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The store kinds a server offers, by name. */
public final class StoreKinds {

    private final Map<String, StoreKind> byName = new LinkedHashMap<>();

    private StoreKinds(List<StoreKind> kinds) {
        for (StoreKind kind : kinds) {
            if (byName.putIfAbsent(kind.name(), kind) != null) {
                throw new IllegalArgumentException("store kind '" + kind.name() + "' is given twice");
            }
        }
    }

    /** The kinds {@code deja serve} offers: {@code bloom}, {@code recent}, {@code exact} and {@code cuckoo}. */
    public static StoreKinds standard() {
        return of(new BloomKind(), new RecentKind(), new ExactKind(), new CuckooKind());
    }

    /** The same kinds, with bloom filters that scale taking their sub-filters' memory through {@code gate}. */
    StoreKinds growingWithin(ScalingBloomFilter.MemoryGate gate) {
        return new StoreKinds(byName.values().stream()
                .map(k -> k instanceof BloomKind bloom ? bloom.growingWithin(gate) : k)
                .toList());
    }

    /** The given kinds; their names must differ. */
    public static StoreKinds of(StoreKind... kinds) {
        return new StoreKinds(List.of(kinds));
    }

    /** The kind with this name, or an exception listing the known ones. */
    public StoreKind get(String name) {
        StoreKind kind = byName.get(name);
        if (kind == null) {
            throw new IllegalArgumentException("kind must be one of " + byName.keySet() + " (got '" + name + "')");
        }
        return kind;
    }

    /** The names of the kinds offered, in registration order. */
    public List<String> names() {
        return List.copyOf(byName.keySet());
    }
}
