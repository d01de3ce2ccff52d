package dev.deja.resp;

import io.micrometer.core.instrument.Counter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Function;

/**
 * The commands by name, found from the name's bytes in any case without building a string: a command name is
 * looked up for every request, which should not pay for an upper-cased copy of it.
 * Open addressing over a table at most a quarter full; each entry also holds the command's operations counter.
 */
final class CommandTable {

    /** A command and its counter, resolved on first use. */
    static final class Entry {
        final RespCommand command;
        private final Function<RespCommand, Counter> counters;
        private volatile Counter counter;

        private Entry(RespCommand command, Function<RespCommand, Counter> counters) {
            this.command = command;
            this.counters = counters;
        }

        /** The counter of this command's operations (created by the metrics registry on first use). */
        Counter counter() {
            Counter c = counter;
            if (c == null) {
                c = counters.apply(command);
                counter = c;
            }
            return c;
        }
    }

    private final Function<RespCommand, Counter> counters;
    private Entry[] slots = new Entry[64];
    private int size;

    /** A table whose entries get their counter from {@code counters}. */
    CommandTable(Function<RespCommand, Counter> counters) {
        this.counters = counters;
    }

    /** Adds the command; one added under the same name before is replaced. */
    void add(RespCommand command) {
        if (4 * (size + 1) > slots.length) {
            Entry[] old = slots;
            slots = new Entry[old.length * 2];
            for (Entry e : old) {
                if (e != null) {
                    place(e);
                }
            }
        }
        byte[] name = command.name().getBytes(StandardCharsets.US_ASCII);
        int i = index(hash(name));
        for (; slots[i] != null; i = (i + 1) & (slots.length - 1)) {
            if (slots[i].command.name().equals(command.name())) {
                slots[i] = new Entry(command, counters); // a later registration replaces an earlier one
                return;
            }
        }
        slots[i] = new Entry(command, counters);
        size++;
    }

    /** The entry of the command named by the request's first argument, in any case, or null. */
    Entry find(RespArgs args) {
        byte[] name = args.bytes(0);
        for (int i = index(hash(name)); slots[i] != null; i = (i + 1) & (slots.length - 1)) {
            if (args.is(0, slots[i].command.name())) {
                return slots[i];
            }
        }
        return null;
    }

    /** The command with this upper-case name, or null. */
    RespCommand find(String name) {
        byte[] bytes = name.getBytes(StandardCharsets.US_ASCII);
        for (int i = index(hash(bytes)); slots[i] != null; i = (i + 1) & (slots.length - 1)) {
            if (slots[i].command.name().equals(name)) {
                return slots[i].command;
            }
        }
        return null;
    }

    /** Every command, by name. */
    List<RespCommand> all() {
        List<RespCommand> all = new ArrayList<>(size);
        for (Entry e : slots) {
            if (e != null) {
                all.add(e.command);
            }
        }
        all.sort(Comparator.comparing(RespCommand::name));
        return all;
    }

    private void place(Entry e) {
        byte[] name = e.command.name().getBytes(StandardCharsets.US_ASCII);
        int i = index(hash(name));
        while (slots[i] != null) {
            i = (i + 1) & (slots.length - 1);
        }
        slots[i] = e;
    }

    private int index(int hash) {
        return (hash ^ (hash >>> 16)) & (slots.length - 1);
    }

    /** A hash of the ASCII upper case of the bytes, so that "get", "Get" and "GET" meet. */
    private static int hash(byte[] name) {
        int h = 0;
        for (byte b : name) {
            h = 31 * h + (b >= 'a' && b <= 'z' ? b - ('a' - 'A') : b);
        }
        return h;
    }
}
