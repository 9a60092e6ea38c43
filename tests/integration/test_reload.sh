#!/bin/sh
# SPDX-License-Identifier: ISC
# Policy reload under load: tunnels in flight and new connections arriving
# while the policy is reloaded many times (SIGHUP, the control socket,
# --watch) lose nothing that is still allowed; a revoked destination's tunnel
# is closed in enforce mode and flagged in audit mode; an invalid policy
# leaves the old one in force; the metrics endpoint and the control socket
# report it all.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/world.sh"
. "$(dirname "$0")/egressd.sh"

t_init
world_up || { echo "Bail out! world_up failed"; exit 1; }
egd_sandbox || { echo "Bail out! sandbox"; exit 1; }

PY=/usr/bin/python3
PYREAL=$(readlink -f $PY)
CA=$WORLD_CA_FILE
ctl() { printf '%s\n' "$1" | socat -t 30 - "UNIX-CONNECT:$EGD_CONTROL"; }

policy() {
	# policy VARIANT: the same allowances, plus VARIANT-specific lines
	cat >"$T_DIR/policy.yaml.new" <<EOF
version: 1
network_policies:
  tools:
    endpoints:
      - { host: example.com, ports: [443, 7] }
      - { host: github.com, port: 443 }
$1
    binaries:
      - path: $PYREAL
      - path: /usr/bin/curl
EOF
	mv "$T_DIR/policy.yaml.new" "$T_DIR/policy.yaml"
}

policy ""
egd_start -p "$T_DIR/policy.yaml" --watch --metrics 127.0.0.1:9187 ||
	{ echo "Bail out! egressd did not start"; exit 1; }
EGD_POLICY=$T_DIR/policy.yaml

# --- streams in flight and new connections during 20 reloads ----------------
egd_run $PY -c '
import socket, sys, threading, time
errors, done = [], threading.Event()
def stream(i):
    try:
        s = socket.create_connection(("127.0.0.1", 3128))
        s.sendall(b"CONNECT example.com:7 HTTP/1.1\r\nHost: example.com:7\r\n\r\n")
        if not s.recv(1000).startswith(b"HTTP/1.1 200"):
            errors.append("refused"); return
        s.settimeout(10)
        n = 0
        while not done.is_set():
            msg = b"%d-%d;" % (i, n)
            s.sendall(msg)
            got = b""
            while len(got) < len(msg):
                b = s.recv(len(msg) - len(got))
                if not b:
                    errors.append("stream %d closed after %d" % (i, n)); return
                got += b
            if got != msg:
                errors.append("stream %d corrupt" % i); return
            n += 1
    except Exception as e:
        errors.append("stream %d: %r" % (i, e))
ts = [threading.Thread(target=stream, args=(i,)) for i in range(4)]
for t in ts: t.start()
open(sys.argv[1], "w").write("started\n")
while not open(sys.argv[2]).read().strip():
    time.sleep(0.05)   # wait for the reloads to finish (polling a flag)
done.set()
for t in ts: t.join()
print("errors:", errors)' "$T_DIR/streams.up" "$T_DIR/reloads.done" >"$T_DIR/streams.out" 2>"$T_DIR/streams.err" &
streams=$!
: >"$T_DIR/reloads.done"
t_wait_grep "$T_DIR/streams.up" started 500
egd_run sh -c 'n=0; f=0; while [ ! -s "$1" ]; do
	code=$(curl -s -o /dev/null -w "%{http_code}" --cacert "$2" https://example.com/)
	n=$((n + 1)); [ "$code" = 200 ] || f=$((f + 1))
done; echo "$n $f"' _ "$T_DIR/reloads.done" "$CA" >"$T_DIR/curls.out" &
curls=$!
for i in $(seq 1 20); do
	case $((i % 3)) in
	0) kill -HUP "$EGD_PID" ;;
	1) ctl reload >/dev/null ;;
	2) policy "      - { host: pypi.org, port: 443 }  # variant $i" ;;
	esac
	# each reload must have happened before the next: poll the generation
	want=$((i + 1))
	j=0
	until ctl status | grep -q "\"generation\":$want,"; do
		j=$((j + 1)); [ $j -gt 300 ] && break; sleep 0.01
	done
done
echo done >"$T_DIR/reloads.done"
wait "$streams"
wait "$curls"
t_is "$(ctl status | $PY -c 'import json,sys; print(json.load(sys.stdin)["policy"]["generation"])')" \
	21 "20 reloads happened (SIGHUP, control socket, file changes)"
