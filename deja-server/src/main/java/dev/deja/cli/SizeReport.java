package dev.deja.cli;

import dev.deja.text.Units;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The answer of a {@code deja size} command: inputs, results, the formulas used and notes, printed as an aligned
 * table for people or as one JSON object for machines.
 */
final class SizeReport {

    /**
     * One named value: typed for JSON ({@code Long}, {@code Double}, {@code Boolean}, {@code String}), shown as text.
     */
    private record Field(String key, String label, Object value, String shown) {}

    private final String title;
    private final String kind;
    private final List<Field> inputs = new ArrayList<>();
    private final List<Field> results = new ArrayList<>();
    private final List<String> formulas = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();

    SizeReport(String kind, String title) {
        this.kind = kind;
        this.title = title;
    }

    SizeReport input(String key, String label, Object value, String shown) {
        inputs.add(new Field(key, label, value, shown));
        return this;
    }

    SizeReport result(String key, String label, Object value, String shown) {
        results.add(new Field(key, label, value, shown));
        return this;
    }

    SizeReport formula(String line) {
        formulas.add(line);
        return this;
    }

    SizeReport note(String line) {
        notes.add(line);
        return this;
    }

    void print(PrintWriter out, boolean json) {
        out.println(json ? json() : table());
        out.flush();
    }

    /** The aligned table. */
    String table() {
        int width = 0;
        for (Field f : inputs) {
            width = Math.max(width, f.label().length());
        }
        for (Field f : results) {
            width = Math.max(width, f.label().length());
        }
        StringBuilder s = new StringBuilder(title).append('\n');
        section(s, "inputs", inputs, width);
        section(s, "answer", results, width);
        lines(s, "formulas", formulas);
        lines(s, "notes", notes);
        return s.toString().stripTrailing();
    }

    /** One JSON object: {@code kind}, {@code inputs}, {@code results}, {@code formulas}, {@code notes}. */
    String json() {
        StringBuilder s = new StringBuilder("{\"kind\":").append(quote(kind));
        s.append(",\"inputs\":");
        object(s, inputs);
        s.append(",\"results\":");
        object(s, results);
        s.append(",\"formulas\":");
        array(s, formulas);
        s.append(",\"notes\":");
        array(s, notes);
        return s.append('}').toString();
    }

    private static void section(StringBuilder s, String name, List<Field> fields, int width) {
        s.append("  ").append(name).append('\n');
        for (Field f : fields) {
            s.append("    ")
                    .append(String.format(Locale.ROOT, "%-" + width + "s", f.label()))
                    .append("  ")
                    .append(f.shown())
                    .append('\n');
        }
    }

    private static void lines(StringBuilder s, String name, List<String> lines) {
        if (lines.isEmpty()) {
            return;
        }
        s.append("  ").append(name).append('\n');
        for (String line : lines) {
            s.append("    ").append(line).append('\n');
        }
    }

    private static void object(StringBuilder s, List<Field> fields) {
        s.append('{');
        for (int i = 0; i < fields.size(); i++) {
            Field f = fields.get(i);
            s.append(i == 0 ? "" : ",").append(quote(f.key())).append(':').append(value(f.value()));
        }
        s.append('}');
    }

    private static void array(StringBuilder s, List<String> items) {
        s.append('[');
        for (int i = 0; i < items.size(); i++) {
            s.append(i == 0 ? "" : ",").append(quote(items.get(i)));
        }
        s.append(']');
    }

    private static String value(Object v) {
        if (v instanceof Double d) {
            return Double.isFinite(d) ? d.toString() : "null"; // JSON has no NaN or infinity
        }
        if (v instanceof Long || v instanceof Integer || v instanceof Boolean) {
            return v.toString();
        }
        return quote(String.valueOf(v));
    }

    /** A JSON string literal: quotes, backslashes and control characters escaped (RFC 8259 section 7). */
    static String quote(String text) {
        StringBuilder s = new StringBuilder(text.length() + 2).append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> s.append("\\\"");
                case '\\' -> s.append("\\\\");
                case '\n' -> s.append("\\n");
                case '\r' -> s.append("\\r");
                case '\t' -> s.append("\\t");
                case '\b' -> s.append("\\b");
                case '\f' -> s.append("\\f");
                default -> {
                    if (c < 0x20) {
                        s.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        s.append(c);
                    }
                }
            }
        }
        return s.append('"').toString();
    }

    // ---- shared text formats ----

    /** A whole number with thousands separators. */
    static String count(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }

    /** A probability with six significant digits, without trailing zeros ({@code 0.9}, {@code 0.000627122}). */
    static String probability(double p) {
        String s = String.format(Locale.ROOT, "%.6g", p);
        if (s.contains("e") || !s.contains(".")) {
            return s;
        }
        s = s.replaceAll("0+$", "");
        return s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
    }

    /** A rate in keys per second: whole rates as counts, others with six significant digits. */
    static String rate(double keysPerSecond) {
        return keysPerSecond == Math.rint(keysPerSecond) && keysPerSecond < 1e15
                ? count((long) keysPerSecond) + " keys/s"
                : String.format(Locale.ROOT, "%.6g keys/s", keysPerSecond);
    }

    /** Bytes in binary units and exactly, e.g. {@code 1.00 GiB (1,073,741,824 bytes)}. */
    static String bytes(long n) {
        return n < 1024 ? count(n) + " bytes" : Units.binary(n, 2) + String.format(Locale.ROOT, " (%,d bytes)", n);
    }

    /** A length of time in its largest sensible unit and in seconds, e.g. {@code 1.00 h (3,600 s)}. */
    static String duration(double seconds) {
        String coarse;
        if (seconds >= 1e3 * 31_557_600) {
            // beyond a thousand years the digits say nothing: a power of ten does
            return String.format(Locale.ROOT, "%.3g years (%.3g s)", seconds / 31_557_600, seconds);
        } else if (seconds >= 86_400) {
            coarse = String.format(Locale.ROOT, "%.2f d", seconds / 86_400);
        } else if (seconds >= 3_600) {
            coarse = String.format(Locale.ROOT, "%.2f h", seconds / 3_600);
        } else if (seconds >= 60) {
            coarse = String.format(Locale.ROOT, "%.2f min", seconds / 60);
        } else {
            return String.format(Locale.ROOT, "%,.3f s", seconds);
        }
        return coarse + String.format(Locale.ROOT, " (%,.0f s)", seconds);
    }
}
