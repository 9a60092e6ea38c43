#!/bin/sh
set -u
T_TAG=zres
WORLD_HERE=/work/main/tests/integration
. "$WORLD_HERE/lib.sh"
. "$WORLD_HERE/world.sh"
. "$WORLD_HERE/egressd.sh"
t_init
world_up || exit 1
OBJ=$(world_addr objects.githubusercontent.com)
ip netns exec "$PROXY_NS" sh -c "sleep 0.5 | openssl s_client -connect $OBJ:443 -servername objects.githubusercontent.com -CAfile $WORLD_CA_FILE -sess_out $T_DIR/s.pem 2>&1 | grep -E 'Reused|New,|Verif|Protocol' | head -3; sleep 0.3; sleep 0.5 | openssl s_client -connect $OBJ:443 -servername objects.githubusercontent.com -CAfile $WORLD_CA_FILE -sess_in $T_DIR/s.pem 2>&1 | grep -E 'Reused|New,|Protocol' | head -3"
grep -n "ssl_session\|worker_processes\|ssl_protocols\|ssl_certificate " $WORLD_DIR/*.conf $WORLD_DIR/*/*.conf 2>/dev/null | head
