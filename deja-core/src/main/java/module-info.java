/**
 * deja's core: the seen-set contract, the stores held in memory (bloom, recent), hashing, the compact codec, sizing
 * math, and the journal and snapshots that make the in-memory stores durable (docs/DESIGN.md sections 1 to 5).
 *
 * <p>The exported packages are the API. The helpers the other deja modules share with this one (argument checks,
 * directory syncs, the shared background threads, deferred journal writes) are exported to those modules only.
 */
@SuppressWarnings("module") // the modules named by the qualified exports are built after this one
module dev.deja.core {
    requires com.dynatrace.hash4j;
    requires org.slf4j;
    // the bloom filter's vector lookups (VectorBlocks), used only when the JVM adds the incubator module
    requires static jdk.incubator.vector;
    // the JVM's G1 region size (ChunkedBits sizes its chunks by it); without the module, a default size
    requires static jdk.management;

    exports dev.deja.seen;
    exports dev.deja.hash;
    exports dev.deja.bloom;
    exports dev.deja.recent;
    exports dev.deja.compact;
    exports dev.deja.cuckoo;
    exports dev.deja.sizing;
    exports dev.deja.journal;
    exports dev.deja.checks to
            dev.deja.rocksdb,
            dev.deja.redis;
    exports dev.deja.files to
            dev.deja.rocksdb,
            dev.deja.server;
    exports dev.deja.background to
            dev.deja.rocksdb,
            dev.deja.server;
    exports dev.deja.journal.deferred to
            dev.deja.server;
}
