package dev.deja.resp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.journal.FsyncPolicy;
import dev.deja.testing.TestServer;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Replies compared byte for byte with what Redis 7 sends for the same bytes, where an earlier deja differed: each
 * case is a request a client or a person at a terminal sends, and the reply Redis gives it.
 */
class RespCompatibilityTest {

    /** The end of a HELLO reply: the load arguments of the one module it names, RedisBloom's bf. */
    private static final String HELLO_END = "$4\r\nargs\r\n*0\r\n";

    @TempDir
    static Path dataDir;

    private static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        // fsync always: a SET NX waits for the disk, so a command pipelined after it runs before it is answered
        server = TestServer.start(dataDir, b -> b.fsync(FsyncPolicy.ALWAYS));
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void anErrorThatEchoesALineBreakStaysOneLine() throws Exception {
        // Redis turns the CR LF of the echoed argument into spaces; an error cut at it desynchronised the client
        assertThat(exchange("*2\r\n$3\r\nFOO\r\n$6\r\na\r\n+OK\r\nPING\r\n", "+PONG\r\n"))
                .isEqualTo("-ERR unknown command 'FOO', with args beginning with: 'a  +OK' \r\n+PONG\r\n");
    }

    @Test
    void anUnknownCommandEchoesAtMost128CharactersOfItsArguments() throws Exception {
        String a = "a".repeat(1000);
        assertThat(exchange("*2\r\n$3\r\nFOO\r\n$1000\r\n" + a + "\r\n", "\r\n"))
                .isEqualTo("-ERR unknown command 'FOO', with args beginning with: '" + a.substring(0, 128) + "' \r\n");
    }

    @Test
    void resp3NullsAndMapsInsideArrays() throws Exception {
        String reply = exchange("HELLO 3\r\nCOMMAND INFO nosuch\r\nPING\r\n", "+PONG\r\n");
        assertThat(reply).startsWith("%7\r\n").endsWith("*1\r\n_\r\n+PONG\r\n");
    }

    @Test
    void aNullHasTheProtocolOfItsCommandNotOfAHelloPipelinedAfterIt() throws Exception {
        exchange("SET compat-nx v NX\r\n", "+OK\r\n");
        assertThat(exchange("SET compat-nx v NX\r\nHELLO 3\r\n", HELLO_END)).startsWith("$-1\r\n%7\r\n");
        assertThat(exchange("HELLO 3\r\nSET compat-nx v NX\r\nHELLO 2\r\n", HELLO_END))
                .contains("\r\n_\r\n*14\r\n");
    }

    /** HELLO's version is the Redis version INFO reports, the number clients gate commands on; deja's is INFO's. */
    @Test
    void helloAndInfoReportTheSameRedisVersion() throws Exception {
        String hello = exchange("HELLO 3\r\n", HELLO_END);
        String info = exchange("INFO server\r\n", "uptime_in_seconds");
        assertThat(hello).contains("$7\r\nversion\r\n$5\r\n7.2.0\r\n").contains("$6\r\nserver\r\n$4\r\ndeja\r\n");
        assertThat(info).contains("redis_version:7.2.0\r\n").contains("deja_version:0.1.0\r\n");
    }

    @Test
    void authWithAUserNameWhenNoPasswordIsSet() throws Exception {
        // the default user takes any password when none is configured (Redis's "nopass")
        assertThat(exchange("AUTH default anything\r\n", "\r\n")).isEqualTo("+OK\r\n");
        assertThat(exchange("AUTH someone anything\r\n", "\r\n"))
                .isEqualTo("-WRONGPASS invalid username-password pair or user is disabled.\r\n");
        assertThat(exchange("HELLO 3 AUTH default anything\r\n", HELLO_END)).startsWith("%7\r\n");
        assertThat(exchange("AUTH anything\r\n", "\r\n"))
                .startsWith("-ERR AUTH <password> called without any password configured for the default user.");
    }

    @Test
    void inlineCommandsMayEndWithABareLineFeed() throws Exception {
        // echo PING | nc host port
        assertThat(exchange("PING\n", "\r\n")).isEqualTo("+PONG\r\n");
        assertThat(exchange("ECHO hi\nPING\r\n*2\r\n$4\r\nECHO\r\n$3\r\na\nb\r\n", "$3\r\na\nb\r\n"))
                .as("after a line that starts an array, a LF inside a bulk string is data")
                .isEqualTo("$2\r\nhi\r\n+PONG\r\n$3\r\na\nb\r\n");
    }

