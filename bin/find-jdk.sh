# Sourced by ./deja, ./run-tests and .ci/run: sets JAVA_HOME to a JDK >= 21 or exits with one sentence.
# Order: $JAVA_HOME, then the JDKs in the usual system directories (newest first), then java on PATH.

deja_java_major() { # prints the feature version of the java binary given, or nothing
  "$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = \([0-9][0-9]*\).*/\1/p' | head -n 1
}

deja_find_jdk() {
  local candidates=() dir
  [ -n "${JAVA_HOME:-}" ] && candidates+=("$JAVA_HOME")
  for dir in /usr/lib/jvm/* /usr/java/* /opt/java/* /opt/jdk* /Library/Java/JavaVirtualMachines/*/Contents/Home; do
    [ -d "$dir" ] && candidates+=("$dir")
  done
  if command -v javac >/dev/null 2>&1; then
    candidates+=("$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")")
  fi
  local best="" best_major=0 home major
  for home in "${candidates[@]}"; do
    [ -x "$home/bin/java" ] && [ -x "$home/bin/javac" ] || continue
    major="$(deja_java_major "$home/bin/java")"
    [ -n "$major" ] || continue
    if [ "$home" = "${JAVA_HOME:-}" ] && [ "$major" -ge 21 ]; then best="$home"; best_major="$major"; break; fi
    if [ "$major" -ge 21 ] && [ "$major" -gt "$best_major" ]; then best="$home"; best_major="$major"; fi
  done
  if [ -z "$best" ]; then
    echo "deja needs a JDK 21 or newer and found none (looked at \$JAVA_HOME, /usr/lib/jvm, /usr/java, /opt and javac on PATH); install one or set JAVA_HOME to it." >&2
    exit 1
  fi
  export JAVA_HOME="$best"
  export PATH="$JAVA_HOME/bin:$PATH"
  if [ "$best_major" -ge 24 ]; then
    # Maven itself touches sun.misc.Unsafe; JDK 24+ warns without this. Not in .mvn/jvm.config: JDK 17 would refuse it.
    export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"
    DEJA_JVM_FLAGS="--enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow"
  else
    DEJA_JVM_FLAGS=""
  fi
}
