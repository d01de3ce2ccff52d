package dev.deja.resp;

import dev.deja.cuckoo.CuckooFilter;
import dev.deja.namespace.CuckooKind;
import dev.deja.namespace.Namespace;
import dev.deja.namespace.NamespaceException;
import dev.deja.namespace.NamespaceSpec;
import dev.deja.seen.Verdict;
import dev.deja.server.ServerContext;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.IntegerRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * RedisBloom's cuckoo filter commands ({@code CF.*}) over deja's {@code cuckoo} namespaces, with RedisBloom's argument
 * rules, replies and error strings (its {@code src/rebloom.c}), so its clients work unchanged. The RedisBloom key is
 * the namespace name. A namespace of another kind is answered {@code WRONGTYPE} where RedisBloom answers it so.
 *
 * <p>{@code CF.ADD} and {@code CF.INSERT} insert one more copy of each item ({@link CuckooFilter#ANOTHER_COPY});
 * {@code CF.ADDNX} and {@code CF.INSERTNX} add an item only when it is not held. Both are journaled as such.
 */
final class CuckooCommands {

    /** RedisBloom's capacity of a filter created by {@code CF.ADD} or {@code CF.INSERT} without CAPACITY. */
    private static final long DEFAULT_CAPACITY = 1024;

    private final ServerContext context;
    private final KeyAccess access;
    private final DumpTransfers transfers;

    CuckooCommands(ServerContext context) {
        this.context = context;
        this.access = new KeyAccess(context);
        this.transfers = new DumpTransfers(context);
    }

    /** Adds these commands to the table. */
    void register(CommandTable commands) {
        commands.add(RespCommand.write("CF.RESERVE", -3, RespCommand.slow(this::reserve)));
        commands.add(RespCommand.write("CF.ADD", 3, (s, a) -> add(s, a, /* nx= */ false)));
        commands.add(RespCommand.write("CF.ADDNX", 3, (s, a) -> add(s, a, /* nx= */ true)));
        commands.add(RespCommand.write("CF.INSERT", -4, (s, a) -> insert(a, /* nx= */ false)));
        commands.add(RespCommand.write("CF.INSERTNX", -4, (s, a) -> insert(a, /* nx= */ true)));
        commands.add(RespCommand.read("CF.EXISTS", 3, this::exists));
        commands.add(RespCommand.read("CF.MEXISTS", -3, this::mexists));
        commands.add(RespCommand.read("CF.COUNT", 3, this::count));
        commands.add(RespCommand.write("CF.DEL", 3, this::del));
        commands.add(RespCommand.read("CF.INFO", 2, this::info));
        commands.add(RespCommand.read("CF.SCANDUMP", 3, RespCommand.slow(this::scanDump)));
        commands.add(RespCommand.write("CF.LOADCHUNK", 4, RespCommand.slow(this::loadChunk)));
    }

    private RedisMessage reserve(RespSession session, RespArgs args) {
        if (args.size() % 2 == 0) {
            throw RespError.arity(args.string(0));
        }
        String name = Namespace.checkName(args.string(1));
        long capacity = parse(args.string(2), "Bad capacity");
        // RedisBloom finds each option by its name, and checks them in this order
        long maxIterations = option(args, "MAXITERATIONS", 20, 1, "positive");
        long bucketSize = option(args, "BUCKETSIZE", 2, 1, "positive");
        long expansion = option(args, "EXPANSION", 1, 0, "non-negative");
        if (bucketSize * 2 > capacity) {
            throw new RespError("Capacity must be at least (BucketSize * 2)");
        }
        // deja's bounds, which RedisBloom does not have or states otherwise
        atMost("BUCKETSIZE", bucketSize, CuckooFilter.MAX_BUCKET_SIZE);
        atMost("MAXITERATIONS", maxIterations, 65535);
        atMost("EXPANSION", expansion, CuckooFilter.MAX_EXPANSION);
        Optional<Namespace> existing = access.namespaces().find(name);
        if (existing.isPresent()) {
            throw new RespError(CuckooKind.filter(existing.get()) == null ? RespError.WRONGTYPE : "ERR item exists");
        }
        if (access.holdsValue(name)) {
            throw new RespError(RespError.WRONGTYPE);
        }
        try {
            context.namespaces().create(name, "cuckoo", parameters(capacity, bucketSize, maxIterations, expansion));
        } catch (NamespaceException e) {
            if (e.problem() != NamespaceException.Problem.EXISTS) {
                throw e;
            }
            throw new RespError("ERR item exists");
        }
        return Replies.OK;
    }

    @SuppressWarnings("FutureReturnValueIgnored") // a future reply, which RespCommands awaits (RespCommand.Action)
    private Object add(RespSession session, RespArgs args, boolean nx) {
        String name = Namespace.checkName(args.string(1));
        byte[] key = access.key(args.bytes(2));
        Namespace namespace = forAdding(name, DEFAULT_CAPACITY, /* create= */ true);
        boolean resp3 = session.resp3();
        return namespace.checkThenAdd(List.of(key), owners(1, nx)).thenApply(verdicts -> switch (verdicts[0]) {
            case NEW -> Replies.bool(resp3, true);
            case DUPLICATE -> Replies.bool(resp3, false);
            case RETRY -> Replies.error("Filter is full");
        });
    }

    @SuppressWarnings("FutureReturnValueIgnored") // a future reply, which RespCommands awaits (RespCommand.Action)
    private Object insert(RespArgs args, boolean nx) {
        String name = Namespace.checkName(args.string(1));
        long capacity = DEFAULT_CAPACITY;
        boolean create = true;
        int items = -1;
        int i = 2;
        // RedisBloom reads each option by its first letter
        while (i < args.size() && items < 0) {
            String option = args.string(i);
            char first = option.isEmpty() ? 0 : Character.toLowerCase(option.charAt(0));
            switch (first) {
                case 'c' -> {
                    if (++i == args.size()) {
                        throw RespError.arity(args.string(0));
                    }
                    capacity = parse(args.string(i++), "Bad capacity");
                    if (2 * CuckooFilter.DEFAULT_BUCKET_SIZE > capacity) {
                        throw new RespError("Capacity must be at least (BucketSize * 2)");
                    }
                }
                case 'i' -> items = ++i;
                case 'n' -> {
                    create = false;
                    i++;
                }
                default -> throw new RespError("Unknown argument received");
            }
        }
        if (items < 0 || items == args.size()) {
            throw RespError.arity(args.string(0));
        }
        List<byte[]> keys = access.keys(args.from(items));
        Namespace namespace = forAdding(name, capacity, create);
        return namespace.checkThenAdd(keys, owners(keys.size(), nx)).thenApply(verdicts -> {
            List<RedisMessage> replies = new ArrayList<>(verdicts.length);
            for (Verdict verdict : verdicts) {
                replies.add(Replies.integer(
                        switch (verdict) {
                            case NEW -> 1;
                            case DUPLICATE -> 0;
                            case RETRY -> -1;
                        }));
            }
            return Replies.array(replies);
        });
    }

    private RedisMessage exists(RespSession session, RespArgs args) {
        CuckooFilter filter = ifCuckoo(args.string(1));
        byte[] key = access.key(args.bytes(2));
        // a lookup that stops at the first sub-filter holding the key, where CF.COUNT reads them all
        return Replies.bool(session.resp3(), filter != null && filter.check(key));
    }

    private RedisMessage mexists(RespSession session, RespArgs args) {
        List<byte[]> keys = access.keys(args.from(2));
        CuckooFilter filter = ifCuckoo(args.string(1));
        List<RedisMessage> replies = new ArrayList<>(keys.size());
        for (byte[] key : keys) {
            replies.add(Replies.bool(session.resp3(), filter != null && filter.check(key)));
        }
        return Replies.array(replies);
    }

    private RedisMessage count(RespSession session, RespArgs args) {
        CuckooFilter filter = ifCuckoo(args.string(1));
        byte[] key = access.key(args.bytes(2));
        return Replies.integer(filter == null ? 0 : filter.count(key));
    }

    @SuppressWarnings("FutureReturnValueIgnored") // a future reply, which RespCommands awaits (RespCommand.Action)
    private Object del(RespSession session, RespArgs args) {
        String name = Namespace.checkName(args.string(1));
        byte[] key = access.key(args.bytes(2));
        Namespace namespace = access.namespaces().find(name).orElse(null);
        if (namespace == null || CuckooKind.filter(namespace) == null) {
            throw new RespError("Not found"); // RedisBloom's words for a missing key and for one of another type
        }
        boolean resp3 = session.resp3();
        return namespace.forget(List.of(key), null).thenApply(erased -> Replies.bool(resp3, erased[0]));
    }

    private RedisMessage info(RespSession session, RespArgs args) {
        CuckooFilter filter = existing(args.string(1));
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("Size", filter.memoryBytes());
        fields.put("Number of buckets", filter.firstTableBuckets());
        fields.put("Number of filters", (long) filter.tables());
        fields.put("Number of items inserted", filter.items());
        fields.put("Number of items deleted", filter.deletes());
        fields.put("Bucket size", (long) filter.bucketSize());
        fields.put("Expansion rate", (long) filter.expansion());
        fields.put("Max iterations", (long) filter.maxIterations());
        return Replies.fields(session, fields);
    }

    private RedisMessage scanDump(RespSession session, RespArgs args) {
        long iterator = parse(args.string(2), "Invalid position");
        String name = Namespace.checkName(args.string(1));
        CuckooFilter filter = existing(name);
        if (filter.items() == 0) { // RedisBloom dumps nothing of an empty filter
            return Replies.array(List.of(Replies.integer(0), Replies.nil(session)));
        }
        RedisMessage reply = transfers.scanDump(access.namespaces().find(name).orElseThrow(), iterator);
        // RedisBloom ends a cuckoo dump with a null chunk (a bloom dump with an empty one)
        if (reply instanceof ArrayRedisMessage array
                && array.children().get(0) instanceof IntegerRedisMessage next
                && next.value() == 0) {
            return Replies.array(List.of(Replies.integer(0), Replies.nil(session)));
        }
        return reply;
    }

    private Object loadChunk(RespSession session, RespArgs args) {
        String name = Namespace.checkName(args.string(1));
        long iterator = parse(args.string(2), "Invalid position");
        if (iterator == 0) {
            throw new RespError("Invalid position");
        }
        Namespace namespace = access.namespaces().find(name).orElse(null);
        if (namespace != null && CuckooKind.filter(namespace) == null) {
            throw new RespError(RespError.WRONGTYPE);
        }
        return transfers.loadChunk(name, iterator, args.bytes(3));
    }

    /**
     * The cuckoo namespace to add to: created with RedisBloom's defaults and {@code capacity} when it does not exist
     * and {@code create} (and the server's auto-create) allow it.
     */
    private Namespace forAdding(String name, long capacity, boolean create) {
        Optional<Namespace> found;
        try {
            found = access.namespaces().getOrEmpty(name); // refused as unknown when auto-create is off
        } catch (NamespaceException e) {
            if (e.problem() != NamespaceException.Problem.UNKNOWN) {
                throw e;
            }
            throw new RespError("ERR not found");
        }
        if (found.isEmpty() && access.holdsValue(name)) {
            throw new RespError(RespError.WRONGTYPE);
        }
        if (found.isEmpty() && !create) {
            throw new RespError("ERR not found");
        }
        Namespace namespace = found.orElseGet(() -> access.namespaces()
                .getOrCreate(
                        name,
                        new NamespaceSpec(
                                "cuckoo",
                                parameters(
                                        capacity,
                                        CuckooFilter.DEFAULT_BUCKET_SIZE,
                                        CuckooFilter.DEFAULT_MAX_ITERATIONS,
                                        CuckooFilter.DEFAULT_EXPANSION))));
        CuckooFilter filter = CuckooKind.filter(namespace);
        if (filter == null) {
            throw new RespError(RespError.WRONGTYPE);
        }
        if (filter.tables() >= CuckooFilter.MAX_TABLES) {
            throw new RespError("Maximum expansions reached");
        }
        return namespace;
    }

    /** The filter of an existing cuckoo namespace; {@code ERR not found} or {@code WRONGTYPE} else. */
    private CuckooFilter existing(String name) {
        Namespace namespace = access.namespaces()
                .find(name)
                .orElseThrow(() -> new RespError(access.holdsValue(name) ? RespError.WRONGTYPE : "ERR not found"));
        CuckooFilter filter = CuckooKind.filter(namespace);
        if (filter == null) {
            throw new RespError(RespError.WRONGTYPE);
        }
        return filter;
    }

    /** The filter, or null when the namespace does not exist or is of another kind (RedisBloom then answers 0). */
    private CuckooFilter ifCuckoo(String name) {
        return access.namespaces().find(name).map(CuckooKind::filter).orElse(null);
    }

    private static long[] owners(int keys, boolean nx) {
        if (nx) {
            return null;
        }
        long[] owners = new long[keys];
        Arrays.fill(owners, CuckooFilter.ANOTHER_COPY);
        return owners;
    }

    private static Map<String, String> parameters(long capacity, long bucketSize, long maxIterations, long expansion) {
        return Map.of(
                "capacity", Long.toString(capacity),
                "bucketsize", Long.toString(bucketSize),
                "maxiterations", Long.toString(maxIterations),
                "expansion", Long.toString(expansion));
    }

    /** The value after the option named {@code name}, or its default; RedisBloom's words when it is bad. */
    private static long option(RespArgs args, String name, long defaultValue, long min, String kind) {
        for (int i = 3; i + 1 < args.size(); i += 2) {
            if (args.upper(i).equals(name)) {
                long value = parse(args.string(i + 1), "Couldn't parse " + name);
                if (value < min) {
                    throw new RespError(name + " parameter needs to be a " + kind + " integer");
                }
                return value;
            }
        }
        return defaultValue;
    }

    private static void atMost(String name, long value, long max) {
        if (value > max) {
            throw new RespError("ERR " + name + " must be at most " + max + " (got " + value + ")");
        }
    }

    private static long parse(String text, String refusal) {
        try {
            return RespArgs.strictInteger(text);
        } catch (NumberFormatException e) {
            throw new RespError(refusal);
        }
    }
}
