package dev.deja.journal;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * A store's codec whose writes can be abandoned: every write to the snapshot's stream first runs a check, which
 * throws to stop the snapshot. A store whose content is about to be thrown away (a clear) would otherwise wait for a
 * snapshot in progress, as long as writing the whole store, of content nobody keeps.
 *
 * @param <S> the store type
 */
final class AbandonableCodec<S> implements SnapshotCodec<S> {

    private final SnapshotCodec<S> codec;
    private final Runnable abandonIfAsked;

    /**
     * @param abandonIfAsked throws (an unchecked exception) when the snapshot being written is to be abandoned
     */
    AbandonableCodec(SnapshotCodec<S> codec, Runnable abandonIfAsked) {
        this.codec = codec;
        this.abandonIfAsked = abandonIfAsked;
    }

    @Override
    public void write(S content, OutputStream out) throws IOException {
        codec.write(content, new FilterOutputStream(out) {
            @Override
            public void write(byte[] bytes, int offset, int length) throws IOException {
                abandonIfAsked.run();
                out.write(bytes, offset, length);
            }

            @Override
            public void write(int b) throws IOException {
                abandonIfAsked.run();
                out.write(b);
            }
        });
    }

    @Override
    public S capture(S store) {
        return codec.capture(store);
    }

    @Override
    public S read(InputStream in) throws IOException {
        return codec.read(in);
    }
}
