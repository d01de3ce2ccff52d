package dev.deja.exact;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Damage to a store's files in place, as a failing disk leaves them, for the tests that check the store reports it
 * instead of answering from what is left.
 */
final class FileDamage {

    private FileDamage() {}

    /** Changes every one of {@code count} bytes of {@code file} from offset {@code at} (each XORed with 0x5A). */
    static void flipBytes(Path file, long at, int count) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.allocate(count);
            ch.read(b, at);
            for (int i = 0; i < b.limit(); i++) {
                b.put(i, (byte) (b.get(i) ^ 0x5A));
            }
            b.rewind();
            ch.write(b, at);
        }
    }
}
