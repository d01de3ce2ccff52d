package dev.deja.resp;

import dev.deja.server.ServerContext;
import io.netty.handler.codec.redis.RedisMessage;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The connection commands real clients and tools send: PING, ECHO, QUIT, AUTH, HELLO, SELECT, CLIENT, COMMAND,
 * INFO and CONFIG GET.
 */
final class ConnectionCommands {

    /** What an unknown subcommand's error suggests. */
    private static final String CLIENT_HINT = "Try CLIENT SETNAME, GETNAME, ID or SETINFO.";

    private static final String COMMAND_HINT = "Try COMMAND, COMMAND COUNT, COMMAND INFO or COMMAND DOCS.";

    private static final String MODULE_HINT = "Try MODULE HELP.";

    /**
     * The module deja stands in for, as {@code MODULE LIST} and {@code HELLO} name it: RedisBloom's {@code bf} at the
     * version of RedisBloom 2.6.12, whose BF.* commands deja answers, so that clients which look for the module
     * before sending BF.* find it.
     */
    static final String BLOOM_MODULE = "bf";

    static final int BLOOM_MODULE_VERSION = 20612;

    private final ServerContext context;
    private final CommandTable commands;
    private final byte[] password;

    /** The connection commands, which add themselves to {@code commands} and describe what it holds. */
    ConnectionCommands(ServerContext context, CommandTable commands) {
        this.context = context;
        this.commands = commands;
        String configured = context.config().password();
        this.password = configured == null ? null : configured.getBytes(StandardCharsets.UTF_8);
    }

    /** Adds these commands to the table. */
    void register() {
        commands.add(RespCommand.read("PING", -1, this::ping));
        commands.add(RespCommand.read("ECHO", 2, (s, a) -> Replies.bulk(a.bytes(1))));
        commands.add(RespCommand.connection("QUIT", -1, (s, a) -> {
            s.closing = true;
            return Replies.OK;
        }));
        commands.add(RespCommand.connection("AUTH", -2, this::auth));
        commands.add(RespCommand.connection("RESET", 1, this::reset));
        commands.add(RespCommand.connection("HELLO", -1, this::hello));
        commands.add(RespCommand.read("SELECT", 2, (s, a) -> {
            if (a.integer(1) != 0) {
                throw new RespError("ERR DB index is out of range");
            }
            return Replies.OK;
        }));
        commands.add(RespCommand.read("CLIENT", -2, this::client)
                .withSubcommands(
                        subcommands("client", Map.of("SETNAME", 3, "GETNAME", 2, "ID", 2, "SETINFO", 4), CLIENT_HINT)));
        commands.add(RespCommand.read("COMMAND", -1, this::command)
                .withSubcommands(subcommands("command", Map.of("COUNT", 2, "DOCS", -2, "INFO", -2), COMMAND_HINT)));
        commands.add(RespCommand.read("INFO", -1, this::info));
        commands.add(RespCommand.read("MODULE", -2, this::module)
                .withSubcommands(subcommands(
                        "module", Map.of("LIST", 2, "LOAD", -3, "LOADEX", -3, "UNLOAD", 3, "HELP", 2), MODULE_HINT)));
        // only GET is served, but the others are Redis's and refused when they run, as Redis runs them
        commands.add(RespCommand.read("CONFIG", -2, this::config)
                .withSubcommands(subcommands("config", Map.of("GET", -3), null)));
    }

    /**
     * The check Redis 7 makes of a subcommand before running it (or queueing it inside MULTI): known, and with its
     * own arity ({@code arities}, Redis's convention). An unknown one is refused with {@code hint}, or, when it is
     * null, left to the command itself.
     */
    private static RespCommand.Check subcommands(String command, Map<String, Integer> arities, String hint) {
        return args -> {
            if (args.size() < 2) {
                return null; // COMMAND alone
            }
            Integer arity = arities.get(args.upper(1));
            if (arity == null) {
                return hint == null ? null : "ERR unknown subcommand '" + args.string(1) + "'. " + hint;
            }
            return RespCommand.arityFits(arity, args.size())
                    ? null
                    : RespError.arity(command + "|" + args.string(1)).getMessage();
        };
    }

    private RedisMessage ping(RespSession session, RespArgs args) {
        if (args.size() > 2) {
            throw RespError.arity("ping");
        }
        return args.size() == 2 ? Replies.bulk(args.bytes(1)) : Replies.simple("PONG");
    }

