package dev.deja.namespace;

import java.nio.file.Path;

/**
 * A namespace found in the data dir that could not be opened when the server started, so it is not served.
 *
 * @param name   the namespace's name
 * @param dir    its directory
 * @param reason why its open failed, naming the file
 */
public record DamagedNamespace(String name, Path dir, String reason) {}
