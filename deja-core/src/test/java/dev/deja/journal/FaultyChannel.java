package dev.deja.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;

/** Test fixture: a segment file channel whose writes can be made to fail (disk full) or to wait (slow disk). */
final class FaultyChannel extends FileChannel {

    /** Shared switches for every channel a journal opens. */
    static final class Disk implements ChannelOpener {
        volatile boolean full;
        /** When set, truncating a file fails too (a failing disk, not merely a full one). */
        volatile boolean truncateFails;
        /** How many times a channel of this disk was forced (fsync). */
        final AtomicInteger forces = new AtomicInteger();
        /** How many positional writes channels of this disk took. */
        final AtomicInteger writes = new AtomicInteger();
        /** When set, each write waits for a permit. */
        private volatile Semaphore gate;

        /** Makes every later write wait until {@link #resume()}. */
        void stall() {
            gate = new Semaphore(0);
        }

        /** Lets stalled and later writes through; safe to call when not stalled. */
        void resume() {
            Semaphore stalled = gate;
            gate = null;
            if (stalled != null) {
                stalled.release(Integer.MAX_VALUE / 2);
            }
        }

        @Override
        public FileChannel open(Path file) throws IOException {
            return new FaultyChannel(ChannelOpener.FILES.open(file), this);
        }
    }

    private final FileChannel file;
    private final Disk disk;

    private FaultyChannel(FileChannel file, Disk disk) {
        this.file = file;
        this.disk = disk;
    }

    private void beforeWrite() throws IOException {
        Semaphore gate = disk.gate;
        if (gate != null) {
            gate.acquireUninterruptibly();
        }
        if (disk.full) {
            throw new IOException("No space left on device");
        }
    }

    @Override
    public int write(ByteBuffer src, long position) throws IOException {
        if (disk.full && src.remaining() > 1) {
            // a full disk often takes part of a write before refusing the rest
            ByteBuffer half = src.duplicate();
            half.limit(src.position() + src.remaining() / 2);
            file.write(half, position);
        }
        beforeWrite();
        disk.writes.incrementAndGet();
        return file.write(src, position);
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        beforeWrite();
        return file.write(src);
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        beforeWrite();
        return file.write(srcs, offset, length);
    }

    @Override
    public void force(boolean metaData) throws IOException {
        if (disk.full) {
            throw new IOException("No space left on device");
        }
        file.force(metaData);
        disk.forces.incrementAndGet();
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        return file.read(dst);
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
        return file.read(dsts, offset, length);
    }

    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
        return file.read(dst, position);
    }

    @Override
    public long position() throws IOException {
        return file.position();
    }

    @Override
    public FileChannel position(long newPosition) throws IOException {
        file.position(newPosition);
        return this;
    }

    @Override
    public long size() throws IOException {
        return file.size();
    }

    @Override
    public FileChannel truncate(long size) throws IOException {
        if (disk.truncateFails) {
            throw new IOException("Input/output error");
        }
        file.truncate(size);
        return this;
    }

    @Override
    public long transferTo(long position, long count, WritableByteChannel target) throws IOException {
        return file.transferTo(position, count, target);
    }

    @Override
    public long transferFrom(ReadableByteChannel src, long position, long count) throws IOException {
        beforeWrite();
        return file.transferFrom(src, position, count);
    }

    @Override
    public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
        throw new UnsupportedOperationException("the journal does not map segments");
    }

    @Override
    public FileLock lock(long position, long size, boolean shared) throws IOException {
        return file.lock(position, size, shared);
    }

    @Override
    public FileLock tryLock(long position, long size, boolean shared) throws IOException {
        return file.tryLock(position, size, shared);
    }

    @Override
    protected void implCloseChannel() throws IOException {
        file.close();
    }
}
