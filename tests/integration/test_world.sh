#!/bin/sh
# SPDX-License-Identifier: ISC
# Self-test of the integration world (world.sh): from the proxy namespace,
# real clients (getent, curl, git, pip, socat) reach every piece, the
# failures that later tests rely on really fail, and world_down or a signal
# leaves nothing behind. egressd itself is not involved here.

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/world.sh"
t_init

if ! world_up; then
	echo "Bail out! world_up failed"
	exit 1
fi
t_diag "world $WORLD_NS, proxy $PROXY_NS, dir $T_DIR, ipv6 $WORLD_HAVE_IPV6"
P=$PROXY_NS
CA=$WORLD_CA_FILE
W=$T_DIR/work
mkdir -p "$W"

# px CMD...: a client in the proxy namespace, hermetic environment.
px() { world_run "$P" "$@"; }
# pcurl ARGS...: curl from the proxy namespace trusting the test CA.
pcurl() { px curl -sS --max-time 60 --cacert "$CA" "$@" </dev/null; }
# has TEXT LINE: TEXT contains LINE as a whole line.
has() { printf '%s\n' "$1" | grep -qxF -- "$2"; }
not() { ! "$@"; }
# alive PID: the process exists and is not a zombie (zombies of processes
# whose parent died wait for PID 1 to reap them; they hold nothing).
alive() {
	_st=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
	case $_st in Z*) return 1 ;; esac
	return 0
}
# expected NAME TYPE: what WORLD_ORIGINS says NAME's records are.
expected() {
	printf '%s\n' "$WORLD_ORIGINS" | awk -v n="$1" -v t="$2" '
		$1 == n { for (i = 3; i <= NF; i++)
			if ((t == "AAAA") == ($i ~ /:/)) print t, $i }' | sort
}

# ---- topology -------------------------------------------------------------
t_is "$(ip netns list | grep -c "^$WORLD_NS\\b\\|^$PROXY_NS\\b")" 2 \
    "both namespaces exist"
t_check "proxy ns has no default route (nothing leaves the test)" \
    not ip -n "$P" route get 192.0.2.1 2>/dev/null
t_is "$(ip -n "$P" route get 198.18.0.10 | awk '{ print $3, $5; exit }')" \
    "$WORLD_LINK_ADDR toworld" "proxy ns routes the origins into the world"
t_check "resolv.conf for the proxy ns points at the world DNS" \
    grep -qx "nameserver $WORLD_DNS" "/etc/netns/$P/resolv.conf"

# ---- DNS ------------------------------------------------------------------
# check_batch FILE [BATCH OPTIONS]: FILE holds "NAME TYPE | EXPECTED" lines;
# all queries run in one process, each line is one TAP test.
check_batch() {
	_f=$1
	shift
	# Squeeze blanks: "NAME TYPE|EXPECTED" with single spaces.
	awk '{ sub(/^ +/, ""); gsub(/ +/, " ");
	    sub(/ $/, ""); sub(/ ?\| ?/, "|"); print }' "$_f" >"$_f.norm"
	cut -d'|' -f1 "$_f.norm" | dnsb "$@" >"$_f.out"
	while IFS='|' read -r _q _want; do
		_got=$(awk -v q="$_q" '$1 " " $2 == q' "$_f.out" | head -n 1)
		t_is "$_got" "$_q${_want:+ $_want}" "dns $_q -> $_want"
	done <"$_f.norm"
}
dnsb() { world_dns_batch "$P" --timeout 3 "$@" "$WORLD_DNS"; }
# Every origin's automatic records, as WORLD_ORIGINS states them.
printf '%s\n' "$WORLD_ORIGINS" | while read -r n c addrs; do
	[ "$n" = rebind.example ] && continue
	for ty in A AAAA; do
		want=$(expected "$n" "$ty" | sed 's/ /=/' | LC_ALL=C sort |
		    tr '\n' ' ')
		[ "$ty" = AAAA ] && [ -z "$want" ] && continue
		echo "$n $ty | NOERROR $want"
	done
