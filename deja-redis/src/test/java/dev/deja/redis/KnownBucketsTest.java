package dev.deja.redis;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Which buckets a client takes for existing, and for how long. */
class KnownBucketsTest {

    @Test
    void holdsEachSliceOfTheWindowAndForgetsOlderTimeBuckets() {
        KnownBuckets known = new KnownBuckets(4);
        known.add(100, 3);
        known.add(100, 70_000);
        assertThat(known.contains(100, 3)).isTrue();
        assertThat(known.contains(100, 70_000)).isTrue();
        assertThat(known.contains(100, 4)).isFalse();
        assertThat(known.contains(101, 3)).isFalse();

        known.add(105, 0); // 100 is still within the window's four buckets back, plus the one being written
        assertThat(known.contains(100, 3)).isTrue();
        known.add(106, 0);
        assertThat(known.contains(100, 3))
                .as("more than a window older than the newest")
                .isFalse();
        assertThat(known.contains(105, 0)).isTrue();
    }
}
