#!/bin/sh
# SPDX-License-Identifier: ISC
# Access control inside TLS (protocol: rest): egressd terminates TLS with its
# own CA and decides every request. Real git (clone works, push is refused
# under read-only), pip (download yes, upload no), curl (methods, keep-alive,
# upgrades), untrusted or misnamed upstream certificates, audit mode, and an
# endpoint without protocol: rest left untouched.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/world.sh"
. "$(dirname "$0")/egressd.sh"

t_init
world_up || { echo "Bail out! world_up failed"; exit 1; }
egd_sandbox || { echo "Bail out! sandbox"; exit 1; }

PY=/usr/bin/python3
PYREAL=$(readlink -f $PY)
GITR=/usr/lib/git-core/git-remote-http

egd_policy ro.yaml <<EOF
version: 1
network_policies:
  github:
    endpoints:
      - { host: github.com, port: 443, protocol: rest, access: read-only }
    binaries:
      - path: $GITR
  pypi:
    endpoints:
      - { host: pypi.org, port: 443, protocol: rest, access: read-only }
      - { host: files.pythonhosted.org, port: 443, protocol: rest, access: read-only }
    binaries:
      - path: $PYREAL
  web:
    endpoints:
      - host: example.com
        ports: [443, 80]
        protocol: rest
        access: read-only
        rules:
          - allow: { method: PUT, path: "/echo/uploads/**" }
        deny_rules:
          - { method: GET, path: "/echo/secret" }
      - { host: badcert.example, port: 443, protocol: rest, access: full }
      - { host: wrongname.example, port: 443, protocol: rest, access: full }
      - { host: api.github.com, port: 443 }
      - { host: objects.githubusercontent.com, port: 443, protocol: rest, access: read-only, enforcement: audit }
    binaries:
      - path: /usr/bin/curl
      - path: /usr/bin/openssl
      - path: $PYREAL
EOF
egd_start -p "$EGD_POLICY" || { echo "Bail out! egressd did not start"; exit 1; }
BUNDLE=$EGD_CA_BUNDLE
t_check "the CA certificate and bundle are readable by the sandbox" \
	test -r "$T_DIR/ca/ca.pem" -a -r "$BUNDLE"
# tools trust egressd's CA through the usual variables (egressd-netns run
# --ca-bundle sets SSL_CERT_FILE, CURL_CA_BUNDLE, GIT_SSL_CAINFO, PIP_CERT...)
run() { egd__run "--no-proxy-env --ca-bundle $BUNDLE" "$@"; }
code() { run curl -s -o /dev/null -w '%{http_code}' "$@"; }

# --- git: clone under read-only, push refused ------------------------------------
run git clone -q "$WORLD_GIT_URL" "$T_DIR/widget" >"$T_DIR/git.log" 2>&1
t_is "$(git -C "$T_DIR/widget" rev-parse HEAD 2>/dev/null)" "$WORLD_GIT_HEAD" \
	"git clone through interception under access: read-only"
git -C "$T_DIR/widget" -c user.email=t@example.com -c user.name=t commit -q \
    --allow-empty -m "egressd test"
out=$(run git -C "$T_DIR/widget" push -q origin HEAD:main 2>&1)
t_ok $(( $? == 0 )) "git push under read-only is refused"
t_check "...and the user sees why (403)" sh -c 'printf "%s" "$1" | grep -q 403' _ "$out"
t_check "...logged as git_push_not_allowed with a hint" \
	egd_json_has '"http_method":"GET".*info/refs.*"reason":"git_push_not_allowed"'
t_check "requests are logged as HTTP Activity (4002)" \
	egd_json_has '"class_uid":4002.*"http_method":"POST".*git-upload-pack'

# --- pip: download yes, upload no ------------------------------------------------
run $PY -m pip download --no-deps --no-cache-dir --index-url "$WORLD_PYPI_INDEX" \
    -d "$T_DIR/wheels" egressd-probe >"$T_DIR/pip.log" 2>&1
