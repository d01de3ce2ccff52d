package dev.deja.resp;

import java.util.Locale;

/** A command refused with a Redis error reply; the message includes the error prefix ({@code ERR}, ...). */
final class RespError extends RuntimeException {

    /** Redis's error for a command of one kind on a key of another. */
    static final String WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value";

    RespError(String message) {
        super(message, null, false, false);
    }

    static RespError arity(String command) {
        return new RespError("ERR wrong number of arguments for '" + command.toLowerCase(Locale.ROOT) + "' command");
    }

    static RespError syntax() {
        return new RespError("ERR syntax error");
    }

    static RespError notInteger() {
        return new RespError("ERR value is not an integer or out of range");
    }
}