    /**
     * RESET gives back the connection as it opened, as Redis 6.2 and later do (checked against redis-server 7.0.15):
     * the transaction discarded, RESP2, no name, and with a password the client must authenticate again. It acts at
     * once inside MULTI and may be sent before AUTH.
     */
    @Test
    void resetGivesBackTheConnectionAsItOpened(@TempDir Path other) throws Exception {
        try (TestServer guarded = TestServer.start(other, b -> b.password("s3cret"))) {
            String reply = guarded.respExchange("""
                            RESET\r
                            AUTH s3cret\r
                            HELLO 3 SETNAME foo\r
                            MULTI\r
                            PING\r
                            RESET\r
                            PING\r
                            AUTH s3cret\r
                            CLIENT GETNAME\r
                            EXEC\r
                            """, "without MULTI\r\n");
            assertThat(reply).startsWith("+RESET\r\n+OK\r\n%7\r\n").endsWith("""
                            args\r
                            *0\r
                            +OK\r
                            +QUEUED\r
                            +RESET\r
                            -NOAUTH Authentication required.\r
                            +OK\r
                            $-1\r
                            -ERR EXEC without MULTI\r
                            """);
        }
        assertThat(exchange("RESET\r\nPING\r\n", "+PONG\r\n")).isEqualTo("+RESET\r\n+PONG\r\n");
    }

    @Test
    void aRefusedHelloLeavesTheConnectionAsItWas(@TempDir Path other) throws Exception {
        // Redis reads every option before acting on any: a HELLO it refuses neither authenticates nor names
        try (TestServer guarded = TestServer.start(other, b -> b.password("s3cret"))) {
            String noAuth = "-NOAUTH Authentication required.\r\n";
            assertThat(guarded.respExchange("HELLO 3 AUTH default s3cret FOO\r\nDJ.LIST\r\n", noAuth))
                    .isEqualTo("-ERR Syntax error in HELLO option 'FOO'\r\n" + noAuth);
            assertThat(guarded.respExchange("HELLO 3 AUTH default s3cret SETNAME \"a b\"\r\nDJ.LIST\r\n", noAuth))
                    .isEqualTo("-ERR Client names cannot contain spaces, newlines or special characters.\r\n" + noAuth);
            assertThat(guarded.respExchange("HELLO 3 AUTH default s3cret SETNAME\r\nDJ.LIST\r\n", noAuth))
                    .isEqualTo("-ERR Syntax error in HELLO option 'SETNAME'\r\n" + noAuth);
            assertThat(guarded.respExchange("HELLO 2 AUTH default wrong AUTH default s3cret\r\nPING\r\n", "+PONG\r\n"))
                    .as("the last AUTH option counts, as in Redis")
                    .endsWith(HELLO_END + "+PONG\r\n");
            assertThat(guarded.respExchange(
                            "HELLO 2 AUTH default wrong SETNAME w\r\nAUTH s3cret\r\nCLIENT GETNAME\r\n", "$-1\r\n"))
                    .as("a refused HELLO names nobody")
                    .isEqualTo("-WRONGPASS invalid username-password pair or user is disabled.\r\n+OK\r\n$-1\r\n");
        }
    }

    @Test
    void helloSetnameChecksTheNameAsClientSetnameDoes() throws Exception {
        assertThat(exchange("HELLO 2 SETNAME \"a b\"\r\n", "\r\n"))
                .isEqualTo("-ERR Client names cannot contain spaces, newlines or special characters.\r\n");
    }

    @Test
    void integersAreWrittenAsRedisWritesThem() throws Exception {
        String notInteger = "-ERR value is not an integer or out of range\r\n";
        assertThat(exchange("SET compat-int v EX +10\r\n", "\r\n")).isEqualTo(notInteger);
        assertThat(exchange("SET compat-int v EX 010\r\n", "\r\n")).isEqualTo(notInteger);
        assertThat(exchange("SET compat-int v EX \u0663\r\n", "\r\n"))
                .as("an Arabic-Indic three")
                .isEqualTo(notInteger);
        assertThat(exchange("SELECT 00\r\n", "\r\n")).isEqualTo(notInteger);
        assertThat(exchange("SELECT -0\r\n", "\r\n")).isEqualTo(notInteger);
        assertThat(exchange("SELECT 0\r\n", "\r\n")).isEqualTo("+OK\r\n");
        assertThat(exchange("HELLO +2\r\n", "\r\n"))
                .isEqualTo("-ERR Protocol version is not an integer or out of range\r\n");
    }

    @Test
    void setOptionsFollowRedisRules() throws Exception {
        assertThat(exchange("SET compat-opt v EX 10 EX 20\r\nTTL compat-opt\r\n", ":20\r\n"))
                .as("a repeated expiry option: the last one counts")
                .isEqualTo("+OK\r\n:20\r\n");
        assertThat(exchange("SET compat-opt v EX 10 PX 10\r\n", "\r\n")).isEqualTo("-ERR syntax error\r\n");
        assertThat(exchange("SET compat-opt v EX 0 FOO\r\n", "\r\n"))
                .as("syntax before values")
                .isEqualTo("-ERR syntax error\r\n");
        assertThat(exchange("SET compat-opt v EX abc NX XX\r\n", "\r\n")).isEqualTo("-ERR syntax error\r\n");
        assertThat(exchange("SET compat-opt v EX 0\r\n", "\r\n"))
                .isEqualTo("-ERR invalid expire time in 'set' command\r\n");
    }

