package dev.deja.namespace;

import dev.deja.seen.Guarantee;
import dev.deja.seen.HashedSeenSet;
import dev.deja.seen.SeenStats;
import dev.deja.seen.Verdict;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PushbackInputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.atomic.LongAdder;
import java.util.zip.CRC32C;

/**
 * A bloom namespace's filter with the count of adds that answered "new" (RedisBloom's {@code BF.CARD} and
 * {@code BF.INFO}'s "Number of items inserted"), beside the fill-based estimate that {@link #stats()} keeps reporting.
 * The count is saved before the filter in each snapshot and dump, in a 16-byte header: magic {@code DJBC}, the count
 * (u64, little-endian) and a CRC32C of those 12 bytes. A snapshot without that header (written before it existed) is
 * read with the fill-based estimate as its count.
 *
 * <p>Snapshots are written while adds go on and journal records after the snapshot's position are replayed on top of
 * it, so after a crash the count may be off by the adds made while that snapshot was being written; a snapshot
 * written with no add running (at a clean shutdown) carries it exactly.
 */
final class CountedAdds implements HashedSeenSet {

    private static final byte[] MAGIC = "DJBC".getBytes(StandardCharsets.US_ASCII);
    private static final int HEADER_BYTES = 16;

    private final HashedSeenSet filter;
    private final LongAdder added = new LongAdder();

    CountedAdds(HashedSeenSet filter, long added) {
        this.filter = filter;
        this.added.add(added);
    }

    /** The filter counted. */
    HashedSeenSet filter() {
        return filter;
    }

    /** Adds that answered "new". */
    long added() {
        return added.sum();
    }

    @Override
    public boolean checkHash(long high, long low) {
        return filter.checkHash(high, low);
    }

    @Override
    public void addHash(long high, long low, long owner) {
        checkThenAddHash(high, low, owner);
    }

    @Override
    public Verdict checkThenAddHash(long high, long low, long owner) {
        Verdict verdict = filter.checkThenAddHash(high, low, owner);
        if (verdict == Verdict.NEW) {
            added.increment();
        }
        return verdict;
    }

    @Override
    public void checkThenAddHashes(long[] hashes, long[] owners, Verdict[] out) {
        filter.checkThenAddHashes(hashes, owners, out);
        for (Verdict verdict : out) {
            if (verdict == Verdict.NEW) {
                added.increment();
            }
        }
    }

    @Override
    public boolean forgetHash(long high, long low, long owner) {
        return filter.forgetHash(high, low, owner);
    }

    /** Closes the filter, which gives back the memory a scaling filter took as it grew. */
    @Override
    public void close() {
        filter.close();
    }

    @Override
    public Guarantee guarantee() {
        return filter.guarantee();
    }

    @Override
    public SeenStats stats() {
        return filter.stats();
    }

    /** Writes the count's header; the filter's own format follows it. */
    void writeHeader(OutputStream out) throws IOException {
        ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        header.put(MAGIC).putLong(added());
        CRC32C crc = new CRC32C();
        crc.update(header.array(), 0, 12);
        header.putInt((int) crc.getValue());
        out.write(header.array());
    }

    /** A reader of a snapshot or dump that may start with the count's header. */
    interface FilterReader {
        HashedSeenSet read(InputStream in) throws IOException;
    }

    /**
     * Reads the count's header when the stream starts with it, then the filter; without it, the count is the
     * filter's fill-based estimate.
     *
     * @throws IOException when the header is damaged
     */
    static CountedAdds read(InputStream in, FilterReader filter) throws IOException {
        PushbackInputStream stream = new PushbackInputStream(in, MAGIC.length);
        byte[] start = stream.readNBytes(MAGIC.length);
        stream.unread(start);
        if (!Arrays.equals(start, MAGIC)) {
            HashedSeenSet read = filter.read(stream);
            return new CountedAdds(read, read.stats().insertions());
        }
        byte[] header = new byte[HEADER_BYTES];
        new DataInputStream(stream).readFully(header);
        ByteBuffer h = ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN);
        CRC32C crc = new CRC32C();
        crc.update(header, 0, 12);
        long count = h.getLong(4);
        if (h.getInt(12) != (int) crc.getValue() || count < 0) {
            throw new IOException("damaged count header before the bloom filter (checksum or negative count)");
        }
        return new CountedAdds(filter.read(stream), count);
    }
}
