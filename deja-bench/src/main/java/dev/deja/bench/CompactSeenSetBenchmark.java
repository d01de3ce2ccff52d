package dev.deja.bench;

import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnels;
import dev.deja.compact.CompactSeenSet;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Base64;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Time to encode and decode a compact seen-set of {@code size} keys at 1%, next to a Guava Bloom filter of the
 * same parameters written to base64 and read back: the per-user "seen" set kept in a cookie as a Guava filter in
 * base64, the design the compact codec replaces.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class CompactSeenSetBenchmark {

    @Param({"10", "100", "1000"})
    int size;

    private CompactSeenSet set;
    private String encoded;
    private BloomFilter<byte[]> guava;
    private String guavaEncoded;

    @Setup
    public void fill() throws IOException {
        SplittableRandom random = new SplittableRandom(42);
        set = CompactSeenSet.create(size, 0.01);
        guava = BloomFilter.create(Funnels.byteArrayFunnel(), size, 0.01);
        while (set.size() < size) {
            byte[] key = new byte[16];
            random.nextBytes(key);
            set = set.with(key);
            guava.put(key);
        }
        encoded = set.encode();
        guavaEncoded = guavaEncode();
    }

    @Benchmark
    public String encode() {
        return set.encode();
    }

    @Benchmark
    public CompactSeenSet decode() {
        return CompactSeenSet.decode(encoded);
    }

    @Benchmark
    public String guavaEncode() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        guava.writeTo(out);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(out.toByteArray());
    }

    @Benchmark
    public BloomFilter<byte[]> guavaDecode() throws IOException {
        return BloomFilter.readFrom(
                new ByteArrayInputStream(Base64.getUrlDecoder().decode(guavaEncoded)), Funnels.byteArrayFunnel());
    }
}