    @Test
    void aRefusedSetCreatesNoKeyValueNamespace(@TempDir Path other) throws Exception {
        // the key-value namespace is created by the first write; one refused for its syntax is no write
        try (TestServer fresh = TestServer.start(other)) {
            assertThat(fresh.respExchange("SET k v FOO\r\n", "\r\n")).isEqualTo("-ERR syntax error\r\n");
            assertThat(fresh.respExchange("SET k v EX ten\r\n", "\r\n"))
                    .isEqualTo("-ERR value is not an integer or out of range\r\n");
            assertThat(fresh.respExchange("SETEX k ten v\r\n", "\r\n"))
                    .isEqualTo("-ERR value is not an integer or out of range\r\n");
            assertThat(fresh.respExchange("PSETEX k 0 v\r\n", "\r\n"))
                    .isEqualTo("-ERR invalid expire time in 'psetex' command\r\n");
            assertThat(fresh.respExchange("DJ.LIST\r\n", "\r\n")).isEqualTo("*1\r\n$7\r\ndefault\r\n");
        }
    }

    @Test
    void subcommandsCheckTheirArity() throws Exception {
        assertThat(exchange("CLIENT GETNAME x\r\n", "\r\n"))
                .isEqualTo("-ERR wrong number of arguments for 'client|getname' command\r\n");
        assertThat(exchange("CLIENT ID x\r\n", "\r\n"))
                .isEqualTo("-ERR wrong number of arguments for 'client|id' command\r\n");
        assertThat(exchange("COMMAND COUNT x\r\n", "\r\n"))
                .isEqualTo("-ERR wrong number of arguments for 'command|count' command\r\n");
    }

    @Test
    void commandInfoGivesKeyPositions() throws Exception {
        assertThat(exchange("COMMAND INFO get del bf.add ping\r\n", "*1\r\n+readonly\r\n:0\r\n:0\r\n:0\r\n"))
                .isEqualTo("""
                        *4\r
                        *6\r\n$3\r\nget\r\n:2\r\n*1\r\n+readonly\r\n:1\r\n:1\r\n:1\r
                        *6\r\n$3\r\ndel\r\n:-2\r\n*1\r\n+write\r\n:1\r\n:-1\r\n:1\r
                        *6\r\n$6\r\nbf.add\r\n:3\r\n*1\r\n+write\r\n:1\r\n:1\r\n:1\r
                        *6\r\n$4\r\nping\r\n:-1\r\n*1\r\n+readonly\r\n:0\r\n:0\r\n:0\r
                        """);
        assertThat(exchange("COMMAND INFO dj.list dj.merge dj.snapshot\r\n", "*1\r\n+readonly\r\n:0\r\n:0\r\n:0\r\n"))
                .isEqualTo("""
                        *3\r
                        *6\r\n$7\r\ndj.list\r\n:1\r\n*1\r\n+readonly\r\n:0\r\n:0\r\n:0\r
                        *6\r\n$8\r\ndj.merge\r\n:3\r\n*1\r\n+write\r\n:1\r\n:2\r\n:1\r
                        *6\r\n$11\r\ndj.snapshot\r\n:-1\r\n*1\r\n+readonly\r\n:0\r\n:0\r\n:0\r
                        """);
        assertThat(exchange("COMMAND INFO expire cf.add type scan\r\n", "*1\r\n+readonly\r\n:0\r\n:0\r\n:0\r\n"))
                .isEqualTo("""
                        *4\r
                        *6\r\n$6\r\nexpire\r\n:-3\r\n*1\r\n+write\r\n:1\r\n:1\r\n:1\r
                        *6\r\n$6\r\ncf.add\r\n:3\r\n*1\r\n+write\r\n:1\r\n:1\r\n:1\r
                        *6\r\n$4\r\ntype\r\n:2\r\n*1\r\n+readonly\r\n:1\r\n:1\r\n:1\r
                        *6\r\n$4\r\nscan\r\n:-2\r\n*1\r\n+readonly\r\n:0\r\n:0\r\n:0\r
                        """);
    }

