package dev.deja.files;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** Durability of a directory's entries, for every store that renames, creates or deletes files it relies on. */
public final class Directories {

    private Directories() {}

    /**
     * Makes the renames, creations and deletions already made in the directory durable: on Linux a rename is on disk
     * only once its directory is synced, whatever was synced of the file itself.
     */
    public static void force(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }
}
