package dev.deja.resp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.journal.FsyncPolicy;
import dev.deja.testing.TestServer;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SetArgs;
import io.lettuce.core.TransactionResult;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.protocol.ProtocolVersion;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * MULTI, EXEC and DISCARD, which redis-py's {@code pipeline()}, Jedis's and Lettuce's {@code multi()} and
 * node-redis's {@code multi()} send. The raw exchanges are compared byte for byte with what Redis 7 answers to the
 * same bytes.
 */
class TransactionTest {

    /** The end of HELLO 3's reply: the modules field, naming the RedisBloom module deja stands in for. */
    private static final String HELLO3_END = String.join(
            "\r\n", "modules", "*1", "%4", "$4", "name", "$2", "bf", "$3", "ver", ":20612", "$4", "path", "$4", "deja",
            "$4", "args", "*0", "");

    @TempDir
    static Path dataDir;

    private static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        server = TestServer.start(dataDir);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void execRunsTheQueuedCommandsInOrderAndAnswersTheirReplies() throws Exception {
        String commands = """
                MULTI\r
                SET tx-a 1 NX\r
                BF.ADD tx-f x\r
                BF.EXISTS tx-f x\r
                GET tx-a\r
                SET tx-a 2 NX\r
                EXEC\r
                GET tx-a\r
                """;
        assertThat(exchange(commands, "$1\r\n1\r\n$1\r\n1\r\n")).isEqualTo("""
                        +OK\r
                        +QUEUED\r
                        +QUEUED\r
                        +QUEUED\r
                        +QUEUED\r
                        +QUEUED\r
                        *5\r
                        +OK\r
                        :1\r
                        :1\r
                        $1\r
                        1\r
                        $-1\r
                        $1\r
                        1\r
                        """);
    }

    @Test
    void queuedCommandsDoNothingBeforeExec() throws Exception {
        assertThat(exchange("MULTI\r\nBF.ADD tx-q a\r\n", "+QUEUED\r\n")).isEqualTo("+OK\r\n+QUEUED\r\n");
        assertThat(exchange("BF.EXISTS tx-q a\r\n", "\r\n"))
                .as("the connection closed before EXEC")
                .isEqualTo(":0\r\n");
    }

    @Test
    void aCommandFailingAtRunTimeGetsItsErrorAndTheOthersStillRun() throws Exception {
        assertThat(exchange(
                        "MULTI\r\nBF.ADD tx-g a\r\nBF.RESERVE tx-g 0.01 100\r\nBF.ADD tx-g b\r\nEXEC\r\n",
                        ":1\r\n-ERR item exists\r\n:1\r\n"))
                .isEqualTo("+OK\r\n+QUEUED\r\n+QUEUED\r\n+QUEUED\r\n*3\r\n:1\r\n-ERR item exists\r\n:1\r\n");
    }

    @Test
    void aCommandRefusedWhenQueuedAbortsTheTransaction() throws Exception {
        String abort = "-EXECABORT Transaction discarded because of previous errors.\r\n";
        assertThat(exchange(
                        "MULTI\r\nBF.ADD tx-h a\r\nFOO bar\r\nBF.ADD tx-h b\r\nEXEC\r\nBF.EXISTS tx-h a\r\n",
                        abort + ":0\r\n"))
                .isEqualTo("+OK\r\n+QUEUED\r\n-ERR unknown command 'FOO', with args beginning with: 'bar' \r\n"
                        + "+QUEUED\r\n" + abort + ":0\r\n");
        assertThat(exchange("MULTI\r\nGET\r\nBF.ADD tx-h c\r\nEXEC\r\nBF.EXISTS tx-h c\r\n", abort + ":0\r\n"))
                .isEqualTo("+OK\r\n-ERR wrong number of arguments for 'get' command\r\n+QUEUED\r\n" + abort + ":0\r\n");
    }

