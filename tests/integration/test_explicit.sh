#!/bin/sh
# SPDX-License-Identifier: ISC
# The explicit proxy (HTTPS_PROXY / HTTP_PROXY) with real clients in a
# sandbox namespace and real servers in the test world: CONNECT and plain
# HTTP, caller identity, denials with reasons and hints, audit mode, address
# checks, SNI/CONNECT mismatch, bulk transfer, half-close, identity races.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/world.sh"
. "$(dirname "$0")/egressd.sh"

t_init
world_up || { echo "Bail out! world_up failed"; exit 1; }
egd_sandbox || { echo "Bail out! sandbox"; exit 1; }

LINKDIR=$T_DIR/bin
mkdir -p "$LINKDIR"
ln -s /usr/bin/curl "$LINKDIR/curl-link"
PY=/usr/bin/python3
PYREAL=$(readlink -f $PY)

egd_policy policy.yaml <<EOF
version: 1
network_policies:
  web:
    endpoints:
      - { host: github.com, ports: [443, 7] }
      - { host: example.com, ports: [80, 443] }
      - { host: internal.example, port: 443 }
      - { host: mixed.example, port: 443 }
    binaries:
      - path: /usr/bin/curl
      - path: /usr/bin/openssl
  pilot:
    endpoints:
      - { host: pypi.org, port: 443, enforcement: audit }
    binaries:
      - path: /usr/bin/curl
  symlinked:
    endpoints:
      - { host: files.pythonhosted.org, port: 443 }
    binaries:
      - path: $LINKDIR/curl-link
  python:
    endpoints:
      - { host: example.com, ports: [80, 443, 7] }
    binaries:
      - path: $PYREAL
EOF

egd_start -p "$EGD_POLICY" --connect-timeout-ms 3000 ||
	{ echo "Bail out! egressd did not start"; exit 1; }
t_check "policy loads with the symlink warning" \
	grep -q "curl-link is a symlink to /usr/bin/curl" "$EGD_LOG"

CA=$WORLD_CA_FILE
curl_code() {
	# prints the HTTP code of the origin (000 when the tunnel failed)
	egd_run curl -s -o /dev/null -w '%{http_code}' --max-time 10 \
	    --cacert "$CA" "$@"
}

# --- allowed and denied -------------------------------------------------------
t_is "$(curl_code https://github.com/)" 200 "curl to an allowed host (CONNECT)"
t_is "$(curl_code http://example.com/)" 200 "curl to an allowed host (plain HTTP)"
t_check "decision logged as allowed for curl" \
	egd_json_has '"decision":"allowed".*"policy":"web"'