done >"$W/dns-origins"
check_batch "$W/dns-origins"
cat >"$W/dns-special" <<'EOF'
exfil-data.evil.example A | NOERROR A=198.18.0.66
loopback.example A        | NOERROR A=127.0.0.1
loopback6.example AAAA    | NOERROR AAAA=::1
zero.example A            | NOERROR A=0.0.0.0
mixed.example A           | NOERROR A=10.0.0.6 A=198.18.0.32
metadata.example A        | NOERROR A=169.254.169.254
cname.example A           | NOERROR A=198.18.0.30 CNAME=example.com
cname-internal.example A  | NOERROR A=10.0.0.5 CNAME=internal.example
mapped.example AAAA       | NOERROR AAAA=::ffff:10.0.0.5
nat64.example AAAA        | NOERROR AAAA=64:ff9b::a00:5
api.github.com AAAA       | NOERROR
nosuch.example A          | NXDOMAIN
servfail.example A        | SERVFAIL
refused.example A         | REFUSED
many.example A            | NOERROR+tc
EOF
check_batch "$W/dns-special"
echo "api.github.com A | NOERROR A=$(world_addr api.github.com)" \
    >"$W/dns-tcp"
check_batch "$W/dns-tcp" --tcp
t_is "$(echo many.example A | dnsb --tcp | wc -w)" 43 \
    "dns: 40 records over TCP"
t_is "$(echo many.example A | dnsb --edns | wc -w)" 43 \
    "dns: 40 records over UDP with EDNS"
t_is "$(echo cname-loop.example A | dnsb | wc -w)" 11 \
    "dns: CNAME loop cut after 8 records"
t_is "$(world_dnsq "$P" --timeout 0.5 "$WORLD_DNS" blackhole.example A)" \
    timeout "dns blackhole.example never answers"
t_is "$(world_dnsq "$P" --timeout 0.5 "$WORLD_DNS" badid.example A)" \
    "ignored-bad-id
timeout" "dns badid.example replies with a wrong ID only"
world_dnsq "$P" "$WORLD_DNS" garbage.example A >"$W/garbage" 2>&1
t_is "$?" 2 "dns garbage.example replies malformed"
t_is "$(printf 'rebind.example A\n%.0s' 1 2 3 | dnsb | cut -d' ' -f4 |
    tr '\n' ' ')" "A=198.18.0.31 A=127.0.0.1 A=127.0.0.1 " \
    "rebind: public first, loopback after"
echo "added-$$.example 5 A 198.18.0.99" >>"$WORLD_DNS_ZONE"
t_check "world_dns_reload" world_dns_reload
t_is "$(echo "added-$$.example A" | dnsb)" \
    "added-$$.example A NOERROR A=198.18.0.99" "reload rereads the zone"
t_is "$(world_dnsq "$P" "$WORLD_DNS" rebind.example A | grep '^answer')" \
    "answer rebind.example 0 A 198.18.0.31" \
    "rebind: TTL 0; a reload restarts the sequence"
t_is "$(px getent ahostsv4 github.com | awk '{print $1}' | sort -u)" \
    "$(world_addr github.com)" "glibc resolver in proxy ns: github.com"
if [ "$WORLD_HAVE_IPV6" = 1 ]; then
	t_is "$(px getent ahostsv6 pypi.org | awk '{print $1}' | sort -u)" \
	    "$(world_addr pypi.org 6)" "glibc resolver: pypi.org AAAA"
	t_is "$(world_dnsq "$P" "$WORLD_DNS6" example.com A |
	    awk '$1 == "answer" {print $5}')" "$(world_addr example.com)" \
	    "dns server answers on its IPv6 address"
fi

# The query log: every query, before its reply.
probe="probe-$$.evil.example"
px getent ahostsv4 "$probe" >/dev/null
t_check "dns log records a query made through glibc" \
    world_dns_seen "$probe" A
