package dev.deja.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class FsyncPolicyTest {

    @Test
    void parsesTheRedisNames() {
        assertThat(FsyncPolicy.parse("always")).isEqualTo(FsyncPolicy.ALWAYS);
        assertThat(FsyncPolicy.parse("EverySec")).isEqualTo(FsyncPolicy.EVERYSEC);
        assertThat(FsyncPolicy.parse(" no ")).isEqualTo(FsyncPolicy.NO);
    }

    @Test
    void rejectsOtherNamesListingTheValidOnes() {
        assertThatThrownBy(() -> FsyncPolicy.parse("sometimes"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("fsync must be one of always|everysec|no (got \"sometimes\")");
        assertThatThrownBy(() -> FsyncPolicy.parse(null)).hasMessageContaining("(got null)");
    }
}