out=$(egd_run curl -sv --max-time 10 --cacert "$CA" https://evil.example/ 2>&1)
t_check "curl to a denied host gets 403" \
	sh -c 'printf "%s" "$1" | grep -q "< HTTP/1.1 403"' _ "$out"
t_check "the 403 carries the reason header" \
	sh -c 'printf "%s" "$1" | grep -qi "X-Egressd-Reason: no_matching_policy"' _ "$out"
body=$(egd_run curl -s --max-time 10 http://evil.example/)
t_check "the 403 body is JSON with reason, hint and next step" \
	sh -c 'printf "%s" "$1" | '"$PY"' -c "import json,sys; d=json.load(sys.stdin); assert d[\"reason\"]==\"no_matching_policy\" and d[\"binary\"]==\"/usr/bin/curl\" and \"host: evil.example, port: 80\" in d[\"hint\"] and d[\"next_step\"].startswith(\"egressctl explain\")"' _ "$body"
t_check "human line on stderr names binary, host, reason and hint" \
	grep -q "NET:OPEN \[MED\] DENIED /usr/bin/curl([0-9]*) -> evil.example:443 \[policy:- mode:enforce\] \[reason:no_matching_policy\] hint: " "$EGD_LOG"

# the same host from a binary the policy does not list
body=$(egd_run $PY -c '
import socket
s = socket.create_connection(("127.0.0.1", 3128))
s.sendall(b"CONNECT github.com:443 HTTP/1.1\r\nHost: github.com:443\r\n\r\n")
print(s.recv(65536).decode())')
t_check "python3 (not in the policy) is denied for github.com:443" \
	sh -c 'printf "%s" "$1" | grep -q "binary_not_allowed"' _ "$body"
t_check "its hint names the interpreter to add" \
	sh -c 'printf "%s" "$1" | grep -q "add .- path: '"$PYREAL"'. to the binaries of policy .web."' _ "$body"

# a policy naming a symlink
out=$(egd_run "$LINKDIR/curl-link" -sv --max-time 10 --cacert "$CA" \
    https://files.pythonhosted.org/ 2>&1)
t_check "a symlinked binary in the policy does not match (403)" \
	sh -c 'printf "%s" "$1" | grep -q "< HTTP/1.1 403"' _ "$out"
t_check "the symlink hint names the real path (log)" \
	egd_json_has '"reason":"binary_symlink".*write .- path: /usr/bin/curl. instead'
t_check "invoked_as is recorded" \
	egd_json_has "\"invoked_as\":\"$LINKDIR/curl-link\""

# audit endpoint: passes, logged as would_deny with the same reason
t_is "$(egd_run $PY -c '
import socket
s = socket.create_connection(("127.0.0.1", 3128))
s.sendall(b"CONNECT pypi.org:443 HTTP/1.1\r\nHost: pypi.org:443\r\n\r\n")
print(s.recv(100).decode().split("\r\n")[0])')" "HTTP/1.1 200 Connection established" \
	"audit endpoint: a binary not listed still gets through"
t_check "logged as would_deny with reason binary_not_allowed" \
	egd_json_has '"decision":"would_deny","reason":"binary_not_allowed","mode":"audit"'

# --- addresses ------------------------------------------------------------------
out=$(egd_run curl -sv --max-time 10 --cacert "$CA" https://198.18.0.10/ 2>&1)
t_check "an IP literal destination is denied (ip_not_allowed)" \
	sh -c 'printf "%s" "$1" | grep -qi "X-Egressd-Reason: ip_not_allowed"' _ "$out"
for lit in 127.1 2130706433 0x7f.0.0.1 '[::ffff:127.0.0.1]' 'example.com:0443'; do
	# raw requests: curl would rewrite these forms itself
	out=$(egd_run $PY -c '
import socket, sys
s = socket.create_connection(("127.0.0.1", 3128))
t = sys.argv[1] if sys.argv[1].count(":") == 1 and not sys.argv[1].startswith("[") else sys.argv[1] + ":443"
s.sendall(("CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (t, t)).encode())
print(s.recv(65536).decode().split("\r\n")[0])' "$lit")
	case $lit in
	'[::ffff:127.0.0.1]') want="HTTP/1.1 403 Forbidden" ;;
	*) want="HTTP/1.1 400 Bad Request" ;;
	esac
	t_is "$out" "$want" "CONNECT $lit is refused ($want)"
done
out=$(egd_run curl -sv --max-time 10 --cacert "$CA" https://internal.example/ 2>&1)
t_check "a name resolving to a private address is refused (502 non_public_address)" \
	sh -c 'printf "%s" "$1" | grep -qi "X-Egressd-Reason: non_public_address"' _ "$out"
t_check "nothing reached the private origin" \
	sh -c '! grep -q "internal.example" "$1"' _ "$WORLD_ACCESS_LOG"
t_is "$(curl_code --resolve mixed.example:443:198.18.0.32 https://mixed.example/)" 200 \
	"mixed public/private answers: only the public address is dialed"

# --- SNI must name the CONNECT host --------------------------------------------
out=$(echo | egd_run openssl s_client -proxy 127.0.0.1:3128 \
    -connect github.com:443 -servername evil.example -CAfile "$CA" 2>&1)
t_check "SNI different from the CONNECT host: tunnel closed before any certificate" \
	sh -c '! printf "%s" "$1" | grep -q "BEGIN CERTIFICATE"' _ "$out"
t_check "logged with reason sni_mismatch" \
	egd_json_has '"reason":"sni_mismatch"'
out=$(echo | egd_run openssl s_client -proxy 127.0.0.1:3128 \
    -connect github.com:443 -servername github.com -CAfile "$CA" 2>&1)
t_check "matching SNI through the same proxy works" \
	sh -c 'printf "%s" "$1" | grep -q "BEGIN CERTIFICATE" && printf "%s" "$1" | grep -q "Verify return code: 0"' _ "$out"

# --- bulk transfer and half-close ----------------------------------------------
world_bigfile
sum=$(egd_run curl -s --max-time 120 --cacert "$CA" \
    "https://github.com$WORLD_BIG_URLPATH" | sha256sum | cut -d' ' -f1)
t_is "$sum" "$WORLD_BIG_SHA256" "100 MiB through a CONNECT tunnel arrives intact"

out=$(egd_run $PY -c '
import socket
s = socket.create_connection(("127.0.0.1", 3128))
s.sendall(b"CONNECT example.com:7 HTTP/1.1\r\nHost: example.com:7\r\n\r\n")
head = b""
while b"\r\n\r\n" not in head:
    head += s.recv(1)
s.sendall(b"half-close works")
s.shutdown(socket.SHUT_WR)
got = b""
while True:
    b = s.recv(4096)
    if not b:
        break
    got += b
print(got.decode())')
t_is "$out" "half-close works" "client half-close: echo arrives, then EOF"

# --- keep-alive forward proxying decides every request --------------------------
out=$(egd_run curl -s --max-time 10 -o /dev/null -o /dev/null \
    -w '%{http_code} ' http://example.com/ http://evil.example/)
t_is "$out" "200 403 " "two requests on one connection: each decided on its own"

# --- identity races ---------------------------------------------------------------
# The caller exits before egressd looks at it: egressd is stopped while the
# client connects, sends its request and exits, then resumes.
kill -STOP "$EGD_PID"
egd_run $PY -c '
import socket
s = socket.create_connection(("127.0.0.1", 3128))
s.sendall(b"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")' 
kill -CONT "$EGD_PID"
t_wait_grep "$EGD_JSON" '"reason":"identity_no_owner"\|"reason":"identity_no_socket"' 500
t_check "a caller that exited before the lookup is denied" \
	egd_json_has '"reason":"identity_(no_owner|no_socket)"'

# One socket held by two processes running different executables.
kill -STOP "$EGD_PID"
egd_run $PY -c '
import socket, subprocess, sys
s = socket.create_connection(("127.0.0.1", 3128))
s.set_inheritable(True)
child = subprocess.Popen(["/bin/sleep", "30"], pass_fds=[s.fileno()])
s.sendall(b"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")
open(sys.argv[1], "w").write(str(child.pid) + "\n")
s.recv(1)
child.kill()' "$T_DIR/child.pid" 2>/dev/null &
runner=$!
t_wait_grep "$T_DIR/child.pid" "[0-9]" 500
kill -CONT "$EGD_PID"
t_wait_grep "$EGD_JSON" '"reason":"identity_ambiguous"' 500
t_check "a socket shared by two different executables is denied" \
	egd_json_has '"reason":"identity_ambiguous"'
wait "$runner" 2>/dev/null

# --- log records --------------------------------------------------------------
t_check "every JSON line is OCSF-shaped (class 4001 or 4003)" $PY -c '
import json, sys
n = 0
for line in open(sys.argv[1]):
    d = json.loads(line)
    assert d["class_uid"] in (4001, 4003), d
    assert "severity_id" in d and "dst_endpoint" in d and "egressd" in d
    assert d["egressd"]["reason"]
    n += 1
assert n > 10' "$EGD_JSON"
t_check "close records carry bytes and duration" \
	egd_json_has '"activity_name":"Close".*"traffic":\{"bytes_out":[0-9]+,"bytes_in":[1-9]'

# --- shutdown -------------------------------------------------------------------
egd_stop
t_done