    @Test
    void bloomAnswersAreBooleansUnderResp3AsRedisBloomGivesThem() throws Exception {
        // node-redis reads BF.ADD's RESP3 reply as a boolean, and fails every call that answers an integer
        String reply = exchange("""
                        HELLO 3\r
                        BF.ADD rb a\r
                        BF.ADD rb a\r
                        BF.EXISTS rb b\r
                        BF.MADD rb a c\r
                        BF.MEXISTS rb a b\r
                        BF.INSERT rb ITEMS d\r
                        BF.CARD rb\r
                        """, ":3\r\n");
        assertThat(reply.substring(reply.indexOf("#"))).isEqualTo("""
                        #t\r
                        #f\r
                        #f\r
                        *2\r
                        #f\r
                        #t\r
                        *2\r
                        #t\r
                        #f\r
                        *1\r
                        #t\r
                        :3\r
                        """);
        assertThat(exchange("BF.ADD rb e\r\nBF.MEXISTS rb e z\r\n", "\r\n:0\r\n"))
                .as("RESP2: integers")
                .isEqualTo(":1\r\n*2\r\n:1\r\n:0\r\n");
        assertThat(exchange("BF.ADD rb f\r\nHELLO 3\r\n", HELLO_END))
                .as("the protocol of the command's own time")
                .startsWith(":1\r\n%");
    }

    @Test
    void bloomInfoOfOneFieldIsAMapUnderResp3AsRedisBloomGivesIt() throws Exception {
        exchange("BF.RESERVE rb-info 0.01 100\r\n", "\r\n");
        assertThat(exchange("BF.INFO rb-info CAPACITY\r\n", ":100\r\n"))
                .as("RESP2: a one-element array")
                .isEqualTo("*1\r\n:100\r\n");
        exchange("BF.RESERVE rb-fixed 0.01 100 NONSCALING\r\n", "\r\n");
        String reply = exchange(
                "HELLO 3\r\nBF.INFO rb-info capacity\r\nBF.INFO rb-info EXPANSION\r\nBF.INFO rb-fixed EXPANSION\r\n",
                "_\r\n");
        assertThat(reply.substring(reply.indexOf(HELLO_END) + HELLO_END.length()))
                .as("a scaling filter's expansion, null for a filter that does not scale")
                .isEqualTo(String.join(
                        "",
                        "%1\r\n$8\r\nCapacity\r\n:100\r\n",
                        "%1\r\n$14\r\nExpansion rate\r\n:2\r\n",
                        "%1\r\n$14\r\nExpansion rate\r\n_\r\n"));
        assertThat(exchange("BF.INFO rb-nosuch CAPACITY SIZE\r\n", "\r\n"))
                .as("arity first, as RedisBloom")
                .isEqualTo("-ERR wrong number of arguments for 'bf.info' command\r\n");
    }

    @Test
    void configGetTakesSeveralNamesAndGlobPatterns() throws Exception {
        // what redis-server 7 (save "", appendonly no) sends, but for deja's own values
        assertThat(exchange("CONFIG GET save appendonly\r\n", "\r\n$3\r\nyes\r\n"))
                .isEqualTo("*4\r\n$4\r\nsave\r\n$0\r\n\r\n$10\r\nappendonly\r\n$3\r\nyes\r\n");
        assertThat(exchange("CONFIG GET append* APPENDONLY nosuch\r\n", "always\r\n"))
                .isEqualTo("*4\r\n$10\r\nappendonly\r\n$3\r\nyes\r\n$11\r\nappendfsync\r\n$6\r\nalways\r\n");
        assertThat(exchange("CONFIG GET nosuch\r\n", "\r\n")).isEqualTo("*0\r\n");
        assertThat(exchange("CONFIG GET\r\n", "\r\n"))
                .isEqualTo("-ERR wrong number of arguments for 'config|get' command\r\n");
    }

    @Test
    void infoGivesTheSectionsAskedFor() throws Exception {
        String server = exchange("INFO server\r\n", "\r\n\r\n");
        assertThat(server)
                .startsWith("$")
                .contains("# Server\r\n")
                .contains("redis_version:")
                .doesNotContain("# Memory")
                .doesNotContain("# Keyspace");
        String two = exchange("INFO keyspace SERVER\r\n", "\r\n\r\n");
        assertThat(two.indexOf("# Server")).as(two).isPositive().isLessThan(two.indexOf("# Keyspace"));
        assertThat(two).doesNotContain("# Memory");
        assertThat(exchange("INFO nosuch\r\n", "\r\n"))
                .as("an unknown section, as Redis")
                .isEqualTo("$0\r\n\r\n");
        assertThat(exchange("INFO\r\n", "\r\n\r\n")).contains("# Server", "# Memory", "# Persistence", "# Keyspace");
        assertThat(exchange("INFO everything\r\n", "\r\n\r\n")).contains("# Server", "# Keyspace");
    }

    /** Sends {@code raw} on a new connection and reads until the replies end with {@code end} (or 5 s pass). */
    private static String exchange(String raw, String end) throws IOException {
        return server.respExchange(raw, end);
    }
}
