/**
 * Benchmarks (JMH) and load drivers for the stores and the server: never on the test path, run from the shaded jar
 * or the scripts in {@code deja-bench/scripts}, as docs/BENCHMARKS.md says. It exports no package.
 */
// rocksdbjni, JMH and Lettuce ship no module descriptor, so their jars' names give their modules' names
@SuppressWarnings("requires-automatic")
module dev.deja.bench {
    requires com.google.common;
    requires dev.deja.core;
    requires dev.deja.rocksdb;
    requires dev.deja.redis;
    requires info.picocli;
    requires jdk.management;
    requires jmh.core;
    requires rocksdbjni;

    // picocli reads and sets the annotated fields of the load driver's command
    opens dev.deja.bench.exact to
            info.picocli;
    opens dev.deja.bench.redis to
            info.picocli;
}
