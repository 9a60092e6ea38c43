#!/bin/sh
# SPDX-License-Identifier: ISC
# Resources and lifecycle of the explicit proxy: a timeout in every phase
# (head, TLS hello, DNS, connect, idle), connection caps, accept back-off on
# descriptor exhaustion, a client that never reads, resets without fd leaks,
# the Unix-socket listener (SO_PEERCRED), pinned and trust-on-first-use
# executable hashes, and SIGTERM draining.
. "$(dirname "$0")/lib.sh"
WORLD_DNS_EXTRA_ADD="blackhole-host.example 30 A 198.18.200.200"
. "$(dirname "$0")/world.sh"
WORLD_DNS_EXTRA="$WORLD_DNS_EXTRA
$WORLD_DNS_EXTRA_ADD"
. "$(dirname "$0")/egressd.sh"

t_init
world_up || { echo "Bail out! world_up failed"; exit 1; }
egd_sandbox || { echo "Bail out! sandbox"; exit 1; }

PY=/usr/bin/python3
PYREAL=$(readlink -f $PY)
CA=$WORLD_CA_FILE
CURLSUM=$(sha256sum /usr/bin/curl | cut -d' ' -f1)
# a raw client: send ARGV[1] (with \r\n escapes), print the first line back
raw() {
	egd_run $PY -c '
import socket, sys
s = socket.create_connection(("127.0.0.1", 3128))
s.sendall(sys.argv[1].encode().decode("unicode_escape").encode())
s.settimeout(30)
d = s.recv(65536).decode(errors="replace")
print(d.split("\r\n")[0] if d else "closed")' "$1"
}
# sockets and pipes only: the caller-identity cache keeps /proc handles of
# sandbox processes (bounded, dropped lazily), which are not connections
fds() { ls -l "/proc/$EGD_PID/fd" | grep -c -e 'socket:' -e 'pipe:'; }
rss_kib() { awk '/^VmRSS/ {print $2}' "/proc/$EGD_PID/status"; }

egd_policy policy.yaml <<EOF
version: 1
network_policies:
  all:
    endpoints:
      - { host: github.com, ports: [443, 7] }
      - { host: example.com, ports: [443, 7] }
      - { host: blackhole.example, port: 443 }
      - { host: blackhole-host.example, port: 443 }
    binaries:
      - path: $PYREAL
      - path: /usr/bin/curl
  pinned_good:
    endpoints:
      - { host: api.github.com, port: 443 }
    binaries:
      - { path: /usr/bin/curl, sha256: "$CURLSUM" }
  pinned_bad:
    endpoints:
      - { host: objects.githubusercontent.com, port: 443 }
    binaries:
      - { path: /usr/bin/curl, sha256: "0000000000000000000000000000000000000000000000000000000000000000" }
EOF

egd_start -p "$EGD_POLICY" --head-timeout-ms 500 --hello-timeout-ms 500 \
    --connect-timeout-ms 700 --dns-timeout-ms 300 --idle-timeout-ms 1500 \
    --max-conns-per-caller 20 --listen-unix "$T_DIR/egressd.sock" ||
	{ echo "Bail out! egressd did not start"; exit 1; }

# --- a timeout in every phase ----------------------------------------------
t_is "$(raw 'CONNECT example.com:443 HTTP/1.1\r\nHost: exa')" \
	"HTTP/1.1 408 Request Timeout" "slowloris on the request head: 408 at the head deadline"
