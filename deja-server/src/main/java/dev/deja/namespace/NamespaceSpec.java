package dev.deja.namespace;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A kind and its raw parameters: what a namespace is created from.
 *
 * @param kind       the store kind's name
 * @param parameters raw parameters, validated by the kind when the namespace is created
 */
public record NamespaceSpec(String kind, Map<String, String> parameters) {

    public NamespaceSpec {
        parameters = Map.copyOf(parameters);
    }

    /**
     * Parses {@code name=value} pairs separated by commas, as the command line writes them
     * ({@code bits=8589934592,k=10}); an empty text means no parameters.
     */
    public static NamespaceSpec parse(String kind, String text) {
        Map<String, String> parameters = new LinkedHashMap<>();
        for (String pair : text.split(",", -1)) {
            if (pair.isBlank()) {
                continue;
            }
            int eq = pair.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("parameters must be name=value pairs separated by commas (got '"
                        + pair.strip() + "' in '" + text + "')");
            }
            parameters.put(pair.substring(0, eq).strip(), pair.substring(eq + 1).strip());
        }
        return new NamespaceSpec(kind, parameters);
    }
}
