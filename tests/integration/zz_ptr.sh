#!/bin/sh
set -u
T_TAG=zptr
WORLD_HERE=/work/main/tests/integration
. "$WORLD_HERE/lib.sh"
. "$WORLD_HERE/world.sh"
. "$WORLD_HERE/egressd.sh"
EGD_NO_EXIT_CHECK=1
NETBENCH=/work/main/build/tests/helpers/netbench
t_init
world_up || exit 1
egd_sandbox || exit 1
NB=$(readlink -f $NETBENCH)
OBJ=$(world_addr objects.githubusercontent.com)
egd_policy b.yaml <<E3
version: 1
network_policies:
  bench:
    endpoints:
      - { host: objects.githubusercontent.com, port: 443, protocol: rest, access: read-only }
    binaries:
      - path: $NB
E3
egd_start -p "$EGD_POLICY" -q
ip netns exec "$SBX" "$NETBENCH" conn -n 50 -w 20 -C "$EGD_CA_BUNDLE" -H objects.githubusercontent.com "itransparent:-:$OBJ:443" 2>&1 | grep ttfb_median
EP=$(pgrep -f "build/egressd --netns $SBX" | head -1)
PT=""
PT=$!
sleep 2
ip netns exec "$SBX" "$NETBENCH" conn -n 50 -w 0 -C "$EGD_CA_BUNDLE" -H objects.githubusercontent.com "itransparent:-:$OBJ:443" 2>&1 | grep ttfb_median
sleep 0.5

EGRESSD_CONTROL=$EGD_CONTROL /work/main/build/egressctl status | grep tls
grep DEBUG $EGD_LOG | head -12; egd_stop
