package dev.deja.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.deja.sizing.BloomSize;
import dev.deja.sizing.BloomSizing;
import dev.deja.sizing.ExactSizing;
import dev.deja.sizing.RecentSizing;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

class SizeCommandTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private record Run(int code, String out, String err) {
        JsonNode json() throws Exception {
            return JSON.readTree(out);
        }
    }

    private static Run deja(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        var cli = Main.commandLine();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        int code = cli.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void recentIssueExampleAnswersTheHeldQuestionAndExplainsTheNsqArticlesFigure() {
        Run r = deja("size", "recent", "--rate", "1000", "--window", "1h", "--probability", "0.9", "--ways", "1");
        assertThat(r.code()).isZero();
        assertThat(r.out())
                .containsPattern("buckets \\(N\\) +34,168,399\n")
                .containsPattern("memory +260\\.68 MiB \\(273,347,192 bytes\\)")
                .containsPattern("held after window +0\\.9\n")
                .contains("P(held after x further keys) = (1 - 1/N)^x")
                .contains("N = ceil(1 / (1 - p_held^(1/x)))")
                .contains(
                        "the NSQ article's figure for these numbers, 1,563,461 buckets, answers the inverse question");
        assertThat(r.err()).isEmpty();
    }

    @Test
    void lostProbabilityIsTheNsqArticlesReadingAndGivesItsFigure() throws Exception {
        Run r = deja("size", "recent", "--rate", "1000", "--window", "1h", "--lost-probability", "0.9", "--ways", "1");
        assertThat(r.code()).isZero();
        assertThat(r.out())
                .containsPattern("buckets \\(N\\) +1,563,461\n")
                .contains("p_held = 1 - p_lost")
                .doesNotContain("inverse question");
        JsonNode j = deja(
                        "size",
                        "recent",
                        "--rate",
                        "1000",
                        "--window",
                        "3600s",
                        "--lost-probability",
                        "0.9",
                        "--ways",
                        "1",
                        "--json")
                .json();
        assertThat(j.at("/results/buckets").asLong()).isEqualTo(1_563_461L);
        assertThat(j.at("/inputs/lostProbability").asDouble()).isEqualTo(0.9);
        assertThat(j.at("/results/lostProbability").asDouble()).isBetween(0.8999, 0.9);
    }

    @Test
    void theNsqArticleNoteSurvivesWhenItsReadingExceedsTheLargestFilter() {
        // 10^11 keys held with 0.001 fit in 2^36 buckets; the NSQ article's reading (held with 0.999) would not.
        Run r = deja(
                "size", "recent", "--rate", "1000000", "--window", "100000s", "--probability", "0.001", "--ways", "1");
        assertThat(r.code()).isZero();
        assertThat(r.out()).contains("the NSQ article's figure for these numbers, more than the largest filter");
    }

    @Test
    void recentJsonCarriesTheSameAnswersAsTheApi() throws Exception {
        Run r = deja("size", "recent", "--rate", "1000", "--window", "1h", "--probability", "0.9", "--json");
        assertThat(r.code()).isZero();
        assertThat(r.out().strip()).doesNotContain("\n"); // one object, one line
        JsonNode j = r.json();
        assertThat(j.get("kind").asText()).isEqualTo("recent");
        assertThat(j.at("/inputs/keysPerWindow").asLong()).isEqualTo(3_600_000L);
        assertThat(j.at("/inputs/ways").asInt()).isEqualTo(8); // the default
        long buckets = RecentSizing.bucketsFor(3_600_000, 0.9, 8);
        assertThat(j.at("/results/buckets").asLong()).isEqualTo(buckets);
        assertThat(j.at("/results/bytes").asLong()).isEqualTo(buckets * 8);
        assertThat(j.at("/results/heldProbability").asDouble()).isGreaterThanOrEqualTo(0.9);
        assertThat(j.get("formulas").get(0).asText()).contains("Binomial(x, 1/S) < W");
        // without --owners the server's default (owners kept, twice the memory) is pointed out
        assertThat(j.get("notes")).hasSize(1);
        assertThat(j.get("notes").get(0).asText()).contains("keep owners", "--owners");
        JsonNode withOwners = deja(
                        "size",
                        "recent",
                        "--rate",
                        "1000",
                        "--window",
                        "1h",
                        "--probability",
                        "0.9",
                        "--owners",
                        "--json")
                .json();
        assertThat(withOwners.at("/results/bytes").asLong()).isEqualTo(buckets * 16);
        assertThat(withOwners.get("notes")).isEmpty();
    }

    @Test
    void recentReverseGivesTheWindowAMemoryHoldsAKeyFor() throws Exception {
        JsonNode j = deja(
                        "size",
                        "recent",
                        "--rate",
                        "1000",
                        "--memory",
                        "1g",
                        "--probability",
                        "0.9",
                        "--ways",
                        "8",
                        "--json")
                .json();
        long buckets = (1L << 30) / 8;
        long keys = RecentSizing.keysHeld(buckets, 8, 0.9);
        assertThat(j.at("/inputs/memoryBytes").asLong()).isEqualTo(1L << 30);
        assertThat(j.at("/results/buckets").asLong()).isEqualTo(buckets);
        assertThat(j.at("/results/keysHeld").asLong()).isEqualTo(keys);
        assertThat(j.at("/results/windowSeconds").asDouble()).isEqualTo(keys / 1000.0);

        // Round trip: sizing for that window asks for no more buckets than the memory gave.
        JsonNode back = deja(
                        "size",
                        "recent",
                        "--rate",
                        "1000",
                        "--window",
                        (keys / 1000) + "s",
                        "--probability",
                        "0.9",
                        "--ways",
                        "8",
                        "--json")
                .json();
        assertThat(back.at("/results/buckets").asLong()).isLessThanOrEqualTo(buckets);
    }

    @Test
    void recentWithWindowAndSizeGivesTheProbability() throws Exception {
        JsonNode j = deja(
                        "size",
                        "recent",
                        "--rate",
                        "1000",
                        "--window",
                        "60m",
                        "--buckets",
                        "1563461",
                        "--ways",
                        "1",
                        "--json")
                .json();
        assertThat(j.at("/results/heldProbability").asDouble()).isBetween(0.1, 0.1000001);
    }

    @Test
    void bloomIssueExampleMatchesTheApi() throws Exception {
        Run r = deja("size", "bloom", "--capacity", "500000000", "--fpp", "0.001");
        assertThat(r.code()).isZero();
        BloomSize expected = BloomSizing.forCapacity(500_000_000, 0.001);
        assertThat(r.out())
                .containsPattern("bits \\(m\\) +" + SizeReport.count(expected.bits()) + "\n")
                .containsPattern("hashes \\(k\\) +" + expected.hashes() + "\n")
                .contains(SizeReport.bytes(expected.bytes()))
                .contains("fpp(c, k) = sum_{i>=0} Poisson(i; 512/c)");
        JsonNode j = deja("size", "bloom", "--capacity", "500000000", "--fpp", "0.001", "--json")
                .json();
        assertThat(j.at("/results/bits").asLong()).isEqualTo(expected.bits());
        assertThat(j.at("/results/hashes").asInt()).isEqualTo(expected.hashes());
        assertThat(j.at("/results/fpp").asDouble()).isLessThanOrEqualTo(0.001);
    }

    @Test
    void bloomFppForMemory() throws Exception {
        JsonNode j = deja("size", "bloom", "--capacity", "500000000", "--memory", "1g", "--json")
                .json();
        BloomSize expected = BloomSizing.forMemory(1L << 30, 500_000_000);
        assertThat(j.at("/inputs/memoryBytes").asLong()).isEqualTo(1L << 30);
        assertThat(j.at("/results/hashes").asInt()).isEqualTo(expected.hashes());
        assertThat(j.at("/results/fpp").asDouble()).isEqualTo(expected.expectedFpp());
        // The 1 GiB default filter, for 5e8 keys, stays under 0.1% with the blocked formula.
        assertThat(j.at("/results/fpp").asDouble()).isLessThan(0.001);
    }

    @Test
    void exactEstimatesDiskPerWindow() throws Exception {
        JsonNode j = deja("size", "exact", "--rate", "1000", "--window", "7d", "--owners", "--json")
                .json();
        long keys = 1000L * 7 * 86_400;
        assertThat(j.at("/results/keys").asLong()).isEqualTo(keys);
        double perKey = ExactSizing.bytesPerKey(keys, 16, /* owners= */ true, 8);
        assertThat(j.at("/results/bytesPerKey").asDouble()).isEqualTo(perKey);
        assertThat(j.at("/results/diskBytes").asLong()).isEqualTo(Math.round(keys * perKey));
        assertThat(j.at("/results/peakDiskBytes").asLong()).isEqualTo(Math.round(keys * 1.125 * perKey));
        assertThat(deja("size", "exact", "--rate", "1000", "--window", "1h").out())
                .contains("calibrated");
        JsonNode two = deja("size", "exact", "--rate", "1000", "--window", "7d", "--generations", "2", "--json")
                .json();
        assertThat(two.at("/results/bytesPerKey").asDouble()).isEqualTo(ExactSizing.bytesPerKey(keys, 16, false, 2));
        assertThat(deja("size", "exact", "--rate", "1000", "--window", "1h", "--generations", "1")
                        .err())
                .contains("--generations must be in [2, 1024]");
    }

    @Test
    void durationsAndSizesReadTheirUnits() throws Exception {
        for (String w : new String[] {"1h", "60m", "3600s", "3600000ms", "PT1H", "1.5h"}) {
            JsonNode j = deja("size", "exact", "--rate", "2", "--window", w, "--json")
                    .json();
            assertThat(j.at("/results/keys").asLong()).as(w).isEqualTo(w.equals("1.5h") ? 10_800 : 7_200);
        }
        JsonNode m = deja("size", "bloom", "--capacity", "1000", "--memory", "512k", "--json")
                .json();
        assertThat(m.at("/inputs/memoryBytes").asLong()).isEqualTo(512 * 1024);
    }

    @Test
    void badValuesAreUsageErrorsNamingTheOptionAndRange() {
        assertError(
                2,
                "--probability must be in the open interval (0, 1) (got 1.5)",
                "size",
                "recent",
                "--rate",
                "1000",
                "--window",
                "1h",
                "--probability",
                "1.5");
        assertError(
                2,
                "mutually exclusive",
                "size",
                "recent",
                "--rate",
                "1000",
                "--window",
                "1h",
                "--probability",
                "0.9",
                "--lost-probability",
                "0.9");
        assertError(
                2,
                "--ways must be one of 1, 2, 4, 8, 16 (got 3)",
                "size",
                "recent",
                "--rate",
                "1000",
                "--window",
                "1h",
                "--probability",
                "0.9",
                "--ways",
                "3");
        assertError(2, "give exactly two of --window", "size", "recent", "--rate", "1000", "--window", "1h");
        assertError(
                2,
                "--rate must be a number of keys per second > 0 (got -5.0)",
                "size",
                "recent",
                "--rate",
                "-5",
                "--window",
                "1h",
                "--probability",
                "0.9");
        assertError(
                2,
                "Invalid value for option '--window': '1x' is not a duration",
                "size",
                "recent",
                "--rate",
                "1",
                "--window",
                "1x",
                "--probability",
                "0.9");
        assertError(
                2,
                "Invalid value for option '--memory': '12q' is not a size",
                "size",
                "bloom",
                "--capacity",
                "10",
                "--memory",
                "12q");
        assertError(
                2,
                "--buckets must be a multiple of --ways (8)",
                "size",
                "recent",
                "--rate",
                "1",
                "--buckets",
                "12",
                "--probability",
                "0.9");
        assertError(
                2,
                "--fpp must be in the open interval (0, 1) (got 0.0)",
                "size",
                "bloom",
                "--capacity",
                "10",
                "--fpp",
                "0");
        assertError(2, "--capacity must be a number of keys > 0", "size", "bloom", "--capacity", "0", "--fpp", "0.01");
        assertError(2, "Missing required argument", "size", "bloom", "--capacity", "10");
        assertError(
                2,
                "needs more than the largest filter",
                "size",
                "bloom",
                "--capacity",
                "4000000000000000000",
                "--fpp",
                "1e-12");
        assertError(
                2,
                "--key-length must be in [1, 65536] (got 0)",
                "size",
                "exact",
                "--rate",
                "1",
                "--window",
                "1h",
                "--key-length",
                "0");
        assertError(2, "Missing the store kind", "size");
        assertError(
                2,
                "--rate times --window must be between 1 and 2^63 keys (got 0.001)",
                "size",
                "exact",
                "--rate",
                "0.001",
                "--window",
                "1s");
    }

    @Test
    void anAbsurdlyLongWindowIsShownInYears() throws Exception {
        assertThat(deja("size", "recent", "--rate", "1e-300", "--memory", "1g", "--probability", "0.9")
                        .out())
                .containsPattern("window held for +[0-9.]+e\\+[0-9]+ years");
    }

    private static void assertError(int code, String message, String... args) {
        Run r = deja(args);
        assertThat(r.code()).as(String.join(" ", args)).isEqualTo(code);
        assertThat(r.err()).as(String.join(" ", args)).contains(message);
        assertThat(r.out()).as("nothing printed on stdout").isEmpty();
    }

    @Test
    void jsonStringsAreEscaped() throws Exception {
        String nasty = "a\"b\\c\n\r\t\b\f\u0001\u001f é ∑ 😀 </script>";
        assertThat(JSON.readTree(SizeReport.quote(nasty)).asText()).isEqualTo(nasty);
        assertThat(SizeReport.quote("\u0001")).isEqualTo("\"\\u0001\"");
    }
}