    private RedisMessage auth(RespSession session, RespArgs args) {
        if (args.size() > 3) {
            throw RespError.syntax();
        }
        if (password == null && args.size() == 2) {
            throw new RespError("ERR AUTH <password> called without any password configured for the default user."
                    + " Are you sure your configuration is correct?");
        }
        authenticate(session, args.size() == 3 ? args.string(1) : "default", args.bytes(args.size() - 1));
        return Replies.OK;
    }

    /**
     * As Redis's ACL answers {@code AUTH user pass}: the only user is {@code default}; without {@code --password} it
     * takes any password (Redis's "nopass"), so clients that always send credentials still connect.
     */
    private void authenticate(RespSession session, String user, byte[] given) {
        if (!user.equals("default") || (password != null && !MessageDigest.isEqual(password, given))) {
            throw new RespError("WRONGPASS invalid username-password pair or user is disabled.");
        }
        session.authenticated = true;
    }

    private RedisMessage hello(RespSession session, RespArgs args) {
        int protocol = session.protocol;
        int i = 1;
        if (args.size() > 1) {
            long requested;
            try {
                requested = RespArgs.strictInteger(args.string(1));
            } catch (NumberFormatException e) {
                throw new RespError("ERR Protocol version is not an integer or out of range");
            }
            if (requested != 2 && requested != 3) {
                throw new RespError("NOPROTO unsupported protocol version");
            }
            protocol = (int) requested;
            i = 2;
        }
        // every option is read and checked before any takes effect, as Redis does: a HELLO refused for a later
        // option neither authenticates the connection nor names it
        String clientName = session.clientName;
        String user = null;
        byte[] given = null;
        for (; i < args.size(); i++) {
            String option = args.upper(i);
            if (option.equals("AUTH") && i + 2 < args.size()) {
                user = args.string(i + 1); // given twice, the last counts
                given = args.bytes(i + 2);
                i += 2;
            } else if (option.equals("SETNAME") && i + 1 < args.size()) {
                clientName = clientName(args.string(++i));
            } else {
                throw new RespError("ERR Syntax error in HELLO option '" + args.string(i) + "'");
            }
        }
        if (user != null) {
            authenticate(session, user, given);
        }
        if (!session.authenticated) {
            throw new RespError("NOAUTH HELLO must be called with the client already authenticated, otherwise the"
                    + " HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and select"
                    + " the RESP protocol version at the same time");
        }
        session.protocol = protocol;
        session.clientName = clientName;
        List<RedisMessage> fields = new ArrayList<>();
        field(fields, "server", Replies.bulk("deja"));
        field(fields, "version", Replies.bulk(ServerContext.REDIS_VERSION)); // deja's own is INFO's deja_version
        field(fields, "proto", Replies.integer(protocol));
        field(fields, "id", Replies.integer(session.id));
        field(fields, "mode", Replies.bulk("standalone"));
        field(fields, "role", Replies.bulk("master"));
        field(fields, "modules", Replies.array(List.of(bloomModule(session))));
        return Replies.map(session, fields);
    }

    /** {@code MODULE LIST}: the one module deja stands in for; the other subcommands are refused as Redis does. */
    private RedisMessage module(RespSession session, RespArgs args) {
        return switch (args.upper(1)) {
            case "LIST" -> Replies.array(List.of(bloomModule(session)));
            case "HELP" ->
                Replies.array(List.of(
                        Replies.bulk("MODULE <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"),
                        Replies.bulk("LIST"),
                        Replies.bulk("    Return a list of loaded modules."),
                        Replies.bulk("HELP"),
                        Replies.bulk("    Print this help.")));
            case "LOAD", "LOADEX" ->
                throw new RespError("ERR Error loading the extension. Please check the server logs.");
            default -> throw new RespError("ERR Error unloading module: no such module with that name");
        };
    }

    /** The module's entry as Redis lists one: name, version, path and load arguments. */
    private static RedisMessage bloomModule(RespSession session) {
        List<RedisMessage> fields = new ArrayList<>();
        field(fields, "name", Replies.bulk(BLOOM_MODULE));
        field(fields, "ver", Replies.integer(BLOOM_MODULE_VERSION));
        field(fields, "path", Replies.bulk("deja"));
        field(fields, "args", Replies.array(List.of()));
        return Replies.map(session, fields);
    }

    /**
     * {@code RESET} (Redis 6.2): the connection as it was when it opened. An open transaction is discarded, the
     * protocol is RESP2 again, the client name is cleared, and with {@code --password} the client must authenticate
     * again: a client can start over without reconnecting.
     */
    private RedisMessage reset(RespSession session, RespArgs args) {
        session.transaction = null;
        session.protocol = 2;
        session.clientName = null;
        session.authenticated = password == null;
        return Replies.simple("RESET");
    }