t_ok $? "pip download under read-only"
out=$(run $PY -c '
import urllib.request, urllib.error
req = urllib.request.Request("https://pypi.org/legacy/", data=b"x", method="POST")
try:
    urllib.request.urlopen(req, timeout=10); print("200")
except urllib.error.HTTPError as e:
    print(e.code, e.headers.get("X-Egressd-Reason"))')
t_is "$out" "403 method_not_allowed" "an upload (POST) to the same index is refused"

# --- curl: methods, rules, keep-alive ----------------------------------------
t_is "$(code https://example.com/echo/x)" 200 "GET allowed by the preset"
body=$(run curl -s -X DELETE https://example.com/echo/x)
t_check "DELETE refused with a JSON 403 naming method, path and the fix" \
	sh -c 'printf "%s" "$1" | '"$PY"' -c "import json,sys; d=json.load(sys.stdin); assert d[\"method\"]==\"DELETE\" and d[\"path\"]==\"/echo/x\" and d[\"reason\"]==\"method_not_allowed\" and d[\"hint\"]"' _ "$body"
t_is "$(code -X PUT --data x https://example.com/echo/uploads/a/b)" 200 \
	"PUT allowed by an explicit rule"
t_is "$(code -X PUT --data x https://example.com/echo/other)" 403 \
	"PUT outside the rule's path refused"
t_is "$(code https://example.com/echo/secret)" 403 "a deny rule wins over the preset"
t_is "$(code https://example.com/echo/a/%2e%2e/secret)" 403 \
	"dot segments are canonicalized before matching"
uri=$(run curl -s --path-as-is \
    "https://example.com/echo/a/%2e%2e/x//y/%7e?q=%7e+1" | grep "^uri ")
t_is "$uri" "uri /echo/x/y/~?q=%7e+1" \
	"the server gets the canonical path that was decided on, query as sent"
out=$(run curl -s -o /dev/null -o /dev/null -w '%{http_code} ' -X DELETE \
    https://example.com/echo/a https://example.com/echo/b)
t_is "$out" "403 403 " "each request on one connection is decided"
out=$(run sh -c 'curl -s -o /dev/null -w "%{http_code} " -X DELETE https://example.com/echo/a --next -s -o /dev/null -w "%{http_code} %{num_connects}" https://example.com/echo/b')
t_is "$out" "403 200 0" "after a refused request the connection stays usable"
# Responses of many TLS records, the last ones arriving together while the
# server then waits on the kept-alive connection: each must arrive whole
# without the server closing (records egressd's upstream TLS read ahead are
# relayed, not left waiting for more bytes from the socket).
world_file ka-3M.bin 3145728
out=$(run curl -s --max-time 20 -o "$T_DIR/ka1" -o "$T_DIR/ka2" \
    -w '%{http_code} %{num_connects} ' https://example.com/files/ka-3M.bin \
    https://example.com/files/ka-3M.bin)
t_is "$out" "200 1 200 0 " "two 3 MiB responses on one intercepted connection"
t_is "$(cat "$T_DIR/ka1" "$T_DIR/ka2" | sha256sum | cut -d' ' -f1)" \
    "$(cat "$WORLD_FILES_DIR/ka-3M.bin" "$WORLD_FILES_DIR/ka-3M.bin" | sha256sum | cut -d' ' -f1)" \
    "...both intact"
out=$(run curl -s -o /dev/null -w '%{http_code}' -H 'Connection: Upgrade' \
    -H 'Upgrade: websocket' -H 'Sec-WebSocket-Version: 13' \
    -H 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==' https://example.com/echo/ws)
t_is "$out" 403 "a WebSocket upgrade outside access: full is refused"
out=$(run curl -s -o /dev/null -w '%{http_code}' --http2-prior-knowledge \
    https://example.com/ 2>&1)
t_check "HTTP/2 prior knowledge is refused ($out)" test "$out" != 200

st=$(EGRESSD_CONTROL=$EGD_CONTROL "${EGRESSD_BUILD:-$EGD_ROOT/build}/egressctl" status --json)
t_check "upstream TLS sessions are resumed by the server (per host; no chain sent or verified again)" \
	sh -c 'printf "%s" "$1" | '"$PY"' -c "import json,sys; t=json.load(sys.stdin)[\"tls\"]; assert t[\"upstream_resumptions\"] > 0 and t[\"leaf_cache_hits\"] > 0, t"' _ "$st"

# --- plain HTTP to the same endpoint: decided request by request too ----------
t_is "$(code http://example.com/echo/x)" 200 \
	"transparent plain HTTP: GET allowed by the preset"
body=$(run curl -s -X DELETE http://example.com/echo/x)
t_check "transparent plain HTTP: DELETE refused with the JSON 403" \
	sh -c 'printf "%s" "$1" | '"$PY"' -c "import json,sys; d=json.load(sys.stdin); assert d[\"method\"]==\"DELETE\" and d[\"reason\"]==\"method_not_allowed\""' _ "$body"
out=$(run sh -c 'curl -s -o /dev/null -w "%{http_code} " -X DELETE http://example.com/echo/a --next -s -o /dev/null -w "%{http_code} %{num_connects}" http://example.com/echo/b')
t_is "$out" "403 200 0" "transparent plain HTTP: the connection stays usable"
uri=$(run curl -s --path-as-is "http://example.com/echo/a/%2e%2e/x//y?q=1" |
    grep "^uri ")
t_is "$uri" "uri /echo/x/y?q=1" \
	"transparent plain HTTP: the server gets the canonical path"
px() { egd__run "--ca-bundle $BUNDLE" "$@"; }
t_is "$(px curl -s -o /dev/null -w '%{http_code}' http://example.com/echo/x)" \
	200 "explicit proxy plain HTTP: GET allowed by the preset"
out=$(px curl -s -w ' %{http_code}' -X DELETE http://example.com/echo/x)
t_check "explicit proxy plain HTTP: DELETE refused with its reason ($out)" \
	sh -c 'printf "%s" "$1" | tr -d "\n" | grep -q "method_not_allowed.* 403$"' _ "$out"
uri=$(px curl -s --path-as-is "http://example.com/echo/a/%2e%2e/x//y?q=1" |
    grep "^uri ")
t_is "$uri" "uri /echo/x/y?q=1" \
	"explicit proxy plain HTTP: the server gets the canonical path"
t_check "...each request logged with its decision" \
	egd_json_has '"class_uid":4002.*"port":80\b.*"http_method":"DELETE","url":{"path":"/echo/x".*"reason":"method_not_allowed"'

# --- upstream certificates ------------------------------------------------------
out=$(run curl -s -w '%{http_code}' https://badcert.example/)
t_check "an upstream with an untrusted certificate is refused" \
	sh -c 'printf "%s" "$1" | grep -q "upstream_tls_failed"' _ "$out"
out=$(run curl -s -w '%{http_code}' https://wrongname.example/)
t_check "an upstream with a certificate for another name is refused" \
	sh -c 'printf "%s" "$1" | grep -q "upstream_tls_failed"' _ "$out"
t_check "...logged with the verification error" \
	egd_json_has '"reason":"upstream_tls_failed".*"detail":"certificate verification failed'

# --- audit mode, and endpoints left alone -----------------------------------------
t_is "$(code -X DELETE https://objects.githubusercontent.com/echo/x)" 200 \
	"audit endpoint: a refused method passes"
t_check "...and is logged as would_deny" \
	egd_json_has '"http_method":"DELETE".*"decision":"would_deny","reason":"method_not_allowed"'
issuer=$(echo | run openssl s_client -connect api.github.com:443 \
    -servername api.github.com 2>/dev/null | grep '^issuer=')
t_check "an endpoint without protocol: rest is not intercepted ($issuer)" \
	sh -c '! printf "%s" "$1" | grep -q "egressd interception CA"' _ "$issuer"
issuer=$(echo | run openssl s_client -connect example.com:443 \
    -servername example.com 2>/dev/null | grep '^issuer=')
t_check "...while a rest endpoint presents egressd's CA ($issuer)" \
	sh -c 'printf "%s" "$1" | grep -q "egressd interception CA"' _ "$issuer"

# --- full access: push works ---------------------------------------------------
egd_stop
sed 's/access: read-only }/access: full }/' "$T_DIR/ro.yaml" >"$T_DIR/full.yaml"
egd_start -p "$T_DIR/full.yaml" || { echo "Bail out! restart"; exit 1; }
BUNDLE=$EGD_CA_BUNDLE
run git -C "$T_DIR/widget" push -q origin HEAD:main >"$T_DIR/push.log" 2>&1
t_ok $? "git push under access: full"
t_is "$(run git ls-remote "$WORLD_GIT_URL" main | cut -f1)" \
	"$(git -C "$T_DIR/widget" rev-parse HEAD)" "...and the push arrived"
egd_stop

# --- the seed's engineer policy, enforced -------------------------------------
# policies/examples/engineer.yaml as published, with the interpreter it names
# (python3.12 on the pilot's image) replaced by this machine's
sed "s|/usr/bin/python3.12|$PYREAL|" "$EGD_ROOT/policies/examples/engineer.yaml" \
    >"$T_DIR/engineer.yaml"
egd_start -p "$T_DIR/engineer.yaml" --enforce-all ||
	{ echo "Bail out! restart"; exit 1; }
BUNDLE=$EGD_CA_BUNDLE
git -C "$T_DIR/widget" -c user.email=t@example.com -c user.name=t commit -q \
    --allow-empty -m "engineer push"
run git -C "$T_DIR/widget" push -q origin HEAD:main >"$T_DIR/push2.log" 2>&1
t_ok $? "engineer, enforce: git push to github.com (access: full)"
run $PY -m pip download --no-deps --no-cache-dir --index-url "$WORLD_PYPI_INDEX" \
    -d "$T_DIR/wheels2" egressd-probe >"$T_DIR/pip2.log" 2>&1
t_ok $? "engineer, enforce: pip download from pypi.org (access: read-only)"
out=$(run $PY -c '
import urllib.request, urllib.error
req = urllib.request.Request("https://pypi.org/legacy/", data=b"x", method="POST")
try:
    urllib.request.urlopen(req, timeout=10); print("200")
except urllib.error.HTTPError as e:
    print(e.code, e.headers.get("X-Egressd-Reason"))')
t_is "$out" "403 method_not_allowed" \
	"engineer, enforce: an upload to pypi.org is refused (read-only)"
t_is "$(code https://objects.githubusercontent.com/echo/x)" 200 \
	"engineer, enforce: curl GET on objects.githubusercontent.com (read-only)"
t_is "$(code -X PUT --data x https://objects.githubusercontent.com/echo/x)" 403 \
	"engineer, enforce: curl PUT there is refused"
t_is "$(code -X DELETE https://api.github.com/echo/x)" 200 \
	"engineer, enforce: curl DELETE on api.github.com (access: full)"
egd_stop

# --- reloads and the idle timeout reach intercepted connections ----------------
# held CLIENT_UP CLIENT_OUT: an intercepted connection to example.com that
# made one request, then waits for egressd to close it (prints "closed")
held() {
	run $PY -c '
import http.client, ssl, sys
ctx = ssl.create_default_context(cafile=sys.argv[3])
c = http.client.HTTPSConnection("example.com", 443, context=ctx, timeout=30)
c.request("GET", "/echo/held")
r = c.getresponse()
r.read()
open(sys.argv[1], "w").write("open %d\n" % r.status)
try:
    print("closed" if c.sock.recv(100) == b"" else "data")
except (ssl.SSLError, ConnectionError):
    print("closed")
except TimeoutError:
    print("still open")' "$1" "$2" "$BUNDLE" >"$2" 2>"$2.err"
}
cp "$T_DIR/ro.yaml" "$T_DIR/live.yaml"
egd_start -p "$T_DIR/live.yaml" || { echo "Bail out! restart"; exit 1; }
BUNDLE=$EGD_CA_BUNDLE
held "$T_DIR/held1.up" "$T_DIR/held1.out" &
client=$!
t_wait_grep "$T_DIR/held1.up" "open 200" 1000
sed 's/host: example.com$/host: example.net/' "$T_DIR/ro.yaml" >"$T_DIR/live.yaml"
kill -HUP "$EGD_PID"
wait "$client"
t_is "$(cat "$T_DIR/held1.out")" closed \
	"an intercepted connection the reloaded policy revokes is closed"
t_check "...logged as policy_revoked" \
	egd_json_has '"hostname":"example.com".*"reason":"policy_revoked"'
egd_stop
egd_start -p "$T_DIR/ro.yaml" --idle-timeout-ms 1500 ||
	{ echo "Bail out! restart"; exit 1; }
BUNDLE=$EGD_CA_BUNDLE
held "$T_DIR/held2.up" "$T_DIR/held2.out"
t_is "$(cat "$T_DIR/held2.out")" closed \
	"an idle intercepted connection is closed after --idle-timeout-ms"
t_check "...logged with reason timeout" \
	egd_json_has '"class_uid":4001.*"hostname":"example.com".*"reason":"timeout"'
egd_stop
t_done