    @Test
    void aSubcommandRefusedWhenQueuedAbortsTheTransaction() throws Exception {
        // Redis 7 looks subcommands up, and checks their arity, when it queues them
        String abort = "-EXECABORT Transaction discarded because of previous errors.\r\n";
        assertThat(exchange("MULTI\r\nCLIENT GETNAME x\r\nPING\r\nEXEC\r\n", abort))
                .isEqualTo("+OK\r\n-ERR wrong number of arguments for 'client|getname' command\r\n+QUEUED\r\n" + abort);
        assertThat(exchange("MULTI\r\nCLIENT FOO\r\nEXEC\r\n", abort))
                .isEqualTo("+OK\r\n-ERR unknown subcommand 'FOO'. Try CLIENT SETNAME, GETNAME, ID or SETINFO.\r\n"
                        + abort);
        assertThat(exchange("MULTI\r\nCONFIG GET\r\nEXEC\r\n", abort))
                .isEqualTo("+OK\r\n-ERR wrong number of arguments for 'config|get' command\r\n" + abort);
        assertThat(exchange("MULTI\r\nCOMMAND FOO\r\nEXEC\r\n", abort))
                .isEqualTo("+OK\r\n-ERR unknown"
                        + " subcommand 'FOO'. Try COMMAND, COMMAND COUNT, COMMAND INFO or COMMAND DOCS.\r\n" + abort);
        assertThat(exchange("MULTI\r\nCLIENT SETINFO colour red\r\nCLIENT ID\r\nEXEC\r\n", "\r\n:"))
                .as("an option's value is checked when the command runs, as in Redis")
                .startsWith("+OK\r\n+QUEUED\r\n+QUEUED\r\n*2\r\n-ERR Unrecognized option 'colour'\r\n:");
    }

    @Test
    void multiExecAndDiscardOutOfTurnAreRedisErrors() throws Exception {
        assertThat(exchange("EXEC\r\nDISCARD\r\nMULTI\r\nMULTI\r\nPING\r\nEXEC\r\n", "+PONG\r\n"))
                .as("a nested MULTI is refused without aborting the transaction, as in Redis")
                .isEqualTo("""
                        -ERR EXEC without MULTI\r
                        -ERR DISCARD without MULTI\r
                        +OK\r
                        -ERR MULTI calls can not be nested\r
                        +QUEUED\r
                        *1\r
                        +PONG\r
                        """);
        assertThat(exchange("MULTI\r\nEXEC\r\n", "\r\n*0\r\n")).isEqualTo("+OK\r\n*0\r\n");
        assertThat(exchange("MULTI x\r\n", "\r\n")).isEqualTo("-ERR wrong number of arguments for 'multi' command\r\n");
    }

    @Test
    void anExecOrDiscardWithArgumentsInsideMultiIsRefusedAsRedisRefusesIt() throws Exception {
        assertThat(exchange("MULTI\r\nPING\r\nEXEC x\r\nEXEC\r\n", "MULTI\r\n"))
                .as("a refused EXEC ends the transaction at once")
                .isEqualTo("+OK\r\n+QUEUED\r\n-EXECABORT Transaction discarded because of: wrong number of"
                        + " arguments for 'exec' command\r\n-ERR EXEC without MULTI\r\n");
        assertThat(exchange("MULTI\r\nPING\r\nDISCARD x\r\nEXEC\r\n", "errors.\r\n"))
                .isEqualTo("""
                        +OK\r
                        +QUEUED\r
                        -ERR wrong number of arguments for 'discard' command\r
                        -EXECABORT Transaction discarded because of previous errors.\r
                        """);
    }

    @Test
    void discardDropsTheQueue() throws Exception {
        assertThat(exchange("MULTI\r\nBF.ADD tx-d a\r\nDISCARD\r\nBF.EXISTS tx-d a\r\nEXEC\r\n", "MULTI\r\n"))
                .isEqualTo("+OK\r\n+QUEUED\r\n+OK\r\n:0\r\n-ERR EXEC without MULTI\r\n");
        assertThat(exchange("MULTI\r\nFOO\r\nDISCARD\r\nMULTI\r\nPING\r\nEXEC\r\n", "+PONG\r\n"))
                .as("DISCARD also forgets that the transaction was doomed")
                .isEqualTo("""
                        +OK\r
                        -ERR unknown command 'FOO', with args beginning with: \r
                        +OK\r
                        +OK\r
                        +QUEUED\r
                        *1\r
                        +PONG\r
                        """);
    }