    /** CLIENT's subcommands, their names and arities checked before (see {@link #subcommands}). */
    private RedisMessage client(RespSession session, RespArgs args) {
        return switch (args.upper(1)) {
            case "SETNAME" -> {
                session.clientName = clientName(args.string(2));
                yield Replies.OK;
            }
            case "GETNAME" -> session.clientName == null ? Replies.nil(session) : Replies.bulk(session.clientName);
            case "ID" -> Replies.integer(session.id);
            case "SETINFO" -> {
                String attribute = args.upper(2);
                if (!attribute.equals("LIB-NAME") && !attribute.equals("LIB-VER")) {
                    throw new RespError("ERR Unrecognized option '" + args.string(2) + "'");
                }
                yield Replies.OK;
            }
            default -> throw new IllegalStateException("refused by its subcommand check: " + args.string(1));
        };
    }

    /** A name for CLIENT SETNAME and HELLO SETNAME, checked as Redis checks it; empty clears the name. */
    private static String clientName(String name) {
        if (name.chars().anyMatch(c -> c <= ' ' || c > '~')) {
            throw new RespError("ERR Client names cannot contain spaces, newlines or special characters.");
        }
        return name.isEmpty() ? null : name;
    }

    private RedisMessage command(RespSession session, RespArgs args) {
        if (args.size() == 1) {
            return Replies.array(
                    commands.all().stream().map(ConnectionCommands::describe).toList());
        }
        return switch (args.upper(1)) {
            case "COUNT" -> Replies.integer(commands.all().size());
            // redis-cli asks for docs to offer hints; an empty map means "no docs" and it carries on
            case "DOCS" -> Replies.map(session, List.of());
            case "INFO" -> {
                if (args.size() == 2) { // no names: every command, as COMMAND lists them
                    yield Replies.array(commands.all().stream()
                            .map(ConnectionCommands::describe)
                            .toList());
                }
                List<RedisMessage> infos = new ArrayList<>();
                for (int i = 2; i < args.size(); i++) {
                    RespCommand command = commands.find(args.upper(i));
                    infos.add(command == null ? Replies.nil(session) : describe(command));
                }
                yield Replies.array(infos);
            }
            default -> throw new IllegalStateException("refused by its subcommand check: " + args.string(1));
        };
    }

    /** Commands whose every argument after the name is a key (first key 1, last key -1), as Redis lists them. */
    private static final Set<String> ALL_KEYS = Set.of("DEL", "UNLINK", "EXISTS");
    /** Redis commands of deja's whose first argument is their only key. */
    private static final Set<String> ONE_KEY = Set.of(
            "GET",
            "SET",
            "SETNX",
            "SETEX",
            "PSETEX",
            "TTL",
            "PTTL",
            "TYPE",
            "EXPIRE",
            "PEXPIRE",
            "EXPIREAT",
            "PEXPIREAT",
            "PERSIST");
    /** deja's commands that name no namespace, or may name none (a snapshot of every namespace). */
    private static final Set<String> NO_KEY = Set.of("DJ.LIST", "DJ.SNAPSHOT");
    /** Commands whose first two arguments are keys: a merge's target and source, a rename's old and new names. */
    private static final Set<String> TWO_KEYS = Set.of("DJ.MERGE", "RENAME", "RENAMENX");

    /**
     * A command as {@code COMMAND} describes it: name, arity, flags, first key, last key, key step; proxies and
     * cluster-aware clients route by the key positions. A BF.*, CF.* or DJ.* command's key is its filter or namespace;
     * KEYS, SCAN, FLUSHDB and FLUSHALL name none.
     */
    private static RedisMessage describe(RespCommand command) {
        String name = command.name();
        boolean oneKey = ONE_KEY.contains(name)
                || name.startsWith("BF.")
                || name.startsWith("CF.")
                || (name.startsWith("DJ.") && !NO_KEY.contains(name));
        int first = oneKey || ALL_KEYS.contains(name) || TWO_KEYS.contains(name) ? 1 : 0;
        int last = ALL_KEYS.contains(name) ? -1 : TWO_KEYS.contains(name) ? 2 : first;
        return Replies.array(List.of(
                Replies.bulk(name.toLowerCase(Locale.ROOT)),
                Replies.integer(command.arity()),
                Replies.array(List.of(Replies.simple(command.write() ? "write" : "readonly"))),
                Replies.integer(first),
                Replies.integer(last),
                Replies.integer(first)));
    }