world_dnsq "$P" "$WORLD_DNS" "once-$$.evil.example" A >/dev/null
t_is "$(awk -v n="once-$$.evil.example" '$4 == n' "$WORLD_DNS_LOG" |
    cut -d' ' -f1,2,3,5-)" \
    "query udp $WORLD_PROXY_ADDR A NOERROR A=198.18.0.66" \
    "dns log: one line per query: proto, client, type, result, answers"
t_check "world_dns_seen is false for a name never asked" \
    not world_dns_seen "never-asked-$$.evil.example"
world_dnsq "$P" --timeout 0.1 --raw 0102 "$WORLD_DNS" >/dev/null 2>&1
t_check "dns log records a malformed query" t_wait_grep "$WORLD_DNS_LOG" \
    '^query udp [^ ]* - - SHORT len=2'
world_dnsq "$P" "$WORLD_DNS" 'Mixed-Case.EVIL.example' A >/dev/null
t_check "dns log lowercases names" world_dns_seen mixed-case.evil.example A

# ---- HTTPS / HTTP origins ------------------------------------------------
while read -r n c addrs; do
	[ "$c" = good ] || continue
	for a in $addrs; do
		case $a in
		*:*)
			[ "$WORLD_HAVE_IPV6" = 1 ] || continue
			b="[$a]"
			;;
		*) b=$a ;;
		esac
		# One curl, two transfers; -w shows which address answered.
		t_is "$(pcurl --resolve "$n:443:$b" --resolve "$n:80:$b" \
		    -w '%{scheme} %{remote_ip} %{http_code}\n' \
		    "https://$n/" "http://$n/")" "origin $n
HTTPS $a 200
origin $n
HTTP $a 200" "https and http: $n at $a"
	done
done <<EOF
$WORLD_ORIGINS
EOF
t_is "$(pcurl https://example.com/)" "origin example.com" \
    "https by name through the world DNS"
t_is "$(pcurl -o /dev/null -w '%{http_version}' https://github.com/)" 2 \
    "origins speak HTTP/2 when offered"
t_check "access log records the SNI and request" \
    t_wait_grep "$WORLD_ACCESS_LOG" \
    'sni=github.com host=github.com "GET / HTTP/2.0" 200'
t_check "access log records requests to the private canary 10.0.0.5" \
    t_wait_grep "$WORLD_ACCESS_LOG" '^[0-9.]* 10.0.0.5:443 https'

pcurl -o /dev/null https://badcert.example/ 2>/dev/null
t_is "$?" 60 "badcert.example fails verification with the test CA"
t_is "$(px curl -sS --cacert "$WORLD_OTHER_CA_FILE" \
    https://badcert.example/)" "origin badcert.example" \
    "badcert.example verifies with the other CA (so only trust fails)"
pcurl -o /dev/null https://wrongname.example/ 2>/dev/null
t_is "$?" 60 "wrongname.example fails name verification"
t_is "$(pcurl --resolve "not-wrongname.example:443:$(world_addr \
    wrongname.example)" https://not-wrongname.example/)" \
    "origin wrongname.example" \
    "wrongname.example's cert is valid for its other name"
pcurl -o /dev/null --resolve "api.github.com:443:$(world_addr github.com)" \
    https://api.github.com/ 2>/dev/null
t_is "$?" 60 "a name sent to another origin's address fails verification"

# /echo: method, target, headers and body as received.
printf 'hello body\n' >"$W/body"
bsum=$(sha256sum <"$W/body" | cut -d' ' -f1)
out=$(pcurl -X POST -H 'X-Test: one' --data-binary @"$W/body" \
    'https://api.github.com/echo/x?y=1')
