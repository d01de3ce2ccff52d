#!/usr/bin/env bash
# The chaos test at full size: 1,000,000 messages (5% copies, some far apart), the worker (a child process) killed
# with SIGKILL 5 times while they are produced, then a read_committed check, exactly-once (every unique id exactly
# once) and at-least-once (none missing). The test suite runs the same test with 10,000 messages and 3 kills.
# Usage: deja-kafka/scripts/chaos.sh [messages=1000000] [kills=5] [seed=37]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
. "$ROOT/bin/find-jdk.sh"
deja_find_jdk
cd "$ROOT"
exec mvn -B -Dstyle.color=never -pl deja-kafka -am verify -Dtest=ChaosTest -Dsurefire.failIfNoSpecifiedTests=false \
  -Dchaos.messages="${1:-1000000}" -Dchaos.kills="${2:-5}" -Dchaos.seed="${3:-37}" -Ddeja.kafka.test.heap=-Xmx4g