    /**
     * {@code CONFIG GET parameter [parameter ...]}, each a name or a glob pattern as Redis 7 takes them: the Redis
     * persistence settings tools such as redis-benchmark read, answered with deja's equivalents ({@code appendonly
     * yes}: every write is journaled; {@code appendfsync}: the fsync policy; {@code save ""}: snapshots follow
     * deja's own interval), each matched name once; a name deja does not have matches nothing. Other subcommands
     * are refused: deja is configured by its command line, environment or config file.
     */
    private RedisMessage config(RespSession session, RespArgs args) {
        if (!args.upper(1).equals("GET")) {
            throw new RespError("ERR only CONFIG GET is supported: deja is configured by its command line,"
                    + " environment or config file");
        }
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("appendonly", "yes");
        settings.put("appendfsync", context.config().fsync().name().toLowerCase(Locale.ROOT));
        settings.put("save", "");
        Set<String> matched = new LinkedHashSet<>();
        for (int i = 2; i < args.size(); i++) {
            PathMatcher pattern = glob(args.string(i).toLowerCase(Locale.ROOT));
            for (String name : settings.keySet()) {
                if (pattern != null && pattern.matches(Path.of(name))) {
                    matched.add(name);
                }
            }
        }
        List<RedisMessage> pairs = new ArrayList<>();
        for (String name : matched) {
            field(pairs, name, Replies.bulk(settings.get(name)));
        }
        return Replies.map(session, pairs);
    }

    /** A glob pattern ({@code *}, {@code ?}, {@code [a-z]}) as a matcher of setting names; null if it is malformed. */
    static PathMatcher glob(String pattern) {
        try {
            return FileSystems.getDefault().getPathMatcher("glob:" + pattern);
        } catch (IllegalArgumentException malformed) {
            return null; // Redis's matcher takes any pattern; a broken one matches no setting
        }
    }

    /** {@code INFO [section ...]}: the sections named (all of them without a name, or with all/everything/default). */
    private RedisMessage info(RespSession session, RespArgs args) {
        Map<String, String> sections = new LinkedHashMap<>();
        sections.put(
                "server",
                "# Server\r\n"
                        + "deja_version:" + ServerContext.VERSION + "\r\n"
                        // clients that gate features on the Redis version read this field
                        + "redis_version:" + ServerContext.REDIS_VERSION + "\r\n"
                        + "redis_mode:standalone\r\n"
                        + "arch_bits:64\r\n"
                        + "process_id:" + ProcessHandle.current().pid() + "\r\n"
                        + "uptime_in_seconds:" + context.uptime().toSeconds() + "\r\n");
        sections.put(
                "memory",
                "# Memory\r\n"
                        // the limit namespaces are created against (--memory-limit) and what they reserved of it
                        + "namespace_memory_limit:" + context.namespaces().memoryLimit() + "\r\n"
                        + "namespace_memory_reserved:" + context.namespaces().memoryReserved() + "\r\n"
                        + "namespace_native_memory_limit:"
                        + context.namespaces().nativeMemoryLimit() + "\r\n"
                        + "namespace_native_memory_reserved:"
                        + context.namespaces().nativeMemoryReserved() + "\r\n");
        sections.put(
                "persistence",
                "# Persistence\r\n" + "fsync:" + context.config().fsync().name().toLowerCase(Locale.ROOT) + "\r\n");
        sections.put(
                "modules",
                "# Modules\r\n" + "module:name=" + BLOOM_MODULE + ",ver=" + BLOOM_MODULE_VERSION
                        + ",api=1,filters=0,usedby=[],using=[],options=[]\r\n");
        sections.put("cluster", "# Cluster\r\ncluster_enabled:0\r\n");
        sections.put(
                "keyspace",
                "# Keyspace\r\n" + "namespaces:" + context.namespaces().list().size() + "\r\n");
        Set<String> wanted = new LinkedHashSet<>();
        for (int i = 1; i < args.size(); i++) {
            String name = args.string(i).toLowerCase(Locale.ROOT);
            if (name.equals("all") || name.equals("everything") || name.equals("default")) {
                wanted.addAll(sections.keySet());
            } else if (sections.containsKey(name)) {
                wanted.add(name); // an unknown section adds nothing, as in Redis
            }
        }
        if (args.size() == 1) {
            wanted.addAll(sections.keySet());
        }
        List<String> texts = new ArrayList<>();
        for (String name : sections.keySet()) {
            if (wanted.contains(name)) {
                texts.add(sections.get(name));
            }
        }
        return Replies.bulk(String.join("\r\n", texts));
    }

    private static void field(List<RedisMessage> fields, String name, RedisMessage value) {
        fields.add(Replies.bulk(name));
        fields.add(value);
    }
}
