/**
 * The exact store: every key held in RocksDB, in time-sliced generations dropped whole as they age out
 * (docs/DESIGN.md section 4). Its one package, {@code dev.deja.exact}, is the API.
 */
@SuppressWarnings({"module", "requires-automatic"
}) // rocksdbjni ships no module descriptor; its jar name gives its module name;
// the module named by the qualified export is built after this one
module dev.deja.rocksdb {
    requires transitive dev.deja.core;
    requires org.slf4j;
    requires rocksdbjni;

    exports dev.deja.exact;
    exports dev.deja.exact.threads to
            dev.deja.server;
}
