/**
 * The Redis-protocol (RESP2 and RESP3) front end: the pipeline of each connection
 * ({@link dev.deja.resp.RespFrontEnd}), the assembly of commands from Netty's Redis decoder, the dispatch that checks
 * and runs them or queues them inside {@code MULTI}, and the command families: connection, transactions,
 * RedisBloom's {@code BF.*}, deja's own {@code DJ.*} and Redis's key-value commands. The protocol is in
 * docs/PROTOCOL.md.
 */
package dev.deja.resp;