t_is "$(cat "$T_DIR/streams.out")" "errors: []" \
	"4 tunnels in flight through all reloads: no byte lost, none closed"
read -r ncurl nfail <"$T_DIR/curls.out"
t_check "new connections during the reloads all succeeded ($ncurl made, $nfail failed)" \
	test "$nfail" -eq 0 -a "$ncurl" -gt 0

# --- an invalid policy leaves the old one in force ----------------------------
printf 'version: 1\nnetwork_policies:\n  broken: [\n' >"$T_DIR/policy.yaml"
out=$(ctl reload)
t_check "an invalid policy is refused with file:line:col errors" \
	sh -c 'printf "%s" "$1" | grep -q "\"ok\":false.*\"line\":4"' _ "$out"
t_is "$(egd_run curl -s -o /dev/null -w '%{http_code}' --cacert "$CA" https://github.com/)" \
	200 "...and the running policy stays in force"
# the metrics endpoint lives in egressd's own namespace, not the sandbox's
t_check "the failure is counted in the metrics" \
	sh -c 'ip netns exec "$1" curl -s http://127.0.0.1:9187/metrics | grep -q "^egressd_policy_reload_failures_total [1-9]"' _ "$PROXY_NS"
t_check "the metrics endpoint is not reachable from the sandbox" \
	t_not egd_run curl -s --max-time 3 http://127.0.0.1:9187/metrics

# --- a revoked destination's tunnel is closed (enforce) ---------------------
policy ""
ctl reload >/dev/null
egd_run $PY -c '
import socket, sys, time
s = socket.create_connection(("127.0.0.1", 3128))
s.sendall(b"CONNECT example.com:7 HTTP/1.1\r\nHost: example.com:7\r\n\r\n")
s.recv(1000)
open(sys.argv[1], "w").write("open\n")
s.settimeout(20)
print("closed" if s.recv(100) == b"" else "data")' "$T_DIR/revoke.up" >"$T_DIR/revoke.out" &
client=$!
t_wait_grep "$T_DIR/revoke.up" open 500
cat >"$T_DIR/policy.yaml" <<EOF
version: 1
network_policies:
  tools:
    endpoints:
      - { host: example.com, port: 443 }
    binaries:
      - path: $PYREAL
EOF
out=$(ctl reload)
wait "$client"
t_is "$(cat "$T_DIR/revoke.out")" closed "a tunnel the new policy revokes is closed"
# --watch may see the new file before egressctl asks: either reload reports it
t_check "the reload reports it" sh -c 'printf "%s" "$1" | grep -q "\"revoked\":1" ||
    grep -q "; 1 connection revoked" "$2"' _ "$out" "$EGD_LOG"
t_check "...and the log says policy_revoked with the new reason" \
	egd_json_has '"reason":"policy_revoked".*"detail":"port_not_allowed"'

# --- the same in audit mode: flagged, not closed ---------------------------
egd_stop
policy ""
egd_start -p "$T_DIR/policy.yaml" --audit-all || { echo "Bail out! restart"; exit 1; }
egd_run $PY -c '
import socket, sys, time
s = socket.create_connection(("127.0.0.1", 3128))
s.sendall(b"CONNECT example.com:7 HTTP/1.1\r\nHost: example.com:7\r\n\r\n")
s.recv(1000)
open(sys.argv[1], "w").write("open\n")
while not open(sys.argv[2]).read().strip():
    time.sleep(0.05)
s.sendall(b"ping")
print(s.recv(100).decode())' "$T_DIR/audit.up" "$T_DIR/audit.go" >"$T_DIR/audit.out" &
client=$!
: >"$T_DIR/audit.go"
t_wait_grep "$T_DIR/audit.up" open 500
cat >"$T_DIR/policy.yaml" <<EOF
version: 1
network_policies:
  tools:
    endpoints:
      - { host: example.com, port: 443 }
    binaries:
      - path: $PYREAL
EOF
out=$(ctl reload)
echo go >"$T_DIR/audit.go"
wait "$client"
t_is "$(cat "$T_DIR/audit.out")" ping "audit mode: the revoked tunnel keeps working"
t_check "...and is flagged" sh -c 'printf "%s" "$1" | grep -q "\"flagged\":1"' _ "$out"
t_check "...as would_deny policy_revoked in the log" \
	egd_json_has '"decision":"would_deny","reason":"policy_revoked"'

egd_stop
t_done
