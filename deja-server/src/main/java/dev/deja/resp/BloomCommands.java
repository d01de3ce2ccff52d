package dev.deja.resp;

import dev.deja.bloom.ScalingBloomFilter;
import dev.deja.namespace.BloomKind;
import dev.deja.namespace.Namespace;
import dev.deja.namespace.NamespaceException;
import dev.deja.namespace.NamespaceInfo;
import dev.deja.seen.SeenSet;
import dev.deja.seen.Verdict;
import dev.deja.server.ServerContext;
import io.netty.handler.codec.redis.RedisMessage;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * RedisBloom's {@code BF.*} commands over deja namespaces, with RedisBloom's argument rules, replies and error
 * strings, so its existing clients work unchanged. The RedisBloom key is the namespace name.
 *
 * <p>{@code BF.RESERVE} and {@code BF.INSERT} with creation options make scaling filters as RedisBloom does
 * ({@code expansion} 2 unless given; {@code NONSCALING} is expansion 0, a filter that refuses new keys once full with
 * RedisBloom's {@code ERR non scaling filter is full}); {@code BF.INFO} reports their sub-filters. A key refused by a
 * filter that cannot grow ends a {@code BF.MADD} or {@code BF.INSERT} reply with that error, as in RedisBloom. Other
 * bloom namespaces (deja's fixed-size filters, windowed ones) report one filter and a null expansion rate.
 */
final class BloomCommands {

    /** RedisBloom's defaults for a filter created by {@code BF.INSERT} with only some of its creation options. */
    private static final long DEFAULT_CAPACITY = 100;

    private static final double DEFAULT_ERROR = 0.01;
    private static final long DEFAULT_EXPANSION = 2;
    /** The expansion of a {@code NONSCALING} filter. */
    private static final long NO_EXPANSION = 0;

    private final ServerContext context;
    private final KeyAccess access;
    private final DumpTransfers transfers;

    BloomCommands(ServerContext context) {
        this.context = context;
        this.access = new KeyAccess(context);
        this.transfers = new DumpTransfers(context);
    }

    /** Adds these commands to the table. */
    void register(CommandTable commands) {
        commands.add(RespCommand.write("BF.RESERVE", -4, RespCommand.slow(notCuckoo(this::reserve))));
        commands.add(RespCommand.write("BF.ADD", 3, this::add));
        commands.add(RespCommand.write("BF.MADD", -3, this::madd));
        commands.add(RespCommand.read("BF.EXISTS", 3, this::exists));
        commands.add(RespCommand.read("BF.MEXISTS", -3, this::mexists));
        commands.add(RespCommand.write("BF.INSERT", -4, notCuckoo(this::insert)));
        commands.add(RespCommand.read("BF.INFO", -2, notCuckoo(this::info)));
        commands.add(RespCommand.read("BF.CARD", 2, notCuckoo(this::card)));
        // RedisBloom's words for an iterator that is not a number, with ERR on one of the two only
        commands.add(RespCommand.read("BF.SCANDUMP", 3, RespCommand.slow(notCuckoo((s, a) -> {
            Namespace namespace = existing(a.string(1));
            return transfers.scanDump(
                    namespace, parse(a.string(2), RespArgs::strictInteger, "Second argument must be numeric"));
        }))));
        commands.add(RespCommand.write(
                "BF.LOADCHUNK",
                4,
                RespCommand.slow((s, a) -> transfers.loadChunk(
                        Namespace.checkName(a.string(1)),
                        parse(a.string(2), RespArgs::strictInteger, "ERR Second argument must be numeric"),
                        a.bytes(3)))));
    }

    /**
     * The action, refused with Redis's {@code WRONGTYPE} when its key is a cuckoo filter or a key-value key, as
     * RedisBloom refuses a bloom command on another type; deja's other kinds take the bloom commands.
     */
    private RespCommand.Action notCuckoo(RespCommand.Action action) {
        return (session, args) -> {
            if (otherType(args.string(1))) {
                throw new RespError(RespError.WRONGTYPE);
            }
            return action.run(session, args);
        };
    }

    /**
     * The namespace a command that adds keys addresses, or null when it does not exist yet (the command creates it,
     * with {@link #writable}, once its keys are found valid); refused with {@code WRONGTYPE} when it is a cuckoo filter
     * or a key-value key, as {@link #notCuckoo} refuses it. A namespace that exists, as on every add but a filter's
     * first, is looked up once.
     */
    private Namespace existingBloom(String name) {
        Namespace namespace = access.namespaces().served(name);
        if (namespace == null ? otherType(name) : isCuckoo(namespace)) {
            throw new RespError(RespError.WRONGTYPE);
        }
        return namespace;
    }

    /** Whether the key is a cuckoo filter or a key-value key, not a bloom filter or a key that does not exist. */
    private boolean otherType(String name) {
        Optional<Namespace> namespace = access.namespaces().find(name);
        return namespace.isPresent() ? isCuckoo(namespace.get()) : access.holdsValue(name);
    }

    private static boolean isCuckoo(Namespace namespace) {
        return namespace.kind().name().equals("cuckoo");
    }

    private RedisMessage reserve(RespSession session, RespArgs args) {
        String name = Namespace.checkName(args.string(1));
        double error = errorRate(args.string(2));
        long capacity = capacity(args.string(3));
        boolean nonScaling = false;
        Long expansion = null;
        for (int i = 4; i < args.size(); i++) {
            switch (args.upper(i)) {
                case "NONSCALING" -> nonScaling = true;
                case "EXPANSION" -> {
                    if (++i >= args.size()) {
                        throw new RespError("ERR no expansion");
                    }
                    expansion = expansion(args.string(i));
                }
                default -> throw RespError.syntax();
            }
        }
        if (nonScaling && expansion != null) {
            // RedisBloom's words, without its usual ERR prefix
            throw new RespError("Nonscaling filters cannot expand");
        }
        long growth = nonScaling ? NO_EXPANSION : expansion == null ? DEFAULT_EXPANSION : expansion;
        if (!create(name, capacity, error, growth)) {
            throw new RespError("ERR item exists");
        }
        return Replies.OK;
    }

    @SuppressWarnings("FutureReturnValueIgnored") // a future reply, which RespCommands awaits (RespCommand.Action)
    private Object add(RespSession session, RespArgs args) {
        String name = args.string(1);
        Namespace namespace = existingBloom(name);
        byte[] key = access.key(args.bytes(2));
        // gathered with the other BF.ADD of this turn of the event loop into one call (Gathering), which answers
        // with one of the two replies, by whether the key was new
        boolean resp3 = session.resp3();
        return Gathering.current()
                .checkThenAdd(
                        namespace != null ? namespace : writable(name),
                        key,
                        Replies.bool(resp3, true),
                        Replies.bool(resp3, false));
    }

    @SuppressWarnings("FutureReturnValueIgnored") // a future reply, which RespCommands awaits (RespCommand.Action)
    private Object madd(RespSession session, RespArgs args) {
        String name = args.string(1);
        Namespace existing = existingBloom(name);
        List<byte[]> keys = access.keys(args.from(2));
        boolean resp3 = session.resp3();
        Namespace namespace = existing != null ? existing : writable(name);
        return namespace.checkThenAdd(keys, null).thenApply(verdicts -> added(resp3, namespace, verdicts));
    }

    private RedisMessage exists(RespSession session, RespArgs args) {
        SeenSet store = bloomIfExists(args.string(1));
        byte[] key = access.key(args.bytes(2));
        return Replies.bool(session.resp3(), store != null && store.check(key));
    }

    private RedisMessage mexists(RespSession session, RespArgs args) {
        List<byte[]> keys = access.keys(args.from(2));
        SeenSet store = bloomIfExists(args.string(1));
        boolean[] held = store == null ? new boolean[keys.size()] : store.checkAll(keys);
        List<RedisMessage> replies = new ArrayList<>(held.length);
        for (boolean h : held) {
            replies.add(Replies.bool(session.resp3(), h));
        }
        return Replies.array(replies);
    }

    /** The store to check, or null when the key does not exist or is a cuckoo filter: RedisBloom answers 0 then. */
    private SeenSet bloomIfExists(String name) {
        return access.namespaces()
                .find(name)
                .filter(n -> !isCuckoo(n))
                .map(Namespace::store)
                .orElse(null);
    }

    @SuppressWarnings("FutureReturnValueIgnored") // a future reply, which RespCommands awaits (RespCommand.Action)
    private Object insert(RespSession session, RespArgs args) {
        String name = Namespace.checkName(args.string(1));
        // RedisBloom's BF.INSERT has error strings of its own (no ERR prefix), and checks the values' range only
        // once it has found the items
        Long capacity = null;
        Double error = null;
        Long expansion = null;
        boolean noCreate = false;
        boolean nonScaling = false;
        int i = 2;
        for (; i < args.size(); i++) {
            String option = args.upper(i);
            if (option.equals("ITEMS")) {
                break;
            }
            switch (option) {
                case "CAPACITY" -> capacity = parse(value(args, ++i), RespArgs::strictInteger, "Bad capacity");
                case "ERROR" -> error = parse(value(args, ++i), BloomCommands::strictDouble, "Bad error rate");
                case "EXPANSION" -> expansion = parse(value(args, ++i), RespArgs::strictInteger, "Bad expansion");
                case "NOCREATE" -> noCreate = true;
                case "NONSCALING" -> nonScaling = true;
                default -> throw new RespError("Unknown argument received");
            }
        }
        if (i + 1 >= args.size()) {
            throw RespError.arity("bf.insert");
        }
        if ((capacity != null && capacity < 1)
                || (error != null && !(error > 0 && error < 1))
                || (expansion != null && (expansion < 1 || expansion > ScalingBloomFilter.MAX_EXPANSION))) {
            throw new RespError("Bad argument received");
        }
        if (noCreate && (capacity != null || error != null)) {
            throw new RespError("ERR NOCREATE cannot be used together with CAPACITY or ERROR");
        }
        List<byte[]> keys = access.keys(args.from(i + 1));
        if (access.ifExists(name) == null) {
            if (noCreate) {
                throw new RespError("ERR not found");
            }
            if (capacity != null || error != null || expansion != null || nonScaling) {
                // false when another client created it since: the items go into that filter, as in RedisBloom
                create(
                        name,
                        capacity == null ? DEFAULT_CAPACITY : capacity,
                        error == null ? DEFAULT_ERROR : error,
                        nonScaling ? NO_EXPANSION : expansion == null ? DEFAULT_EXPANSION : expansion);
            }
        }
        Namespace namespace = writable(name);
        boolean resp3 = session.resp3();
        return namespace.checkThenAdd(keys, null).thenApply(verdicts -> added(resp3, namespace, verdicts));
    }

    private RedisMessage info(RespSession session, RespArgs args) {
        if (args.size() > 3) {
            throw RespError.arity("bf.info");
        }
        Namespace namespace = existing(args.string(1));
        NamespaceInfo info = namespace.info();
        ScalingBloomFilter scaling = BloomKind.scaling(namespace);
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("Capacity", scaling == null ? info.capacity() : scaling.totalCapacity());
        fields.put("Size", info.stats().memoryBytes());
        fields.put("Number of filters", scaling == null ? 1L : scaling.filters());
        fields.put("Number of items inserted", namespace.durableStore().addedCount());
        fields.put("Expansion rate", scaling == null || !scaling.scales() ? null : (long) scaling.expansion());
        if (args.size() == 2) {
            return Replies.fields(session, fields);
        }
        String field = switch (args.upper(2)) {
            case "CAPACITY" -> "Capacity";
            case "SIZE" -> "Size";
            case "FILTERS" -> "Number of filters";
            case "ITEMS" -> "Number of items inserted";
            case "EXPANSION" -> "Expansion rate";
            default -> throw new RespError("ERR Invalid information value");
        };
        if (session
                .resp3()) { // RedisBloom: a map of that one field under RESP3, its bare value in an array under RESP2
            return Replies.fields(session, Collections.singletonMap(field, fields.get(field)));
        }
        Object value = fields.get(field);
        return Replies.array(
                List.of(value == null ? Replies.nil(session) : Replies.integer(((Number) value).longValue())));
    }

    /** {@code BF.CARD}: the adds that answered 1, as RedisBloom counts them; 0 for a key that does not exist. */
    private RedisMessage card(RespSession session, RespArgs args) {
        return Replies.integer(access.namespaces()
                .find(args.string(1))
                .map(n -> n.durableStore().addedCount())
                .orElse(0L));
    }

    /** Creates a scaling filter ({@code expansion} 0: one that does not scale); false when it exists already. */
    private boolean create(String name, long capacity, double error, long expansion) {
        try {
            context.namespaces()
                    .create(
                            name,
                            "bloom",
                            Map.of(
                                    "capacity",
                                    Long.toString(capacity),
                                    "fpp",
                                    Double.toString(error),
                                    "expansion",
                                    Long.toString(expansion)));
            return true;
        } catch (NamespaceException e) {
            if (e.problem() != NamespaceException.Problem.EXISTS) {
                throw e; // a refusal of its own (no memory, too many namespaces), answered as such
            }
            return false;
        }
    }

    private Namespace writable(String name) {
        try {
            return access.forWriting(name); // validates the name when it is not an existing namespace
        } catch (NamespaceException e) {
            if (e.problem() != NamespaceException.Problem.UNKNOWN) {
                throw e; // created on first use, and refused (no memory, too many namespaces)
            }
            throw new RespError("ERR not found");
        }
    }

    private Namespace existing(String name) {
        return access.namespaces().find(name).orElseThrow(() -> new RespError("ERR not found"));
    }

    /**
     * The answers, as RedisBloom gives them: up to the first key the filter could not record (answered
     * {@link Verdict#RETRY}), whose place holds the error and ends the reply.
     */
    private static RedisMessage added(boolean resp3, Namespace namespace, Verdict[] verdicts) {
        List<RedisMessage> replies = new ArrayList<>(verdicts.length);
        for (Verdict verdict : verdicts) {
            if (verdict == Verdict.RETRY) {
                replies.add(Replies.error(refusal(namespace)));
                break;
            }
            replies.add(Replies.bool(resp3, verdict == Verdict.NEW));
        }
        return Replies.array(replies);
    }

    /** Why the namespace's filter refused a key: RedisBloom's words for a full filter that does not scale. */
    static String refusal(Namespace namespace) {
        ScalingBloomFilter scaling = BloomKind.scaling(namespace);
        if (scaling == null || !scaling.scales()) {
            return "ERR non scaling filter is full";
        }
        String why = scaling.refusal();
        return "ERR " + (why == null ? "the filter cannot grow" : why);
    }

    private static String value(RespArgs args, int index) {
        if (index >= args.size()) {
            throw RespError.arity("bf.insert");
        }
        return args.string(index);
    }

    private static <T> T parse(String text, Function<String, T> parser, String refusal) {
        try {
            return parser.apply(text);
        } catch (NumberFormatException e) {
            throw new RespError(refusal);
        }
    }

    /**
     * A number as Redis reads one (its {@code string2d}): {@link Double#parseDouble} also takes blanks around it, a
     * Java type suffix ({@code 0.01d}) and NaN, which Redis refuses.
     */
    private static double strictDouble(String text) {
        if (text.trim().length() != text.length()
                || (!text.isEmpty() && "dDfF".indexOf(text.charAt(text.length() - 1)) >= 0)) {
            throw new NumberFormatException("not a number as Redis reads one: " + text);
        }
        double value = Double.parseDouble(text);
        if (Double.isNaN(value)) {
            throw new NumberFormatException("not a number as Redis reads one: " + text);
        }
        return value;
    }

    private static double errorRate(String text) {
        double error = parse(text, BloomCommands::strictDouble, "ERR bad error rate");
        if (!(error > 0 && error < 1)) {
            throw new RespError("ERR (0 < error rate range < 1)");
        }
        return error;
    }

    private static long capacity(String text) {
        long capacity = parse(text, RespArgs::strictInteger, "ERR bad capacity");
        if (capacity <= 0) {
            throw new RespError("ERR (capacity should be larger than 0)");
        }
        return capacity;
    }

    private static long expansion(String text) {
        long expansion = parse(text, RespArgs::strictInteger, "ERR bad expansion");
        if (expansion < 1 || expansion > ScalingBloomFilter.MAX_EXPANSION) {
            throw new RespError("ERR bad expansion");
        }
        return expansion;
    }
}
