package dev.deja.journal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** Opens a journal segment file for writing; tests substitute slow or failing channels. */
@FunctionalInterface
interface ChannelOpener {

    /** Opens the file's channel, created or emptied, for writing. */
    FileChannel open(Path file) throws IOException;

    /** The file system's own channels. */
    ChannelOpener FILES = file -> FileChannel.open(
            file, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE);
}