    @Test
    void watchIsRefusedAndUnwatchHasNothingToForget() throws Exception {
        assertThat(exchange("WATCH tx-w\r\nUNWATCH\r\n", "+OK\r\n"))
                .isEqualTo("-ERR WATCH is not supported: deja has no optimistic locking (check-and-set"
                        + " transactions); each command is atomic on its own key, so use SET NX, BF.ADD or"
                        + " DJ.CHECKTHENADD to test and set in one step\r\n+OK\r\n");
        assertThat(exchange("MULTI\r\nWATCH tx-w\r\nUNWATCH\r\nWATCH\r\nEXEC\r\n", "errors.\r\n"))
                .as("inside MULTI: Redis's refusal, UNWATCH queued, an arity error aborts")
                .isEqualTo("""
                        +OK\r
                        -ERR WATCH inside MULTI is not allowed\r
                        +QUEUED\r
                        -ERR wrong number of arguments for 'watch' command\r
                        -EXECABORT Transaction discarded because of previous errors.\r
                        """);
        assertThat(exchange("MULTI\r\nWATCH tx-w\r\nUNWATCH\r\nEXEC\r\n", "*1\r\n+OK\r\n"))
                .isEqualTo("+OK\r\n-ERR WATCH inside MULTI is not allowed\r\n+QUEUED\r\n*1\r\n+OK\r\n");
    }

    @Test
    void quitInsideMultiClosesAtOnce() throws Exception {
        assertThat(exchange("MULTI\r\nBF.ADD tx-quit a\r\nQUIT\r\nPING\r\n", "never"))
                .isEqualTo("+OK\r\n+QUEUED\r\n+OK\r\n");
        assertThat(exchange("BF.EXISTS tx-quit a\r\n", "\r\n")).isEqualTo(":0\r\n");
    }

    @Test
    void execAnswersEachReplyInItsOwnResp3Type() throws Exception {
        String reply = exchange("""
                        HELLO 3\r
                        MULTI\r
                        BF.ADD tx-r a\r
                        BF.EXISTS tx-r a\r
                        BF.EXISTS tx-r z\r
                        GET tx-nokey\r
                        BF.MEXISTS tx-r a z\r
                        EXEC\r
                        """, "*2\r\n#t\r\n#f\r\n");
        assertThat(reply.substring(reply.indexOf(HELLO3_END) + HELLO3_END.length()))
                .isEqualTo("""
                        +OK\r
                        +QUEUED\r
                        +QUEUED\r
                        +QUEUED\r
                        +QUEUED\r
                        +QUEUED\r
                        *5\r
                        #t\r
                        #t\r
                        #f\r
                        _\r
                        *2\r
                        #t\r
                        #f\r
                        """);
        String switched = exchange("MULTI\r\nBF.EXISTS tx-r a\r\nHELLO 3\r\nBF.EXISTS tx-r a\r\nEXEC\r\n", "#t\r\n");
        assertThat(switched)
                .as("a HELLO inside the transaction runs at EXEC, as in Redis")
                .startsWith("+OK\r\n+QUEUED\r\n+QUEUED\r\n+QUEUED\r\n*3\r\n:1\r\n%7\r\n")
                .endsWith(HELLO3_END + "#t\r\n");
    }

    @Test
    void pipelinedCommandsAroundATransactionKeepTheirOrder() throws Exception {
        assertThat(exchange("""
                                BF.ADD tx-p a\r
                                MULTI\r
                                BF.ADD tx-p b\r
                                BF.ADD tx-p a\r
                                EXEC\r
                                BF.ADD tx-p a\r
                                BF.EXISTS tx-p b\r
                                BF.ADD tx-p c\r
                                """, "*2\r\n:1\r\n:0\r\n:0\r\n:1\r\n:1\r\n"))
                .isEqualTo(":1\r\n+OK\r\n+QUEUED\r\n+QUEUED\r\n*2\r\n:1\r\n:0\r\n:0\r\n:1\r\n:1\r\n");
    }

