package dev.deja.sizing;

/**
 * Where a key's {@code k} bits lie inside its 512-bit block, and the false-positive arithmetic that follows from it.
 * Each layout is one version of the bloom format (docs/FORMAT.md section 2.1).
 *
 * <p>Both keep a key inside one 64-byte block, so a lookup costs one cache miss. They differ in the work done inside
 * the block. {@link #SCATTERED} (Putze, Sanders and Singler, 2007) places each bit anywhere among the 512, so a lookup
 * finds a word index and a bit index per bit. {@link #SECTORED} (the "sectorized" blocked filter of Lang, Neumann,
 * Kemper, Boncz and Leis, "Performance-Optimal Filtering: Bloom Overtakes Cuckoo at High Throughput", VLDB 2019) puts
 * bit {@code i} in the block's word {@code i mod 8}, so a lookup loads the eight words once and tests them with a
 * shift, an AND-NOT and an OR each. That halves the instructions per lookup, and a lookup that misses the cache is fast
 * only while the processor can overlap the misses of consecutive lookups, which needs few instructions between them.
 * The price is a little memory: fixing each bit's word spreads the bits less evenly, 1.5% more bits per key at 0.1% and
 * 2% at 1%.
 */
public enum BloomLayout {

    /** Format version 1: each of the {@code k} bits at a 9-bit position anywhere in the block. */
    SCATTERED(1),

    /** Format version 2, the layout of every new filter: bit {@code i} in word {@code i mod 8}, at a 6-bit offset. */
    SECTORED(2);

    /** Bits per block, in either layout: one 64-byte cache line. */
    static final int BLOCK_BITS = 512;
    /** Words (sectors) per block in the sectored layout. */
    public static final int SECTORS = 8;
    /** Bits per sector: one 64-bit word. */
    static final int SECTOR_BITS = BLOCK_BITS / SECTORS;

    private final int formatVersion;

    BloomLayout(int formatVersion) {
        this.formatVersion = formatVersion;
    }

    /** The format version written for a filter of this layout. */
    public int formatVersion() {
        return formatVersion;
    }

    /** The layout a format version stands for, or {@code null} for a version this code does not know. */
    public static BloomLayout ofFormatVersion(int version) {
        for (BloomLayout layout : values()) {
            if (layout.formatVersion == version) {
                return layout;
            }
        }
        return null;
    }

    /**
     * The false-positive probability of one block holding {@code keys} keys of {@code k} bits each: the probability
     * that the {@code k} bits of a key not among them are all set, each bit counted as an independent draw, as
     * positions are.
     * <ul>
     *   <li>scattered: {@code (1 - (1 - 1/512)^(k*keys))^k};</li>
     *   <li>sectored: word {@code w} receives {@code c_w} of each key's bits, where {@code c_w = floor(k/8) + 1} for
     *       the first {@code k mod 8} words and {@code floor(k/8)} for the others, so the product over the words of
     *       {@code (1 - (1 - 1/64)^(c_w*keys))^c_w}.</li>
     * </ul>
     */
    double blockFpp(int keys, int k) {
        if (this == SCATTERED) {
            return Math.pow(-Math.expm1((double) k * keys * Math.log1p(-1.0 / BLOCK_BITS)), k);
        }
        int each = k / SECTORS;
        int wider = k % SECTORS;
        return Math.pow(sectorFpp(keys, each + 1), wider) * Math.pow(sectorFpp(keys, each), SECTORS - wider);
    }

    /** Probability that {@code c} given bits of a 64-bit sector are set after {@code keys} keys put {@code c} each. */
    private static double sectorFpp(int keys, int c) {
        if (c == 0) {
            return 1.0;
        }
        return Math.pow(-Math.expm1((double) c * keys * Math.log1p(-1.0 / SECTOR_BITS)), c);
    }

    /**
     * The expected fraction of set bits when blocks hold Poisson({@code lambda}) keys of {@code k} bits: for a bit
     * receiving {@code c} draws per key, a key leaves it clear with probability {@code q = (1 - 1/n)^c} ({@code n} the
     * bits it is drawn among), so it is clear with probability {@code E[q^X] = e^(-lambda (1 - q))}.
     */
    public double expectedFill(double lambda, int k) {
        if (this == SCATTERED) {
            return -Math.expm1(-lambda * -Math.expm1(k * Math.log1p(-1.0 / BLOCK_BITS)));
        }
        int each = k / SECTORS;
        int wider = k % SECTORS;
        double clear = wider * sectorClear(lambda, each + 1) + (SECTORS - wider) * sectorClear(lambda, each);
        return 1.0 - clear / SECTORS;
    }

    private static double sectorClear(double lambda, int c) {
        return Math.exp(-lambda * -Math.expm1(c * Math.log1p(-1.0 / SECTOR_BITS)));
    }

    /**
     * The mean keys per block at which {@link #expectedFill} reaches {@code fill} (in [0, 1)), found by bisection:
     * the fill rises strictly with the load. The inverse the filters use to estimate how many keys they hold.
     */
    public double keysPerBlockAtFill(double fill, int k) {
        if (fill <= 0) {
            return 0;
        }
        double hi = 1;
        while (expectedFill(hi, k) < fill && hi < 1e12) {
            hi *= 2;
        }
        double lo = 0;
        for (int i = 0; i < 100 && hi - lo > 1e-12 * hi; i++) {
            double mid = (lo + hi) / 2;
            if (expectedFill(mid, k) < fill) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        return (lo + hi) / 2;
    }
}
