package dev.deja.server;

import dev.deja.namespace.StoreKinds;

/** The store kinds {@code deja serve} offers. */
public final class StandardKinds {

    private StandardKinds() {
    }

    /** Every kind the server offers. */
    public static StoreKinds all() {
        return StoreKinds.of();
    }
}