t_check "echo: POST method" has "$out" "method POST"
t_check "echo: target" has "$out" "uri /echo/x?y=1"
t_check "echo: header" has "$out" "header x-test one"
t_check "echo: body sha256" has "$out" "body_sha256 $bsum"
out=$(pcurl --http1.1 -T "$W/body" -H 'Transfer-Encoding: chunked' \
    http://example.com/echo)
t_check "echo: PUT over plain HTTP" has "$out" "method PUT"
t_check "echo: chunked body arrives whole" has "$out" "body_sha256 $bsum"
t_check "echo: header transfer-encoding" has "$out" \
    "header transfer-encoding chunked"
redir=redirect/objects.githubusercontent.com/files/hello.txt
t_is "$(pcurl -L "https://github.com/$redir")" hello \
    "redirect to another origin"

# ---- 100 MiB download ----------------------------------------------------
t_check "world_bigfile" world_bigfile
got=$(pcurl "https://objects.githubusercontent.com$WORLD_BIG_URLPATH" |
    sha256sum | cut -d' ' -f1)
t_is "$got" "$WORLD_BIG_SHA256" "100 MiB download has the right sha256"

# ---- git smart HTTP ------------------------------------------------------
g() { px env GIT_SSL_CAINFO="$CA" git "$@"; }
g clone -q "$WORLD_GIT_URL" "$W/widget" 2>"$W/clone.err"
t_ok $? "git clone $WORLD_GIT_URL"
t_is "$(git -C "$W/widget" rev-parse HEAD 2>/dev/null)" "$WORLD_GIT_HEAD" \
    "clone is at the world's main"
if [ -d "$W/widget" ]; then
	echo change >>"$W/widget/README.md"
	git -C "$W/widget" -c user.name=t -c user.email=t@example.com \
	    commit -qam 'test change'
fi
new=$(git -C "$W/widget" rev-parse HEAD 2>/dev/null)
g -C "$W/widget" push -q origin main 2>"$W/push.err"
t_ok $? "git push over smart HTTP"
t_is "$(git -C "$WORLD_DIR/git/acme/widget.git" rev-parse main)" "$new" \
    "push reached the bare repository"
t_check "access log shows git-receive-pack" t_wait_grep \
    "$WORLD_ACCESS_LOG" 'POST /acme/widget.git/git-receive-pack HTTP'
g ls-remote "$WORLD_GIT_URL" main >"$W/ls-remote" 2>&1
t_is "$(cut -f1 "$W/ls-remote")" "$new" "ls-remote sees the pushed commit"

# ---- pip -----------------------------------------------------------------
px /usr/bin/python3 -m pip download --no-deps --no-cache-dir \
    --disable-pip-version-check --index-url "$WORLD_PYPI_INDEX" \
    --cert "$CA" egressd-probe -d "$W/pip" >"$W/pip.log" 2>&1
t_ok $? "pip download egressd-probe"
t_is "$(sha256sum <"$W/pip/$WORLD_WHEEL_NAME" 2>/dev/null |
    cut -d' ' -f1)" "$WORLD_WHEEL_SHA256" "wheel sha256 matches the index"
t_check "pip fetched the simple page from pypi.org" t_wait_grep \
    "$WORLD_ACCESS_LOG" 'host=pypi.org "GET /simple/egressd-probe/ '
t_check "the wheel is a valid zip with RECORD" \
    "$WORLD_PY" -c "import zipfile, sys
z = zipfile.ZipFile(sys.argv[1]); assert z.testzip() is None
assert 'egressd_probe-1.0.dist-info/RECORD' in z.namelist()" \
    "$W/pip/$WORLD_WHEEL_NAME"

# ---- raw TCP -------------------------------------------------------------
t_is "$(px socat -T 5 -u "TCP:$(world_addr github.com):22" - </dev/null |
    head -n 1)" "$WORLD_BANNER" "banner service speaks first"
t_is "$(printf 'ping\n' | px socat -T 5 - "TCP:$(world_addr example.com):7")" \
    ping "echo service (with half-close)"

# ---- teardown ------------------------------------------------------------
pids=$(ip netns pids "$WORLD_NS"; ip netns pids "$PROXY_NS")
t_check "world has processes before world_down" test -n "$pids"
world_down
t_is "$(ip netns list | grep -c "^$WORLD_NS\\b\\|^$PROXY_NS\\b")" 0 \
    "world_down: namespaces gone"