t_is "$(egd_run $PY -c '
import socket
s = socket.create_connection(("127.0.0.1", 3128))
s.sendall(b"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")
s.recv(1000)
s.sendall(b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03")  # a hello that stops
s.settimeout(10)
print("closed" if s.recv(100) == b"" else "open")')" closed \
	"slowloris on the TLS ClientHello: tunnel closed at the hello deadline"
t_check "...logged with reason timeout" egd_json_has '"reason":"timeout".*"reason_text":"no complete TLS ClientHello'
t_is "$(raw 'CONNECT blackhole.example:443 HTTP/1.1\r\nHost: blackhole.example:443\r\n\r\n')" \
	"HTTP/1.1 504 Gateway Timeout" "DNS blackhole: 504 after the resolver timeout"
t_is "$(raw 'CONNECT blackhole-host.example:443 HTTP/1.1\r\nHost: blackhole-host.example:443\r\n\r\n')" \
	"HTTP/1.1 504 Gateway Timeout" "upstream that never answers SYN: 504 at the connect deadline"
t_is "$(egd_run $PY -c '
import socket, time
s = socket.create_connection(("127.0.0.1", 3128))
s.sendall(b"CONNECT example.com:7 HTTP/1.1\r\nHost: example.com:7\r\n\r\n")
s.recv(1000)
s.settimeout(10)
t = time.monotonic()
print("closed" if s.recv(100) == b"" else "data")')" closed "an idle tunnel is closed at the idle deadline"
t_check "...and its close record says timeout" \
	egd_json_has '"activity_name":"Close".*"hostname":"example.com".*"port":7.*"reason":"timeout"'

# --- caps -------------------------------------------------------------------------
out=$(egd_run $PY -c '
import socket
socks, codes = [], []
for i in range(25):
    s = socket.create_connection(("127.0.0.1", 3128))
    s.sendall(b"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")
    codes.append(s.recv(1000).decode().split(" ")[1])
    socks.append(s)
print(" ".join(sorted(set(codes))), codes.count("503"))')
t_is "$out" "200 503 5" "per-caller cap: 20 tunnels for one executable, the next 5 get 503"
t_check "...with reason conn_limit" egd_json_has '"reason":"conn_limit"'

# --- Unix-socket listener -------------------------------------------------------
out=$(ip netns exec "$SBX" $PY -c '
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(b"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")
print(s.recv(1000).decode().split("\r\n")[0])' "$T_DIR/egressd.sock")
t_is "$out" "HTTP/1.1 200 Connection established" "Unix listener: the caller comes from SO_PEERCRED"
t_check "...recorded with the real executable and ingress unix-connect" \
	egd_json_has "\"path\":\"$PYREAL\".*\"decision\":\"allowed\".*\"ingress\":\"unix-connect\""

# --- executable hashes --------------------------------------------------------
t_is "$(egd_run curl -s -o /dev/null -w '%{http_code}' --cacert "$CA" https://api.github.com/)" \
	200 "sha256 pinned in the policy and matching: allowed"
t_is "$(egd_run curl -s -o /dev/null -w '%{http_code}' --cacert "$CA" https://objects.githubusercontent.com/)" \
	000 "sha256 pinned and different: denied"
t_check "...with reason binary_hash_mismatch" egd_json_has '"reason":"binary_hash_mismatch"'

# --- a client that never reads; resets; no fd leaks -------------------------------
world_bigfile
fd0=$(fds)
rss0=$(rss_kib)
egd_run $PY -c '
import socket, time
s = socket.create_connection(("127.0.0.1", 3128))
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
s.sendall(b"CONNECT example.com:7 HTTP/1.1\r\nHost: example.com:7\r\n\r\n")
s.recv(1000)
blob = b"x" * (1 << 20)
# the echo service sends everything back; we never read it
for i in range(64):
    try:
        s.settimeout(0.5)
        s.sendall(blob)
    except socket.timeout:
        break
print("stalled")' >/dev/null
rss1=$(rss_kib)
t_check "a client that never reads: egressd memory stays flat ($rss0 -> $rss1 KiB)" \
	test $((rss1 - rss0)) -lt 2048
egd_run $PY -c '
import socket, struct
for i in range(20):
    s = socket.create_connection(("127.0.0.1", 3128))
    s.sendall(b"CONNECT example.com:7 HTTP/1.1\r\nHost: example.com:7\r\n\r\n")
    s.recv(1000)
    s.sendall(b"x" * 100000)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.close()  # reset mid-transfer'
# the resets are handled asynchronously: poll until the count settles
i=0
while [ "$(fds)" -gt "$fd0" ] && [ $i -lt 300 ]; do i=$((i + 1)); sleep 0.01; done
t_check "resets mid-transfer leave no descriptor behind ($fd0 -> $(fds))" test "$(fds)" -le "$fd0"
[ "$(fds)" -le "$fd0" ] || ls -l "/proc/$EGD_PID/fd" | sed 's/^/# /'
t_diag "sessions: $(grep -c '"activity_name":"Open"' "$EGD_JSON") open records, $(grep -c '"activity_name":"Close"' "$EGD_JSON") close records"

# --- descriptor exhaustion: back off, do not spin -----------------------------
egd_stop
egd_start -p "$EGD_POLICY" || { echo "Bail out! restart"; exit 1; }
nofile=$(prlimit --pid "$EGD_PID" --nofile --output SOFT --noheadings | tr -d ' ')
prlimit --pid "$EGD_PID" --nofile=40:
egd_run $PY -c '
import socket, time
socks = []
for i in range(60):
    s = socket.socket()
    s.setblocking(False)
    try:
        s.connect(("127.0.0.1", 3128))
    except BlockingIOError:
        pass
    socks.append(s)
time.sleep(1.5)  # hold them while egressd is at its limit (the measured window)
' &
holder=$!
t_wait_grep "$EGD_LOG" "accept: Too many open files; pausing" 500
cpu0=$(awk '{print $14 + $15}' "/proc/$EGD_PID/stat")
wait "$holder"
cpu1=$(awk '{print $14 + $15}' "/proc/$EGD_PID/stat")
t_check "at the descriptor limit egressd pauses accepting" \
	grep -q "accept: Too many open files; pausing" "$EGD_LOG"
t_check "...without spinning ($((cpu1 - cpu0)) ticks of CPU over the held window)" \
	test $((cpu1 - cpu0)) -lt 30
prlimit --pid "$EGD_PID" --nofile="$nofile":
t_is "$(egd_run curl -s -o /dev/null -w '%{http_code}' --cacert "$CA" https://example.com/)" \
	200 "after the pressure is gone, new connections are served again"

# --- SIGUSR1 reopens the decision log (log rotation) ----------------------------
mv "$EGD_JSON" "$EGD_JSON.1"
kill -USR1 "$EGD_PID"
t_wait_grep "$EGD_LOG" "SIGUSR1: log files reopened" 500
egd_run curl -s -o /dev/null --cacert "$CA" https://example.com/
t_wait_grep "$EGD_JSON" '"hostname":"example.com"' 500
t_check "SIGUSR1: after rotation, records go to a new file" \
	egd_json_has '"hostname":"example.com"'

# --- SIGTERM drains open tunnels -----------------------------------------------
egd_run $PY -c '
import socket, sys, time
s = socket.create_connection(("127.0.0.1", 3128))
s.sendall(b"CONNECT example.com:7 HTTP/1.1\r\nHost: example.com:7\r\n\r\n")
s.recv(1000)
open(sys.argv[1], "w").write("up\n")
time.sleep(0.5)
s.sendall(b"still here")
print(s.recv(100).decode())' "$T_DIR/drain.flag" >"$T_DIR/drain.out" &
client=$!
t_wait_grep "$T_DIR/drain.flag" up 500
kill -TERM "$EGD_PID"
wait "$client"
t_is "$(cat "$T_DIR/drain.out")" "still here" "SIGTERM: an open tunnel keeps working while egressd drains"
wait "$EGD_PID" 2>/dev/null
t_is $? 0 "...then egressd exits 0"
t_check "...and says so" grep -q "draining 1 connection" "$EGD_LOG"
EGD_PID=""
t_done
