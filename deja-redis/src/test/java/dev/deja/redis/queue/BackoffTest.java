package dev.deja.redis.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class BackoffTest {

    @Test
    void stepsDoubleUpToTheCap() {
        Backoff b = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(10));
        assertThat(b.stepMillis(1)).isEqualTo(1000);
        assertThat(b.stepMillis(2)).isEqualTo(2000);
        assertThat(b.stepMillis(4)).isEqualTo(8000);
        assertThat(b.stepMillis(5)).isEqualTo(10_000);
        assertThat(b.stepMillis(1000)).isEqualTo(10_000);
    }

    @Test
    void jitterStaysBetweenHalfAndAllOfTheStep() {
        Backoff b = new Backoff(Duration.ofMillis(100), Duration.ofDays(1));
        SplittableRandom random = new SplittableRandom(42);
        long min = Long.MAX_VALUE;
        long max = 0;
        for (int i = 0; i < 100_000; i++) {
            long d = b.delayMillis(3, random);
            min = Math.min(min, d);
            max = Math.max(max, d);
        }
        assertThat(min).isEqualTo(200);
        assertThat(max).isEqualTo(400);
    }

    @Test
    void refusesACapBelowTheFirstStep() {
        assertThatThrownBy(() -> new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("max");
    }
}
