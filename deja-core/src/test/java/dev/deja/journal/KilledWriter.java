package dev.deja.journal;

import static dev.deja.journal.JournaledSeenSetTest.key;
import static dev.deja.journal.JournaledSeenSetTest.keys;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Test fixture run as a child process: writes to a journaled store from four threads until it is killed, printing
 * {@code +i} once key {@code i} (or the batch starting at it) is acknowledged and {@code -i} once its forget is.
 */
final class KilledWriter {

    static final int BATCH = 5;

    private KilledWriter() {}

    public static void main(String[] args) throws Exception {
        JournaledSeenSet<MapSeenSet> set = JournaledSeenSet.builder(Path.of(args[0]), MapSeenSet.CODEC, MapSeenSet::new)
                .fsync(FsyncPolicy.parse(args[1]))
                .snapshotInterval(Duration.ofMillis(200))
                .segmentBytes(64 * 1024)
                .open();
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), false);
        for (int t = 0; t < 4; t++) {
            int thread = t;
            Thread.ofPlatform().start(() -> {
                for (int i = thread; ; i += 4) {
                    int first = i * BATCH;
                    if (i % 3 == 0) {
                        set.checkThenAddAll(keys(first, first + BATCH), null);
                    } else {
                        set.add(key(first));
                    }
                    print(out, "+" + i);
                    if (i % 7 == 1) {
                        set.forget(key(first));
                        print(out, "-" + i);
                    }
                }
            });
        }
    }

    private static void print(PrintStream out, String line) {
        synchronized (out) {
            out.println(line);
            out.flush();
        }
    }
}
