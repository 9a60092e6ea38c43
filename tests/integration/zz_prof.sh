#!/bin/sh
set -u
T_TAG=zprf
WORLD_HERE=/work/main/tests/integration
. "$WORLD_HERE/lib.sh"
. "$WORLD_HERE/world.sh"
. "$WORLD_HERE/egressd.sh"
EGD_NO_EXIT_CHECK=1
t_init
world_up || exit 1
egd_sandbox || exit 1
world_bigfile || exit 1
CURL=$(readlink -f "$(command -v curl)")
egd_policy b.yaml <<E3
version: 1
network_policies:
  bench:
    endpoints:
      - { host: objects.githubusercontent.com, port: 443, protocol: rest, access: read-only }
    binaries:
      - path: $CURL
E3
egd_start -p "$EGD_POLICY" -q
EP=$(pgrep -f "build/egressd --netns $SBX" | head -1)
URL="https://objects.githubusercontent.com$WORLD_BIG_URLPATH"
egd_run "$CURL" --http1.1 -s -o /dev/null --cacert "$EGD_CA_BUNDLE" -w '%{speed_download}\n' "$URL"
perf record --call-graph dwarf,16384 -o /tmp/zprof.perf -p $EP -- sleep 4 >/dev/null 2>&1 &
PP=$!
for i in 1 2 3 4 5 6; do egd_run "$CURL" --http1.1 -s -o /dev/null --cacert "$EGD_CA_BUNDLE" -w '%{speed_download}\n' "$URL"; done
wait $PP
egd_stop