left=""
for p in $pids; do alive "$p" && left="$left $p"; done
t_is "$left" "" "world_down: every world process gone"
t_check "world_down: /etc/netns entries gone" \
    not ls -d "/etc/netns/$P" "/etc/netns/$WORLD_NS" 2>/dev/null
t_is "$(pgrep -f "$T_DIR/world" | tr '\n' ' ')" "" \
    "world_down: no process refers to the world dir"

# ---- a signal mid-way leaves nothing -------------------------------------
# kid_stop PID: TERM a child test and wait (bounded) for its cleanup.
kid_stop() {
	kill -TERM "$1" 2>/dev/null
	_n=1000
	while world__running "$1" && [ "$_n" -gt 0 ]; do
		_n=$((_n - 1))
		sleep 0.01
	done
}
# kid SIGNAL WHEN: runs a child test that builds a world; sends SIGNAL when
# WHEN ("up": after world_up; "half": as soon as servers start); checks.
kid() {
	_sig=$1 _when=$2
	_rep=$T_DIR/kid-$_sig.rep
	cat >"$T_DIR/kid.sh" <<-EOF
	. "$here/lib.sh"
	WORLD_HERE="$here"
	. "$here/world.sh"
	T_TAG=kid
	t_init
	echo "start \$\$ \$(ps -o pgid= -p \$\$) \$T_DIR egw\$T_ID egp\$T_ID" \
	    >"$_rep"
	world_up || exit 1
	echo up >>"$_rep"
	t_bg idle sleep 600
	wait \$T_PID
	EOF
	# A non-interactive shell starts background jobs with SIGINT ignored;
	# undo that so the child is like a test run from a terminal.
	setsid env --default-signal=INT sh "$T_DIR/kid.sh" \
	    >"$T_DIR/kid-$_sig.out" 2>&1 &
	_kpid=$!
	# Should this function fail early, the child must not outlive us.
	t_cleanup_push "kid_stop $_kpid"
	t_wait_grep "$_rep" '^start' || { kid_stop "$_kpid"; return 1; }
	# shellcheck disable=SC2046 # split the report line into fields
	set -- $(head -n 1 "$_rep")
	_cpid=$2 _pgid=$3 _cdir=$4 _cw=$5 _cp=$6
	if [ "$_when" = up ]; then
		_ready="$_rep ^up"
	else
		_ready="$_cdir/world/dns.log ."
	fi
	# shellcheck disable=SC2086
	t_wait_grep $_ready 1500 || { kid_stop "$_kpid"; return 1; }
	_cpids=$(ip netns pids "$_cw" 2>/dev/null)
	if [ "$_sig" = INT ]; then
		kill -INT "-$_pgid"
	else
		kill -TERM "$_cpid"
	fi
	_n=2000
	while world__running "$_kpid" && [ "$_n" -gt 0 ]; do
		_n=$((_n - 1))
		sleep 0.01
	done
	_bad=""
	world__running "$_kpid" && _bad="$_bad child-still-running"
	kid_stop "$_kpid"
	wait "$_kpid"
	[ "$_when" = up ] && [ -z "$_cpids" ] && _bad="$_bad no-world-seen"
	ip netns list | grep -q "^$_cw\\b\\|^$_cp\\b" && _bad="$_bad netns"
	[ -e "/etc/netns/$_cp" ] && _bad="$_bad etc-netns"
	[ -e "$_cdir" ] && _bad="$_bad dir"
	for _p in $_cpids; do
		alive "$_p" && _bad="$_bad pid$_p"
	done
	[ -n "$(pgrep -f "$_cdir")" ] && _bad="$_bad procs"
	[ -z "$_bad" ] || t_diag "left behind:$_bad"
	[ -z "$_bad" ]
}
t_check "SIGTERM after world_up leaves nothing behind" kid TERM up
t_check "SIGINT to the group half-way through world_up leaves nothing" \
    kid INT half

t_done
