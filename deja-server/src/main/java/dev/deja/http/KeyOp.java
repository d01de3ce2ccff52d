package dev.deja.http;

import java.util.Locale;

/** The key operations, as the paths of the single-key endpoints and the batch's {@code op} name them. */
enum KeyOp {
    CHECK,
    ADD,
    CHECKTHENADD,
    FORGET;

    private final String label = name().toLowerCase(Locale.ROOT); // once: it is needed per request

    /** The path's and the batch's name of the operation, and its name in the metrics. */
    String label() {
        return label;
    }

    /** The operation a batch's {@code op} names, or a 400 listing them. */
    static KeyOp parse(String text) {
        for (KeyOp op : values()) {
            if (op.label().equals(text)) {
                return op;
            }
        }
        throw HttpProblem.badRequest("op must be one of check, add, checkthenadd, forget (got "
                + (text == null ? "none" : "'" + text + "'") + ")");
    }
}
