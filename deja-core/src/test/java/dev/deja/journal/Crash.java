package dev.deja.journal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.stream.Stream;

/** Test fixture: what a crash leaves on disk, taken as a copy of a live store's directory. */
final class Crash {

    private Crash() {}

    /**
     * Copies every file of {@code dir} into {@code into} as it is now. Written data is in the page cache, so this
     * is what a killed process leaves behind; files vanishing mid-copy (a pruned segment) are skipped as a crash
     * would have found them gone.
     */
    static Path copy(Path dir, Path into) {
        try {
            Files.createDirectories(into);
            try (Stream<Path> files = Files.list(dir)) {
                files.forEach(f -> {
                    try {
                        Files.copy(f, into.resolve(f.getFileName()));
                    } catch (NoSuchFileException gone) {
                        // deleted while copying
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                });
            }
            return into;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
