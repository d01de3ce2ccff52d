package dev.deja.namespace;

import java.nio.file.Path;

/**
 * A namespace found in the data dir that could not be opened when the server started, so it is not served.
 *
 * @param name       the namespace's name
 * @param dir        its directory
 * @param reason     why its open failed, naming the file
 * @param resettable whether its metadata can be read, so that a reset can open it again; one whose metadata cannot
 *                   be read can only be deleted
 */
public record DamagedNamespace(String name, Path dir, String reason, boolean resettable) {}