    @Test
    void execAnswersOnceItsWritesAreOnDisk(@TempDir Path other) throws Exception {
        // with fsync always every write's reply waits for the disk: EXEC's array waits for all of them
        try (TestServer synced = TestServer.start(other, b -> b.fsync(FsyncPolicy.ALWAYS))) {
            assertThat(synced.respExchange("""
                                    MULTI\r
                                    BF.ADD tx-s a\r
                                    SET tx-s-kv v NX\r
                                    DJ.CHECKTHENADD tx-s b\r
                                    BF.MADD tx-s a c\r
                                    SET tx-s-kv w NX\r
                                    EXEC\r
                                    BF.EXISTS tx-s c\r
                                    """, "$-1\r\n:1\r\n"))
                    .isEqualTo("+OK\r\n" + "+QUEUED\r\n".repeat(5)
                            + "*5\r\n:1\r\n+OK\r\n+NEW\r\n*2\r\n:0\r\n:1\r\n$-1\r\n:1\r\n");
        }
    }

    @Test
    void aPasswordIsNeededForMultiAndAuthInsideItIsQueued(@TempDir Path other) throws Exception {
        try (TestServer guarded = TestServer.start(other, b -> b.password("s3cret"))) {
            assertThat(guarded.respExchange(
                            "MULTI\r\nPING\r\nAUTH s3cret\r\nMULTI\r\nAUTH s3cret\r\nPING\r\nEXEC\r\n",
                            "*2\r\n+OK\r\n+PONG\r\n"))
                    .isEqualTo("""
                            -NOAUTH Authentication required.\r
                            -NOAUTH Authentication required.\r
                            +OK\r
                            +OK\r
                            +QUEUED\r
                            +QUEUED\r
                            *2\r
                            +OK\r
                            +PONG\r
                            """);
            // Redis 7 answers a refused EXEC with EXECABORT, inside MULTI or not (its rejectCommand)
            assertThat(guarded.respExchange("EXEC\r\nEXEC x\r\nAUTH s3cret\r\nEXEC x\r\nEXEC\r\n", "MULTI\r\n"))
                    .isEqualTo("-EXECABORT Transaction discarded because of: NOAUTH Authentication required.\r\n"
                            + "-EXECABORT Transaction discarded because of: wrong number of arguments for 'exec'"
                            + " command\r\n+OK\r\n"
                            + "-EXECABORT Transaction discarded because of: wrong number of arguments for 'exec'"
                            + " command\r\n-ERR EXEC without MULTI\r\n");
        }
    }

    @Test
    void theQueueHoldsAtMostWhatOneCommandMay(@TempDir Path other) throws Exception {
        // one command may hold 2 * 10 + 16 = 36 arguments and 1000 bytes; so may a transaction's queue
        try (TestServer small =
                TestServer.start(other, b -> b.maxBatch(10).maxKeyBytes(100).maxBodyBytes(1000))) {
            String tooLarge = "-ERR transaction too large: the commands queued since MULTI may hold at most 36"
                    + " arguments and 1000 bytes together, as one command may (--max-batch, --max-body-bytes)\r\n";
            String abort = "-EXECABORT Transaction discarded because of previous errors.\r\n";
            assertThat(small.respExchange(
                            "MULTI\r\n" + "PING\r\n".repeat(37) + "PING\r\nEXEC\r\nPING\r\n", "+PONG\r\n"))
                    .isEqualTo("+OK\r\n" + "+QUEUED\r\n".repeat(36) + tooLarge + "+QUEUED\r\n" + abort + "+PONG\r\n");
            String half = "x".repeat(500);
            assertThat(small.respExchange("MULTI\r\nECHO " + half + "\r\nECHO " + half + "\r\nEXEC\r\n", abort))
                    .isEqualTo("+OK\r\n+QUEUED\r\n" + tooLarge + abort);
            assertThat(small.respExchange("MULTI\r\n" + "PING\r\n".repeat(36) + "EXEC\r\n", "+PONG\r\n".repeat(36)))
                    .isEqualTo("+OK\r\n" + "+QUEUED\r\n".repeat(36) + "*36\r\n" + "+PONG\r\n".repeat(36));
        }
    }

