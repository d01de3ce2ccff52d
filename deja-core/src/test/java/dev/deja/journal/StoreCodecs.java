package dev.deja.journal;

import dev.deja.bloom.BloomFilter;
import dev.deja.recent.RecentFilter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/** The snapshot codecs of the real stores, through their own streamed formats, for tests that journal them. */
public final class StoreCodecs {

    public static final SnapshotCodec<BloomFilter> BLOOM = new SnapshotCodec<>() {
        @Override
        public void write(BloomFilter store, OutputStream out) throws IOException {
            store.writeTo(out);
        }

        @Override
        public BloomFilter read(InputStream in) throws IOException {
            return BloomFilter.readFrom(in);
        }
    };

    public static final SnapshotCodec<RecentFilter> RECENT = new SnapshotCodec<>() {
        @Override
        public void write(RecentFilter store, OutputStream out) throws IOException {
            store.writeTo(out);
        }

        @Override
        public RecentFilter read(InputStream in) throws IOException {
            return RecentFilter.readFrom(in);
        }
    };

    private StoreCodecs() {}
}
