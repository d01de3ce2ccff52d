package dev.deja.bloom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.deja.hash.Hash128;
import dev.deja.seen.Guarantee;
import dev.deja.seen.Verdict;
import dev.deja.sizing.BloomLayout;
import dev.deja.sizing.BloomSizing;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class BloomFilterTest {

    @Test
    void neverFalseNewAndMeasuredFppWithinBoundOnAMillionKeys() {
        BloomFilter filter = BloomFilter.builder().capacity(1_000_000).fpp(0.01).build();
        byte[][] added = Keys.random(1, 1_000_000);
        int fresh = 0;
        for (byte[] key : added) {
            if (filter.checkThenAdd(key) == Verdict.NEW) {
                fresh++;
            }
        }
        for (byte[] key : added) {
            assertThat(filter.check(key)).isTrue();
            assertThat(filter.checkThenAdd(key)).isEqualTo(Verdict.DUPLICATE);
        }
        double measured = falsePositiveRate(filter, Keys.random(2, 1_000_000));
        // The filter is sized so the blocked formula gives <= 1%; the measured rate over 10^6 fresh keys has a
        // standard deviation of 1e-4, so 10% above target is 10 sigma, and the formula is accurate to within 20%.
        assertThat(filter.targetFpp()).isLessThanOrEqualTo(0.01);
        assertThat(measured).isLessThanOrEqualTo(filter.targetFpp() * 1.1).isGreaterThan(filter.targetFpp() * 0.8);
        // A checkThenAdd answers DUPLICATE for a new key only on a false positive against the keys before it.
        assertThat(1_000_000 - fresh).isLessThan((int) (1_000_000 * filter.targetFpp()));
        assertThat(filter.approximateCount()).isCloseTo(1_000_000L, within(20_000L));
        assertThat(filter.errorEstimate().currentFpp()).isCloseTo(measured, within(measured * 0.15));
        assertThat(filter.errorEstimate().targetFpp()).isEqualTo(filter.targetFpp());
    }

    @Test
    void moreThanSevenHashesUseTheMixedWordsAndKeepTheBound() {
        // The ratio of the Snawoot/bloom server's default filter (8 GiB bits / 5e8 keys, k = 10) scaled down to 10^6
        // keys: exercises the positions 8..10 that come from mix(low + GOLDEN).
        long bits = (8L << 30) / 500 / 512 * 512;
        BloomFilter filter =
                BloomFilter.builder().bits(bits).hashes(10).capacity(1_000_000).build();
        byte[][] added = Keys.random(3, 1_000_000);
        for (byte[] key : added) {
            filter.add(key);
        }
        for (byte[] key : added) {
            assertThat(filter.check(key)).isTrue();
        }
        double measured = falsePositiveRate(filter, Keys.random(4, 1_000_000));
        assertThat(filter.targetFpp()).isLessThan(0.001);
        // About 900 false positives expected: 30% slack is more than 9 standard deviations.
        assertThat(measured).isLessThanOrEqualTo(filter.targetFpp() * 1.3).isGreaterThan(filter.targetFpp() * 0.7);
    }

    @Test
    void ownersAreIgnoredAndRetryIsNeverAnswered() {
        BloomFilter filter = BloomFilter.builder().capacity(1000).fpp(0.01).build();
        assertThat(filter.checkThenAdd("k".getBytes(StandardCharsets.UTF_8), 7)).isEqualTo(Verdict.NEW);
        assertThat(filter.checkThenAdd("k".getBytes(StandardCharsets.UTF_8), 7)).isEqualTo(Verdict.DUPLICATE);
        assertThat(filter.guarantee()).isEqualTo(Guarantee.NEVER_FALSE_NEW);
    }

    @Test
    void aFilterWithEveryBitSetReportsAFiniteCountOfAtLeastItsCapacity() {
        BloomFilter filter = BloomFilter.builder().capacity(1000).fpp(0.01).build();
        for (int i = 0; filter.fillRatio() < 1.0; i++) {
            filter.add("key-" + i);
        }
        // the count is estimated from the fill, unbounded when every bit is set: a full filter reports a lower bound
        assertThat(filter.approximateCount()).isBetween(1000L, 1_000_000L);
        assertThat(filter.stats().insertions()).isEqualTo(filter.approximateCount());
    }

    @Test
    void forgetIsRefusedWithAReason() {
        BloomFilter filter = BloomFilter.builder().capacity(1000).fpp(0.01).build();
        filter.add("k");
        assertThatThrownBy(() -> filter.forget("k".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("cannot forget")
                .hasMessageContaining("wrongly answer \"new\"");
        assertThat(filter.check("k")).isTrue();
    }

    @Test
    void builderRejectsIncompleteOrConflictingSettings() {
        assertThatThrownBy(() -> BloomFilter.builder().capacity(0)).hasMessageContaining("capacity must be > 0");
        assertThatThrownBy(() -> BloomFilter.builder().fpp(0))
                .hasMessageContaining("fpp must be in the open interval (0, 1)");
        assertThatThrownBy(() -> BloomFilter.builder().bits(1000)).hasMessageContaining("multiple of 512");
        assertThatThrownBy(() -> BloomFilter.builder().hashes(33))
                .hasMessageContaining("hashes (k) must be in [1, 32]");
        assertThatThrownBy(() -> BloomFilter.builder().capacity(10).build()).hasMessageContaining("give either");
        assertThatThrownBy(
                        () -> BloomFilter.builder().bits(512).hashes(3).fpp(0.1).build())
                .hasMessageContaining("fpp follows from bits");
        assertThatThrownBy(() -> BloomFilter.builder().bits(512).build())
                .hasMessageContaining("needs hashes or capacity");
    }

    @Test
    void builderShapes() {
        BloomFilter bySize =
                BloomFilter.builder().bits(1 << 20).capacity(100_000).build();
        assertThat(bySize.bits()).isEqualTo(1 << 20);
        assertThat(bySize.hashes())
                .isEqualTo(BloomSizing.forMemory(1 << 17, 100_000).hashes());
        BloomFilter explicit = BloomFilter.builder().bits(1 << 20).hashes(7).build();
        // Without a capacity, capacity is the load at which half the bits are expected to be set. With k = 7 one of
        // the eight words of a block stays empty, and each key puts one bit in each other word: half the bits are
        // set when 7/8 * e^(-lambda / 64) + 1/8 = 1/2, lambda = 64 ln(7/3) keys per block.
        assertThat(explicit.capacity()).isCloseTo(Math.round(64 * Math.log(7.0 / 3) * 2048), within(1L));
        assertThat(explicit.targetFpp()).isEqualTo(BloomSizing.fpp(1 << 20, 7, explicit.capacity()));
    }

    @Test
    void theSnawootServersDefaultIsCreatableWithoutTouchingAGibibyte() {
        BloomFilter filter = BloomFilter.builder()
                .bits(8L << 30)
                .hashes(10)
                .capacity(500_000_000L)
                .build();
        assertThat(filter.sizeInBytes()).isEqualTo(1L << 30);
        assertThat(filter.targetFpp()).isLessThan(0.001);
        assertThat(filter.allocatedBytes()).as("only the chunks' last slots").isLessThan(filter.sizeInBytes() / 1024);
        byte[][] keys = Keys.random(5, 100);
        for (byte[] key : keys) {
            assertThat(filter.checkThenAdd(key)).isEqualTo(Verdict.NEW);
        }
        for (byte[] key : keys) {
            assertThat(filter.check(key)).isTrue();
        }
        assertThat(filter.allocatedBytes())
                .isLessThanOrEqualTo(filter.sizeInBytes() / 1024 + 100L * ChunkedBits.CHUNK_BYTES);
        // Sized from (capacity, fpp) instead, the blocked formula asks for a bit more than the classic 14.4 bits/key.
        BloomFilter sized =
                BloomFilter.builder().capacity(500_000_000L).fpp(0.001).build();
        assertThat(sized.bits() / 500_000_000.0).isBetween(14.4, 17.2);
        assertThat(sized.allocatedBytes()).isLessThan(sized.sizeInBytes() / 1024);
    }

    @Test
    void filtersAboveTwoToTheThirtyTwoBitsWorkInTheirTopBlocks() {
        long bits = 1L << 34;
        BloomFilter filter = BloomFilter.builder().bits(bits).hashes(7).build();
        long blocks = bits / 512;
        byte[][] candidates = Keys.random(6, 300_000);
        byte[][] top = Arrays.stream(candidates)
                .filter(k -> BlockHash.block(Hash128.of(k).high(), blocks) >= blocks * 99 / 100)
                .toArray(byte[][]::new);
        assertThat(top.length).isGreaterThan(2000);
        for (byte[] key : top) {
            assertThat(filter.checkThenAdd(key)).isEqualTo(Verdict.NEW);
        }
        for (byte[] key : top) {
            assertThat(filter.check(key)).isTrue();
            // The key's bits are really in its block, past bit 2^33.
            Hash128 h = Hash128.of(key);
            long block = BlockHash.block(h.high(), blocks);
            assertThat(block * 512).isGreaterThan(1L << 33);
            byte[] line = new byte[64];
            filter.readBits(block * 64, line, 0, 64);
            for (int pos : BlockHash.positions(filter.layout(), h.low(), 7)) {
                assertThat(line[pos >>> 3] & (1 << (pos & 7))).isNotZero();
            }
        }
        // Only the chunks spanning the top 1% of blocks were allocated (1% of 2 GiB is about 21 MiB, in whole
        // chunks), besides the chunks' last slots.
        assertThat(filter.allocatedBytes())
                .isLessThanOrEqualTo(
                        filter.sizeInBytes() / 100 + 2L * ChunkedBits.CHUNK_BYTES + filter.sizeInBytes() / 1024);
        assertThat(filter.approximateCount()).isCloseTo(top.length, within(top.length / 50L));
    }

    @Test
    void roundTripsThroughItsBinaryFormat() throws IOException {
        BloomFilter filter = BloomFilter.builder().capacity(100_000).fpp(0.01).build();
        byte[][] added = Keys.random(7, 100_000);
        for (byte[] key : added) {
            filter.add(key);
        }
        byte[] bytes = serialise(filter);
        assertThat(bytes.length).isEqualTo(36 + filter.sizeInBytes() + 4);
        BloomFilter copy = BloomFilter.readFrom(new ByteArrayInputStream(bytes));
        assertThat(copy.bits()).isEqualTo(filter.bits());
        assertThat(copy.hashes()).isEqualTo(filter.hashes());
        assertThat(copy.capacity()).isEqualTo(filter.capacity());
        assertThat(copy.targetFpp()).isEqualTo(filter.targetFpp());
        assertThat(copy.errorEstimate()).isEqualTo(filter.errorEstimate());
        for (byte[] key : added) {
            assertThat(copy.check(key)).isTrue();
        }
        for (byte[] key : Keys.random(8, 100_000)) {
            assertThat(copy.check(key)).isEqualTo(filter.check(key));
        }
    }

    /**
     * The heap a full filter takes is its size: no chunk may be a G1 humongous object with a region to itself. The
     * test JVM's 2 GiB heap has 1 MiB regions, where 512 KiB chunks would take twice the filter's size.
     */
    @Test
    void aFullFilterTakesItsSizeOfHeap() {
        long before = heapUsedAfterGc();
        BloomFilter filter = BloomFilter.builder().bits(64L << 23).hashes(7).build(); // 64 MiB
        byte[] ones = new byte[1 << 20];
        Arrays.fill(ones, (byte) 0xFF);
        for (long offset = 0; offset < filter.sizeInBytes(); offset += ones.length) {
            filter.loadBits(offset, ones, 0, ones.length);
        }
        long used = heapUsedAfterGc() - before;
        // The bits, the chunks' alignment and last slots (under 64 KiB here), and the 64 KiB of block locks.
        assertThat(filter.allocatedBytes())
                .isEqualTo(BloomFilter.heapBytes(filter.bits()))
                .isBetween((64L << 20) + 64 * 1024, (64L << 20) + 128 * 1024);
        assertThat(used).as("heap taken by a full 64 MiB filter").isBetween(60L << 20, 80L << 20);
        assertThat(filter.check("anything")).isTrue();
    }

    /** The heap in use after a full collection, so that a difference of two is what lives between them. */
    private static long heapUsedAfterGc() {
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** An empty filter's heap is mostly its 64 KiB of block locks, and the memory it reports counts them. */
    @Test
    void theMemoryReportedCountsTheBlockLocks() {
        long before = heapUsedAfterGc();
        List<BloomFilter> filters = new ArrayList<>();
        for (int i = 0; i < 256; i++) {
            filters.add(BloomFilter.builder().bits(512).hashes(7).build());
        }
        long used = heapUsedAfterGc() - before;
        BloomFilter one = filters.get(0);
        assertThat(one.allocatedBytes())
                .isGreaterThan(64 * 1024)
                .isEqualTo(one.stats().memoryBytes())
                .isLessThanOrEqualTo(BloomFilter.heapBytes(512));
        assertThat(used)
                .as("heap taken by 256 empty filters")
                .isBetween(
                        filters.size() * one.allocatedBytes() * 9 / 10,
                        filters.size() * one.allocatedBytes() * 12 / 10);
    }

    @Test
    void emptyRegionsStaySparseWhenRead() throws IOException {
        BloomFilter filter = BloomFilter.builder().bits(1L << 27).hashes(7).build();
        filter.add("one");
        BloomFilter copy = BloomFilter.readFrom(new ByteArrayInputStream(serialise(filter)));
        assertThat(copy.check("one")).isTrue();
        assertThat(copy.allocatedBytes()).isEqualTo(filter.allocatedBytes()).isLessThan(2L * ChunkedBits.CHUNK_BYTES);
    }

    /**
     * Reading skips the pieces of the bit array that are zero; every other byte must land where it was, wherever it
     * falls against the pieces, the read buffer, the chunks and their last slots, and no chunk may be allocated for
     * zeros.
     */
    @Test
    void readingKeepsEveryByteWhereverItFallsAndAllocatesNoChunkForZeros() throws IOException {
        BloomFilter filter = BloomFilter.builder().bits(1L << 27).hashes(7).build(); // 16 MiB
        long size = filter.sizeInBytes();
        long chunk = 64L << ChunkedBits.SLOT_SHIFT; // logical bytes of a chunk, its last slot included
        long piece = BloomFilterCodec.ZERO_PIECE_BYTES;
        long buffer = BloomFormat.BUFFER_BYTES;
        long[] offsets = {
            0,
            piece - 1,
            piece,
            2 * piece + 7,
            buffer - 1,
            buffer,
            chunk - 64,
            chunk - 1,
            chunk,
            3 * chunk - 33,
            5 * chunk + buffer - 1,
            5 * chunk + buffer,
            size - piece,
            size - 1
        };
        byte[] one = {(byte) 0x81};
        for (long offset : offsets) {
            if (offset < size) {
                filter.loadBits(offset, one, 0, 1);
            }
        }
        byte[] run = new byte[3 * (int) piece];
        Arrays.fill(run, (byte) 0xFF);
        filter.loadBits(Math.min(7 * chunk, size / 2) + buffer - piece - 3, run, 0, run.length);
        filter.add("a key");

        BloomFilter copy = read(serialise(filter));
        byte[] expected = new byte[(int) size];
        byte[] actual = new byte[(int) size];
        filter.readBits(0, expected, 0, expected.length);
        copy.readBits(0, actual, 0, actual.length);
        assertThat(actual).isEqualTo(expected);
        assertThat(copy.allocatedBytes()).isEqualTo(filter.allocatedBytes());
        assertThat(copy.fillRatio()).isEqualTo(filter.fillRatio());
        assertThat(copy.check("a key")).isTrue();
    }

    @Test
    void rejectsCorruptOrTruncatedStreamsClearly() throws IOException {
        BloomFilter filter = BloomFilter.builder().capacity(1000).fpp(0.01).build();
        filter.add("x");
        byte[] good = serialise(filter);

        byte[] badMagic = good.clone();
        badMagic[0] = 'X';
        assertThatThrownBy(() -> read(badMagic)).isInstanceOf(IOException.class).hasMessageContaining("bad magic");
        byte[] badVersion = good.clone();
        badVersion[4] = 9;
        assertThatThrownBy(() -> read(badVersion))
                .hasMessageContaining("unsupported bloom filter format version 9")
                .hasMessageContaining("versions 1 to 2");
        byte[] badHeader = good.clone();
        badHeader[9] ^= 1;
        assertThatThrownBy(() -> read(badHeader)).hasMessageContaining("header: checksum mismatch");
        byte[] badBody = good.clone();
        badBody[40] ^= 0x10;
        assertThatThrownBy(() -> read(badBody)).hasMessageContaining("bit array checksum mismatch");
        assertThatThrownBy(() -> read(Arrays.copyOf(good, good.length - 10)))
                .isInstanceOf(EOFException.class)
                .hasMessageContaining("truncated");
        assertThatThrownBy(() -> read(Arrays.copyOf(good, 20)))
                .isInstanceOf(EOFException.class)
                .hasMessageContaining("header");
        byte[] windowedKind = good.clone();
        windowedKind[5] = BloomFormat.KIND_WINDOWED;
        assertThatThrownBy(() -> read(windowedKind)).hasMessageContaining("windowed bloom filter");
    }

    @Test
    void mergeIsTheUnionAndRefusesOtherShapes() {
        BloomFilter a = BloomFilter.builder().capacity(10_000).fpp(0.01).build();
        BloomFilter b = BloomFilter.builder().capacity(10_000).fpp(0.01).build();
        byte[][] ka = Keys.random(9, 5000);
        byte[][] kb = Keys.random(10, 5000);
        for (int i = 0; i < 5000; i++) {
            a.add(ka[i]);
            b.add(kb[i]);
        }
        a.mergeFrom(b);
        for (int i = 0; i < 5000; i++) {
            assertThat(a.check(ka[i])).isTrue();
            assertThat(a.check(kb[i])).isTrue();
        }
        assertThat(a.approximateCount()).isCloseTo(10_000L, within(300L));
        BloomFilter other = BloomFilter.builder().capacity(20_000).fpp(0.01).build();
        assertThatThrownBy(() -> a.mergeFrom(other))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("different shapes");
        BloomFilter scattered = FormatOne.empty(a.bits(), a.hashes(), a.capacity());
        assertThatThrownBy(() -> a.mergeFrom(scattered))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("layout SECTORED")
                .hasMessageContaining("layout SCATTERED");
    }

    @Test
    void newFiltersAreSectoredAndWriteFormatTwo() throws IOException {
        BloomFilter filter = BloomFilter.builder().capacity(1000).fpp(0.01).build();
        assertThat(filter.layout()).isEqualTo(BloomLayout.SECTORED);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        filter.writeTo(out);
        assertThat(out.toByteArray()[4]).isEqualTo((byte) 2);
    }

    @Test
    void aFilterWrittenInFormatOneIsReadBackWithItsLayoutAndWrittenUnchanged() throws IOException {
        byte[] original = FormatOne.resource("bloom-format1.bin");
        BloomFilter filter = BloomFilter.readFrom(new ByteArrayInputStream(original));
        assertThat(filter.layout()).isEqualTo(BloomLayout.SCATTERED);
        assertThat(filter.bits()).isEqualTo(19_968);
        assertThat(filter.hashes()).isEqualTo(6);
        for (int i = 0; i < 1000; i++) {
            assertThat(filter.check("key-" + i)).as("key-" + i).isTrue();
            assertThat(filter.checkThenAdd("key-" + i)).isEqualTo(Verdict.DUPLICATE);
        }
        assertThat(filter.approximateCount()).isCloseTo(1000L, within(60L));
        // Its own formula: at 1,000 of its 2,000 keys, well under 1%; 20,000 fresh keys give about 20 false positives.
        assertThat(filter.errorEstimate().currentFpp()).isBetween(0.0003, 0.003);
        assertThat(falsePositiveRate(filter, Keys.random(21, 20_000))).isLessThan(0.004);
        ByteArrayOutputStream rewritten = new ByteArrayOutputStream();
        filter.writeTo(rewritten);
        assertThat(rewritten.toByteArray()).isEqualTo(original);
        // It keeps growing in its own layout: new keys are found, and answer NEW once.
        for (int i = 1000; i < 2000; i++) {
            assertThat(filter.checkThenAdd("key-" + i)).isIn(Verdict.NEW, Verdict.DUPLICATE);
        }
        for (int i = 0; i < 2000; i++) {
            assertThat(filter.check("key-" + i)).isTrue();
        }
        assertThat(filter.approximateCount()).isCloseTo(2000L, within(120L));
    }

    @Test
    void everyKFromOneToThirtyTwoNeverAnswersNewForAnAddedKeyAndKeepsItsFormula() {
        // k < 8 leaves words unused, k > 8 puts a second bit in the first words, k > 10 takes offsets from the mixed
        // hash words: each path, at 100,000 keys in 2^20 bits (2,048 blocks), about what 1% at k = 8 needs.
        byte[][] added = Keys.random(22, 100_000);
        byte[][] fresh = Keys.random(23, 200_000);
        for (int k = 1; k <= BloomSizing.MAX_HASHES; k++) {
            BloomFilter filter = BloomFilter.builder()
                    .bits(1 << 20)
                    .hashes(k)
                    .capacity(100_000)
                    .build();
            for (byte[] key : added) {
                filter.add(key);
            }
            for (byte[] key : added) {
                assertThat(filter.check(key)).as("k=%d", k).isTrue();
            }
            double expected = filter.targetFpp();
            double measured = falsePositiveRate(filter, fresh);
            // 200,000 probes: at the smallest expected rate here (about 0.9%, 1,800 hits) six standard deviations
            // are 14%; a fill-dependent formula error would show far beyond that.
            assertThat(measured)
                    .as("k=%d, expected %f", k, expected)
                    .isCloseTo(expected, within(expected * 0.15 + 0.001));
        }
    }

    @Test
    void rawChunksDumpAndLoadLikeScandump() {
        BloomFilter source = BloomFilter.builder().capacity(50_000).fpp(0.01).build();
        byte[][] keys = Keys.random(11, 50_000);
        for (byte[] key : keys) {
            source.add(key);
        }
        BloomFilter target = BloomFilter.builder()
                .bits(source.bits())
                .hashes(source.hashes())
                .capacity(source.capacity())
                .build();
        byte[] chunk = new byte[1000]; // deliberately not a multiple of 8
        for (long offset = 0; offset < source.sizeInBytes(); ) {
            int n = source.readBits(offset, chunk, 0, chunk.length);
            target.loadBits(offset, chunk, 0, n);
            offset += n;
        }
        assertThat(target.errorEstimate()).isEqualTo(source.errorEstimate());
        for (byte[] key : keys) {
            assertThat(target.check(key)).isTrue();
        }
        assertThat(source.readBits(source.sizeInBytes(), chunk, 0, 10)).isZero();
        assertThatThrownBy(() -> target.loadBits(target.sizeInBytes() - 4, chunk, 0, 8))
                .hasMessageContaining("overruns the bit array");
        assertThatThrownBy(() -> source.readBits(-1, chunk, 0, 8)).hasMessageContaining("offset must be in");
    }

    @Test
    void batchesAnswerExactlyAsSingleCallsInOrder() {
        BloomFilter batched = BloomFilter.builder().capacity(100_000).fpp(0.01).build();
        BloomFilter single = BloomFilter.builder().capacity(100_000).fpp(0.01).build();
        byte[][] keys = Keys.random(12, 100_000);
        for (int from = 0; from < keys.length; from += 1000) {
            // Each batch repeats its first key at the end: NEW the first time, DUPLICATE the second.
            List<byte[]> batch = new ArrayList<>(Arrays.asList(keys).subList(from, from + 1000));
            batch.add(batch.get(0));
            Verdict[] verdicts = batched.checkThenAddAll(batch);
            for (int i = 0; i < batch.size(); i++) {
                assertThat(verdicts[i]).isEqualTo(single.checkThenAdd(batch.get(i)));
            }
            assertThat(verdicts[0]).isEqualTo(Verdict.NEW);
            assertThat(verdicts[1000]).isEqualTo(Verdict.DUPLICATE);
        }
        List<byte[]> probes = Arrays.asList(Keys.random(13, 100_000));
        boolean[] answers = batched.checkAll(probes);
        for (int i = 0; i < answers.length; i++) {
            assertThat(answers[i]).isEqualTo(single.check(probes.get(i)));
        }
        BloomFilter added = BloomFilter.builder().capacity(100_000).fpp(0.01).build();
        added.addAll(Arrays.asList(keys));
        assertThat(added.checkAll(Arrays.asList(keys))).doesNotContain(false);
        assertThat(added.errorEstimate()).isEqualTo(single.errorEstimate());
    }

    @Test
    void orCheckHashesMarksOnlyKeysTheFilterMayHoldAndKeepsEarlierMarks() {
        BloomFilter filter = BloomFilter.builder().capacity(10_000).fpp(0.001).build();
        byte[][] held = Keys.random(14, 2_000);
        byte[][] fresh = Keys.random(15, 2_000);
        List<byte[]> probes = new ArrayList<>(Arrays.asList(held));
        probes.addAll(Arrays.asList(fresh));
        filter.addAll(Arrays.asList(held));
        long[] hashes = Hash128.ofAll(probes);
        boolean[] maybe = new boolean[probes.size()];
        maybe[held.length] = true; // marked by an earlier filter: stays marked though this one lacks the key
        filter.orCheckHashes(hashes, maybe);
        for (int i = 0; i < maybe.length; i++) {
            boolean expected = i == held.length || filter.check(probes.get(i));
            assertThat(maybe[i]).as("key %d", i).isEqualTo(expected);
        }
        assertThat(Arrays.copyOf(maybe, held.length)).doesNotContain(false);
        assertThatThrownBy(() -> filter.orCheckHashes(hashes, new boolean[3]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("one per key");
        // an odd count of longs is a caller's slip (a pair cut in half), not a batch one key shorter
        assertThatThrownBy(() -> filter.checkHashes(Arrays.copyOf(hashes, 3)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("hashes")
                .hasMessageContaining("3");
        assertThatThrownBy(() -> filter.orCheckHashes(Arrays.copyOf(hashes, 3), new boolean[1]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("hashes");
        assertThatThrownBy(() -> filter.checkHashes(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("hashes must not be null");
        assertThatThrownBy(() -> filter.orCheckHashes(hashes, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maybe must not be null");
    }

    @Test
    void aHeaderWithAnImpossibleTargetFppIsRefusedThoughItsChecksumIsRight() throws IOException {
        byte[] good = serialise(BloomFilter.builder().capacity(1000).fpp(0.01).build());
        for (double fpp : new double[] {Double.NaN, -1, 2, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY}) {
            byte[] forged = Forged.withLong(good, 32, 24, Double.doubleToRawLongBits(fpp));
            assertThatThrownBy(() -> read(forged))
                    .as("fpp %s", fpp)
                    .isInstanceOf(IOException.class)
                    .hasMessage("bloom filter header holds impossible parameters: target fpp must be in [0, 1] (got "
                            + fpp + ")");
        }
        // 1 is what a legitimate explicit shape carries when its capacity saturates it, so [0, 1] is accepted.
        BloomFilter saturated = BloomFilter.builder()
                .bits(512)
                .hashes(1)
                .capacity(Long.MAX_VALUE)
                .build();
        assertThat(saturated.targetFpp()).isEqualTo(1.0);
        assertThat(read(serialise(saturated)).targetFpp()).isEqualTo(1.0);
        assertThat(read(Forged.withLong(good, 32, 24, 0)).targetFpp()).isZero();
    }

    private static double falsePositiveRate(BloomFilter filter, byte[][] fresh) {
        int positives = 0;
        for (byte[] key : fresh) {
            if (filter.check(key)) {
                positives++;
            }
        }
        return (double) positives / fresh.length;
    }

    private static byte[] serialise(BloomFilter filter) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        filter.writeTo(out);
        return out.toByteArray();
    }

    private static BloomFilter read(byte[] bytes) throws IOException {
        return BloomFilter.readFrom(new ByteArrayInputStream(bytes));
    }
}
