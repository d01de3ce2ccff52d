package dev.deja.status;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The operations history the status page charts. */
class ActivityTest {

    private static final long FIVE_SECONDS = 5_000_000_000L;

    private final Activity activity = new Activity(5_000);
    private final Object orders = new Object();

    @Test
    void aNamespaceCountsFromZeroAndGetsOneRatePerSample() {
        activity.record(Map.of("orders", new Activity.Count(orders, 100)), FIVE_SECONDS);
        assertThat(activity.histories().get("orders").perSecond())
                .as("opened since the sample before: all its operations fell in this interval")
                .containsExactly(20.0);
        assertThat(activity.histories().get("orders").operations()).isEqualTo(100);

        activity.record(Map.of("orders", new Activity.Count(orders, 150)), FIVE_SECONDS);
        activity.record(Map.of("orders", new Activity.Count(orders, 150)), FIVE_SECONDS);
        activity.record(Map.of("orders", new Activity.Count(orders, 160)), 2 * FIVE_SECONDS);
        assertThat(activity.histories().get("orders").perSecond())
                .as("oldest first, each over the time since the sample before")
                .containsExactly(20.0, 10.0, 0.0, 1.0);
        assertThat(activity.histories().get("orders").operations()).isEqualTo(160);
    }

    @Test
    void keepsTheLastSamplesOnly() {
        for (int i = 0; i <= Activity.SAMPLES + 10; i++) {
            activity.record(Map.of("orders", new Activity.Count(orders, i * 5L)), FIVE_SECONDS);
        }
        assertThat(activity.histories().get("orders").perSecond())
                .hasSize(Activity.SAMPLES)
                .containsOnly(1.0);
    }

    @Test
    void aDeletedNamespaceGoesAndOneCreatedAgainUnderItsNameStartsAfresh() {
        activity.record(Map.of("orders", new Activity.Count(orders, 0), "users", new Activity.Count("u", 0)), 1);
        activity.record(Map.of("orders", new Activity.Count(orders, 50), "users", new Activity.Count("u", 0)), 1);
        activity.record(Map.of("orders", new Activity.Count(new Object(), 7)), FIVE_SECONDS);
        assertThat(activity.histories()).containsOnlyKeys("orders");
        assertThat(activity.histories().get("orders").perSecond()).containsExactly(1.4);
        assertThat(activity.histories().get("orders").operations()).isEqualTo(7);
    }
}