    @Test
    void lettuceTransactionsUnderResp3AndResp2() throws Exception {
        for (ProtocolVersion protocol : ProtocolVersion.values()) {
            RedisClient client = RedisClient.create(RedisURI.builder()
                    .withHost("127.0.0.1")
                    .withPort(server.respPort())
                    .withTimeout(Duration.ofSeconds(10))
                    .build());
            client.setOptions(ClientOptions.builder().protocolVersion(protocol).build());
            try (StatefulRedisConnection<String, String> connection = client.connect()) {
                String prefix = "tx-lettuce-" + protocol;
                RedisCommands<String, String> redis = connection.sync();
                assertThat(redis.multi()).isEqualTo("OK");
                redis.set(prefix + "-kv", "v", SetArgs.Builder.nx());
                redis.set(prefix + "-kv", "w", SetArgs.Builder.nx());
                redis.get(prefix + "-kv");
                redis.exists(prefix + "-kv");
                TransactionResult result = redis.exec();
                assertThat(result.wasDiscarded()).isFalse();
                assertThat(result).as(protocol.name()).containsExactly("OK", null, "v", 1L);

                RedisAsyncCommands<String, String> async = connection.async();
                RedisFuture<String> multi = async.multi();
                RedisFuture<String> reserved = async.bfReserve(prefix, 0.01, 100);
                RedisFuture<String> refused = async.bfReserve(prefix, 0.01, 100);
                RedisFuture<String> value = async.get(prefix + "-kv");
                RedisFuture<TransactionResult> exec = async.exec();
                assertThat(multi.get(10, TimeUnit.SECONDS)).isEqualTo("OK");
                assertThat(exec.get(10, TimeUnit.SECONDS)).hasSize(3);
                assertThat(reserved.get(10, TimeUnit.SECONDS)).isEqualTo("OK");
                assertThatThrownBy(() -> refused.get(10, TimeUnit.SECONDS)).hasMessageContaining("ERR item exists");
                assertThat(value.get(10, TimeUnit.SECONDS)).isEqualTo("v");

                assertThat(redis.multi()).isEqualTo("OK");
                redis.set(prefix + "-dropped", "v");
                assertThat(redis.discard()).isEqualTo("OK");
                assertThat(redis.get(prefix + "-dropped")).isNull();
            } finally {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
        }
    }

    @Test
    void lettuceBloomCommandsInATransactionUnderResp2() {
        // under RESP3 BF.ADD answers a boolean, which Lettuce's transaction output cannot take (it has no
        // set(boolean)): against RedisBloom as against deja, so this is shown under RESP2 only
        RedisClient client = RedisClient.create(RedisURI.builder()
                .withHost("127.0.0.1")
                .withPort(server.respPort())
                .withTimeout(Duration.ofSeconds(10))
                .build());
        client.setOptions(
                ClientOptions.builder().protocolVersion(ProtocolVersion.RESP2).build());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            RedisCommands<String, String> redis = connection.sync();
            redis.multi();
            redis.bfAdd("tx-lettuce-bf", "a");
            redis.bfAdd("tx-lettuce-bf", "a");
            redis.bfMExists("tx-lettuce-bf", "a", "b");
            assertThat(redis.exec()).containsExactly(true, false, List.of(true, false));
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    /** Sends {@code raw} on a new connection and reads until the replies end with {@code end}, EOF or 5 s. */
    private static String exchange(String raw, String end) throws IOException {
        return server.respExchange(raw, end);
    }
}
