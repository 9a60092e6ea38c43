# SPDX-License-Identifier: ISC
# The integration "world" (sourced, POSIX sh, after lib.sh): a namespace of
# test hosts on 198.18.0.0/15 and 2001:db8::/32 with a query-logging DNS
# server, a per-run test CA, nginx TLS/HTTP origins, git smart HTTP, a PEP 503
# index and raw TCP services, wired by a veth to an empty "proxy" namespace.
# It owns setting all that up and tearing it down; egressd, the sandbox
# namespace and the tests' own assertions belong to the tests.
#
#   proxy ns $PROXY_NS = egp$T_ID        world ns $WORLD_NS = egw$T_ID
#  +----------------------------+       +------------------------------------+
#  | egressd runs here (later)  |       | lo: every origin address (/32,     |
#  |                            | veth  |   /128), the DNS server, and the   |
#  | toworld 198.19.255.1/30 ---+-------+-- toproxy 198.19.255.2/30          |
#  |         2001:db8:ff::1/64  |       |           2001:db8:ff::2/64        |
#  | routes $WORLD_ROUTES4/6    |       |   private "canary" hosts           |
#  |   via the world, no other  |       | default route back to the proxy    |
#  | /etc/netns/$PROXY_NS/      |       | world_dns.py  :53 udp+tcp          |
#  |   resolv.conf -> WORLD_DNS |       | nginx :80 and :443 (h2) per origin |
#  +----------------------------+       | fcgiwrap: git http-backend, /echo  |
#                                       | socat: banner :22, echo :7         |
#                                       +------------------------------------+
#
# Names (defaults below): github.com, api.github.com,
# objects.githubusercontent.com, pypi.org, files.pythonhosted.org,
# example.com, evil.example (and *.evil.example) are public-range origins;
# badcert.example (untrusted CA) and wrongname.example (cert for
# not-wrongname.example) fail verification; internal.example (10.0.0.5,
# fd00:ec::5), metadata.example (169.254.169.254) and mixed.example (one
# public, one private A) are served too, so that a test can see in the
# access log whether anything reached them. DNS-only names: rebind.example
# (TTL 0: first 198.18.0.31, then 127.0.0.1), loopback.example,
# loopback6.example, zero.example, mapped.example (::ffff:10.0.0.5),
# nat64.example, cname.example, cname-internal.example, cname-loop.example,
# many.example (40 A: TC over UDP), blackhole.example (no reply),
# servfail.example, refused.example, garbage.example (malformed reply),
# badid.example (wrong ID). Anything else: NXDOMAIN.
#
# Use:   . "$(dirname "$0")/lib.sh"; . "$(dirname "$0")/world.sh"
#        t_init; world_up || { echo "Bail out! world_up"; exit 1; }
# world_up registers world_down with t_cleanup_push before it creates
# anything, so an early exit, a failure half-way, SIGINT or SIGTERM all leave
# no namespace, process or /etc/netns file behind (SIGKILL cannot be caught).
#
# Functions
#   world_up              build and start everything; returns 0 when every
#                         server answers (polled, never slept for).
#   world_down            kill every process in both namespaces, delete them
#                         and every /etc/netns/<ns>; idempotent.
#   world_addr NAME [6]   print NAME's first IPv4 (or IPv6) origin address.
#   world_run NS CMD...   run CMD in namespace NS with a hermetic client
#                         environment: no *_proxy variables, HOME in the
#                         world dir, git without system/user config, pip
#                         without config, prompts or version checks. It
#                         does NOT set CA variables: pass $WORLD_CA_FILE (or
#                         egressd's CA) explicitly.
#   world_resolv NS       make NS resolve through $WORLD_DNS (files in
#                         /etc/netns/NS, bind-mounted by "ip netns exec");
#                         world_up does it for $PROXY_NS.
#   world_dnsq NS ARGS... "world_dns.py query ARGS" run inside NS: prints
#                         rcode, flags and answers exactly (see world_dns.py).
#   world_dns_batch NS ARGS...  "world_dns.py batch ARGS" inside NS: one
#                         query per "NAME TYPE" stdin line, one process.
#   world_dns_seen NAME [TYPE]  exit 0 when the world DNS server logged a
#                         query for NAME (lowercase, exact; any type or TYPE).
#   world_dns_reload      SIGHUP the DNS server: it rereads $WORLD_DNS_ZONE
#                         (edit the file first, if at all) and restarts
#                         the SEQ- sequences; returns once it confirmed.
#   world_file NAME BYTES create random file $WORLD_FILES_DIR/NAME, served as
#                         /files/NAME by every origin; sets WORLD_FILE_SHA256.
#   world_bigfile         lazily create the 100 MiB file (once per run);
#                         sets WORLD_BIG_URLPATH (e.g. https://ANY-ORIGIN
#                         $WORLD_BIG_URLPATH), WORLD_BIG_FILE (its path),
#                         WORLD_BIG_SIZE and WORLD_BIG_SHA256.
#   (Call the last two directly, not in $(...): they set variables.)
#
# Variables set by world_up
#   WORLD_NS PROXY_NS     namespace names
#   WORLD_DIR             $T_DIR/world: configs, logs, content
#   WORLD_DNS WORLD_DNS6  the DNS server (UDP and TCP port 53)
#   WORLD_DNS_LOG         one line per query (format in world_dns.py)
#   WORLD_DNS_ZONE        the zone file it serves
#   WORLD_ACCESS_LOG      nginx: "$msec addr:port scheme sni= host= "req"
#                         status bytes"; written after the response, so poll
#                         it with t_wait_grep.
#   WORLD_CA_FILE         PEM of the test CA that signed the good origins
#   WORLD_OTHER_CA_FILE   PEM of the untrusted CA (badcert.example's issuer)
#   WORLD_PROXY_ADDR WORLD_PROXY_ADDR6  the proxy ns's own addresses
#   WORLD_GIT_URL WORLD_GIT_HEAD  https://github.com/acme/widget.git and
#                         its main commit (push enabled, no auth)
#   WORLD_PYPI_INDEX      https://pypi.org/simple/
#   WORLD_WHEEL_NAME WORLD_WHEEL_SHA256 WORLD_WHEEL_URL  egressd-probe 1.0
#   WORLD_FILES_DIR       served as /files/ on every origin
#   WORLD_BANNER          the line github.com:22 sends first
#   WORLD_HAVE_IPV6       1 when the IPv6 half is up
#
# Configuration (set before world_up; defaults below; to add to a table,
# append to it after sourcing this file)
#   WORLD_ORIGINS         table, one origin per line: NAME CERT ADDR...
#                         CERT: good (test CA), otherca (untrusted CA),
#                         wrongname (test CA, SAN for another name).
#                         Each origin gets its own addresses (one per
#                         origin: nginx picks the server by address), a
#                         cert, DNS A/AAAA records (unless the name appears
#                         in WORLD_DNS_EXTRA) and these paths on :80/:443:
#                           /            "origin NAME"
#                           /echo[/...]  any method: request report
#                                        (world_echo.py)
#                           /files/F     $WORLD_FILES_DIR/F
#                           /redirect/HOST/PATH  302 to SCHEME://HOST/PATH
#                           other        static from $WORLD_DIR/www/NAME
#                         github.com adds git smart HTTP under /OWNER/R.git/.
#   WORLD_DNS_EXTRA       extra zone lines (format in world_dns.py)
#   WORLD_DNS_TTL         TTL of the automatic records (30)
#   WORLD_PUBLIC_NETS     ranges egressd must be told to treat as public
#   WORLD_ROUTES4/6       what the proxy ns routes into the world: the
#                         test ranges and host routes to the canaries.
#                         A sandbox link added to the proxy ns later must
#                         use other addresses (not 198.18.0.0/16).
#   WORLD_IPV6            0 to build an IPv4-only world
#   WORLD_HERE            directory of world.sh and its helpers (default:
#                         the sourcing test's directory)
#
# Processes run as root inside the world namespace. Nothing here ever talks
# to an address outside the two namespaces.

# shellcheck disable=SC2034 # sourced: the variables are for the tests
WORLD_HERE=${WORLD_HERE:-$(cd "$(dirname "$0")" && pwd)}
WORLD_PY=/usr/bin/python3

: "${WORLD_DNS:=198.18.0.53}"
: "${WORLD_DNS6:=2001:db8::53}"
: "${WORLD_DNS_TTL:=30}"
: "${WORLD_PROXY_ADDR:=198.19.255.1}"
: "${WORLD_LINK_ADDR:=198.19.255.2}"
: "${WORLD_PROXY_ADDR6:=2001:db8:ff::1}"
: "${WORLD_LINK_ADDR6:=2001:db8:ff::2}"
: "${WORLD_PUBLIC_NETS:=198.18.0.0/15 2001:db8::/32}"
: "${WORLD_ROUTES4:=198.18.0.0/16 10.0.0.5/32 10.0.0.6/32 169.254.169.254/32}"
: "${WORLD_ROUTES6:=2001:db8::/48 fd00:ec::5/128}"
: "${WORLD_BANNER:=SSH-2.0-egressd-test}"
: "${WORLD_ORIGINS:=github.com good 198.18.0.10 2001:db8::10
api.github.com good 198.18.0.11
objects.githubusercontent.com good 198.18.0.12
pypi.org good 198.18.0.20 2001:db8::20
files.pythonhosted.org good 198.18.0.21 2001:db8::21
example.com good 198.18.0.30 2001:db8::30
rebind.example good 198.18.0.31
mixed.example good 198.18.0.32 10.0.0.6
badcert.example otherca 198.18.0.40
wrongname.example wrongname 198.18.0.41
evil.example good 198.18.0.66
internal.example good 10.0.0.5 fd00:ec::5
metadata.example good 169.254.169.254}"
# rebind.example: first A query public (TTL 0), every later one loopback.
# many.example (generated): 40 A records, too big for a 512-byte UDP reply.
: "${WORLD_DNS_EXTRA:=*.evil.example 30 A 198.18.0.66
rebind.example 0 SEQ-A 198.18.0.31 127.0.0.1
loopback.example 30 A 127.0.0.1
loopback6.example 30 AAAA ::1
zero.example 30 A 0.0.0.0
mapped.example 30 AAAA ::ffff:10.0.0.5
nat64.example 30 AAAA 64:ff9b::a00:5
cname.example 30 CNAME example.com
cname-internal.example 30 CNAME internal.example
cname-loop.example 30 CNAME cname-loop.example
blackhole.example - DROP
servfail.example - SERVFAIL
refused.example - REFUSED
garbage.example - GARBAGE
badid.example - BADID}"

WORLD_NS=""
PROXY_NS=""
WORLD_PIDS=""
WORLD_RESOLV_NS=""
WORLD_HAVE_IPV6=0

# world__try CMD...: runs CMD; on failure says which command failed.
world__try() {
	"$@" && return 0
	echo "# world: failed: $*" >&2
	return 1
}

# world__bg NAME CMD...: t_bg inside the world namespace; remembers the pid
# ("ip netns exec" execs CMD, so the pid is the server's).
world__bg() {
	_wn=$1
	shift
	t_bg "$_wn" ip netns exec "$WORLD_NS" "$@"
	# shellcheck disable=SC2153 # T_PID is set by t_bg (lib.sh)
	WORLD_PIDS="$WORLD_PIDS $T_PID"
	WORLD_SERVER_PIDS="$WORLD_SERVER_PIDS $T_PID"
}

# world__dump NAME...: shows the end of server logs after a failed start.
world__dump() {
	for _f in "$@"; do
		[ -f "$_f" ] || continue
		echo "# --- $_f" >&2
		tail -n 20 "$_f" | sed 's/^/# /' >&2
	done
}

world_addr() {
	printf '%s\n' "$WORLD_ORIGINS" | awk -v n="$1" -v six="${2:-4}" '
		$1 == n { for (i = 3; i <= NF; i++)
			if ((six == 6) == ($i ~ /:/)) { print $i; exit } }'
}

world_run() {
	_rns=$1
	shift
	env -u http_proxy -u https_proxy -u HTTP_PROXY -u HTTPS_PROXY \
	    -u all_proxy -u ALL_PROXY -u no_proxy -u NO_PROXY \
	    -u ftp_proxy -u FTP_PROXY \
	    -u SSL_CERT_FILE -u SSL_CERT_DIR -u CURL_CA_BUNDLE \
	    -u REQUESTS_CA_BUNDLE -u GIT_SSL_CAINFO -u PIP_CERT \
	    -u PIP_INDEX_URL -u PIP_EXTRA_INDEX_URL \
	    HOME="$WORLD_DIR/home" XDG_CONFIG_HOME="$WORLD_DIR/home/.config" \
	    XDG_CACHE_HOME="$WORLD_DIR/home/.cache" \
	    GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL="$WORLD_DIR/home/.gitconfig" \
	    GIT_TERMINAL_PROMPT=0 GIT_ASKPASS=/bin/false \
	    PIP_CONFIG_FILE=/dev/null PIP_NO_INPUT=1 \
	    PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONNOUSERSITE=1 \
	    ip netns exec "$_rns" "$@"
}

world_resolv() {
	_d=/etc/netns/$1
	mkdir -p "$_d" || return 1
	WORLD_RESOLV_NS="$WORLD_RESOLV_NS $1"
	t_cleanup_push "rm -rf '$_d'"
	{
		echo "nameserver $WORLD_DNS"
		echo "options timeout:1 attempts:2"
	} >"$_d/resolv.conf"
	printf '127.0.0.1 localhost\n::1 localhost ip6-localhost\n' \
	    >"$_d/hosts"
	# Only files and DNS: no nss-resolve/mdns path to the host's resolver.
	printf '%s\n' "passwd: files" "group: files" "shadow: files" \
	    "hosts: files dns" "networks: files" "protocols: files" \
	    "services: files" "ethers: files" "rpc: files" \
	    >"$_d/nsswitch.conf"
}

world_dnsq() {
	_qns=$1
	shift
	ip netns exec "$_qns" "$WORLD_PY" "$WORLD_HERE/world_dns.py" query "$@"
}

world_dns_batch() {
	_qns=$1
	shift
	ip netns exec "$_qns" "$WORLD_PY" "$WORLD_HERE/world_dns.py" batch "$@"
}

world_dns_seen() {
	awk -v n="$1" -v t="${2:-}" '
		$1 == "query" && $4 == n && (t == "" || $5 == t) { f = 1 }
		END { exit !f }' "$WORLD_DNS_LOG"
}

world_dns_reload() {
	_before=$(grep -c '^reload' "$WORLD_DNS_LOG")
	kill -HUP "$WORLD_DNS_PID" || return 1
	_tries=500
	while [ "$_tries" -gt 0 ]; do
		[ "$(grep -c '^reload' "$WORLD_DNS_LOG")" -gt "$_before" ] &&
		    return 0
		_tries=$((_tries - 1))
		sleep 0.01
	done
	echo "# timeout waiting for the DNS server to reload" >&2
	return 1
}

world_file() {
	# openssl rand is several times faster than /dev/urandom for 100 MiB.
	openssl rand -out "$WORLD_FILES_DIR/$1" "$2" 2>/dev/null || return 1
	WORLD_FILE_SHA256=$(sha256sum <"$WORLD_FILES_DIR/$1" | cut -d' ' -f1)
}

world_bigfile() {
	WORLD_BIG_SIZE=104857600
	WORLD_BIG_URLPATH=/files/big-100M.bin
	WORLD_BIG_FILE=$WORLD_FILES_DIR/big-100M.bin
	if [ -z "${WORLD_BIG_SHA256:-}" ]; then
		world_file big-100M.bin "$WORLD_BIG_SIZE" || return 1
		WORLD_BIG_SHA256=$WORLD_FILE_SHA256
	fi
}

# world__killns NS: TERM then KILL every process inside NS, until none is
# left (zombies have no namespace any more and do not count).
world__killns() {
	_p=$(ip netns pids "$1" 2>/dev/null)
	[ -n "$_p" ] || return 0
	# shellcheck disable=SC2086
	kill -TERM $_p 2>/dev/null
	for _sig in TERM KILL; do
		_tries=300
		while [ "$_tries" -gt 0 ]; do
			_p=$(ip netns pids "$1" 2>/dev/null)
			[ -n "$_p" ] || return 0
			_tries=$((_tries - 1))
			sleep 0.01
		done
		# shellcheck disable=SC2086
		kill -KILL $_p 2>/dev/null
	done
}

# world__ours PID: PID is still a child of this shell ($$ is the main
# shell's pid even in the trap's subshell), so a recycled pid is never hit.
world__ours() {
	read -r _l 2>/dev/null <"/proc/$1/stat" || return 1
	_l=${_l##*) }
	_l=${_l#* }
	[ "${_l%% *}" = "$$" ]
}

world_down() {
	[ -n "$WORLD_NS" ] || return 0
	# Recorded pids first: one may not have entered its namespace yet.
	_mine=""
	for _pid in $WORLD_PIDS; do
		world__ours "$_pid" && _mine="$_mine $_pid"
	done
	for _pid in $_mine; do
		kill -TERM "$_pid" 2>/dev/null
	done
	for _ns in $PROXY_NS $WORLD_NS; do
		world__killns "$_ns"
	done
	for _pid in $_mine; do
		world__ours "$_pid" && kill -KILL "$_pid" 2>/dev/null
		# Reaps our own children (no zombies); a no-op in the trap's
		# subshell, where they are not children.
		wait "$_pid" 2>/dev/null
	done
	for _ns in $PROXY_NS $WORLD_NS; do
		ip netns del "$_ns" 2>/dev/null
	done
	for _ns in $PROXY_NS $WORLD_NS $WORLD_RESOLV_NS; do
		rm -rf "/etc/netns/$_ns"
	done
	return 0
}

# world__net: namespaces, veth, addresses, routes (one "ip -batch" per
# namespace: dozens of separate ip runs cost more than all the rest).
world__net() {
	# Not t_netns: its "ip netns del" would run before world_down and
	# hide the namespaces' processes from it.
	world__try ip netns add "$WORLD_NS" || return 1
	world__try ip netns add "$PROXY_NS" || return 1
	WORLD_HAVE_IPV6=0
	if [ -e /proc/sys/net/ipv6 ] && [ "${WORLD_IPV6:-1}" = 1 ]; then
		WORLD_HAVE_IPV6=1
		# No duplicate address detection: addresses usable at once.
		for _ns in "$WORLD_NS" "$PROXY_NS"; do
			# shellcheck disable=SC2016 # $k is the inner shell's
			ip netns exec "$_ns" sh -c '
			    for k in accept_dad disable_ipv6; do
				echo 0 >/proc/sys/net/ipv6/conf/all/$k &&
				echo 0 >/proc/sys/net/ipv6/conf/default/$k
			    done' || WORLD_HAVE_IPV6=0
		done
	fi
	world__try ip -n "$PROXY_NS" link add toworld type veth \
	    peer name toproxy netns "$WORLD_NS" || return 1
	{
		echo "link set lo up"
		echo "link set toproxy up"
		echo "address add $WORLD_LINK_ADDR/30 dev toproxy"
		echo "route add default via $WORLD_PROXY_ADDR"
		if [ "$WORLD_HAVE_IPV6" = 1 ]; then
			echo "address add $WORLD_LINK_ADDR6/64 dev toproxy nodad"
			echo "route add ::/0 via $WORLD_PROXY_ADDR6"
			echo "address add $WORLD_DNS6/128 dev lo nodad"
		fi
		# Every host address lives on the world's lo; the proxy
		# reaches them through its routes: no ARP/ND for them.
		echo "address add $WORLD_DNS/32 dev lo"
		printf '%s\n' "$WORLD_ORIGINS" | awk -v six="$WORLD_HAVE_IPV6" '
			{ for (i = 3; i <= NF; i++)
				if ($i !~ /:/)
					print "address add " $i "/32 dev lo"
				else if (six == 1)
					print "address add " $i "/128 dev lo nodad" }'
	} >"$WORLD_DIR/ip-world.batch"
	{
		echo "link set lo up"
		echo "link set toworld up"
		echo "address add $WORLD_PROXY_ADDR/30 dev toworld"
		for _r in $WORLD_ROUTES4; do
			echo "route add $_r via $WORLD_LINK_ADDR"
		done
		if [ "$WORLD_HAVE_IPV6" = 1 ]; then
			echo "address add $WORLD_PROXY_ADDR6/64 dev toworld nodad"
			for _r in $WORLD_ROUTES6; do
				echo "route add $_r via $WORLD_LINK_ADDR6"
			done
		fi
	} >"$WORLD_DIR/ip-proxy.batch"
	world__try ip -n "$WORLD_NS" -batch "$WORLD_DIR/ip-world.batch" &&
	    world__try ip -n "$PROXY_NS" -batch "$WORLD_DIR/ip-proxy.batch"
}

# world__tls_start: the test CA and the untrusted CA; world__tls_leaves:
# one key+cert per origin once they exist. Both start openssl runs in the
# background, in parallel with the rest of world_up, and inside the world
# namespace so that world_down kills any still running (nothing may write
# into $T_DIR after it is gone). world__tls_wait collects them.
world__tls_start() {
	_t=$WORLD_DIR/tls
	mkdir -p "$_t" || return 1
	cat >"$_t/openssl.cnf" <<-'EOF'
	[req]
	distinguished_name = dn
	prompt = no
	[dn]
	CN = unused
	[ca_ext]
	basicConstraints = critical,CA:TRUE
	keyUsage = critical,keyCertSign,cRLSign
	subjectKeyIdentifier = hash
	[leaf_ext]
	basicConstraints = critical,CA:FALSE
	keyUsage = critical,digitalSignature
	extendedKeyUsage = serverAuth
	subjectKeyIdentifier = hash
	authorityKeyIdentifier = keyid:always
	EOF
	WORLD_CA_FILE=$_t/ca.crt
	WORLD_OTHER_CA_FILE=$_t/otherca.crt
	WORLD_TLS_PIDS=""
	for _ca in ca otherca; do
		world__tls_bg "$_ca" -extensions ca_ext \
		    -subj "/O=egressd tests/CN=egressd $_ca $T_ID"
	done
}

world__tls_leaves() {
	_t=$WORLD_DIR/tls
	world__tls_wait || return 1
	# "read" in the current shell (here-document, not a pipe), so the
	# pids land in WORLD_TLS_PIDS.
	while read -r _n _c _rest; do
		[ -n "$_n" ] || continue
		_ca=ca _san=$_n
		[ "$_c" = otherca ] && _ca=otherca
		[ "$_c" = wrongname ] && _san="not-$_n"
		world__tls_bg "$_n" -extensions leaf_ext -CA "$_t/$_ca.crt" \
		    -CAkey "$_t/$_ca.key" -subj "/CN=$_san" \
		    -addext "subjectAltName=DNS:$_san"
	done <<-EOF
	$WORLD_ORIGINS
	EOF
}

# world__tls_bg NAME OPENSSL-REQ-ARGS...: NAME.key + NAME.crt, in background.
world__tls_bg() {
	_o=$WORLD_DIR/tls/$1
	shift
	ip netns exec "$WORLD_NS" openssl req -x509 -new \
	    -config "$WORLD_DIR/tls/openssl.cnf" -newkey ec \
	    -pkeyopt ec_paramgen_curve:P-256 -nodes -days 7 \
	    -keyout "$_o.key" -out "$_o.crt" "$@" >"$_o.log" 2>&1 </dev/null &
	WORLD_TLS_PIDS="$WORLD_TLS_PIDS $!"
	WORLD_PIDS="$WORLD_PIDS $!"
}

world__tls_wait() {
	_rc=0
	for _pid in $WORLD_TLS_PIDS; do
		wait "$_pid" || _rc=1
	done
	WORLD_TLS_PIDS=""
	if [ "$_rc" != 0 ]; then
		echo "# world: openssl failed:" >&2
		cat "$WORLD_DIR"/tls/*.log | sed 's/^/# /' >&2
	fi
	return "$_rc"
}

# world__content: web roots, the git repository, the package index.
world__content() {
	WORLD_FILES_DIR=$WORLD_DIR/files
	mkdir -p "$WORLD_FILES_DIR" "$WORLD_DIR/home" "$WORLD_DIR/cgi" \
	    "$WORLD_DIR/git/acme" || return 1
	for _n in $(printf '%s\n' "$WORLD_ORIGINS" | awk '{print $1}'); do
		mkdir -p "$WORLD_DIR/www/$_n" || return 1
	done
	printf 'hello\n' >"$WORLD_FILES_DIR/hello.txt"
	cp "$WORLD_HERE/world_echo.py" "$WORLD_DIR/cgi/echo" &&
	    chmod 0755 "$WORLD_DIR/cgi/echo" || return 1
	printf '%s\n' '[user]' '	name = egressd test' \
	    '	email = test@example.com' '[init]' '	defaultBranch = main' \
	    '[advice]' '	detachedHead = false' \
	    >"$WORLD_DIR/home/.gitconfig"

	# Two commits written straight into a bare repository by one
	# fast-import (fixed dates: the same commit ids every run).
	_bare=$WORLD_DIR/git/acme/widget.git
	_who='egressd test <test@example.com> 1704067200 +0000'
	world__try env GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null \
	    git init -q --bare -b main "$_bare" || return 1
	# Anonymous push: git http-backend wants it enabled explicitly.
	printf '[http]\n\treceivepack = true\n' >>"$_bare/config"
	printf '%s\n' "commit refs/heads/main" "author $_who" \
	    "committer $_who" 'data <<END' 'Initial commit' 'END' \
	    'M 100644 inline README.md' 'data <<END' '# widget' '' \
	    'A test repository.' 'END' '' \
	    "commit refs/heads/main" "author $_who" "committer $_who" \
	    'data <<END' 'Add widget' 'END' 'M 100644 inline widget.py' \
	    'data <<END' 'def widget():' '    return 42' 'END' '' |
	    GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null \
	    git -C "$_bare" fast-import --quiet || {
		echo "# world: creating the git repository failed" >&2
		return 1
	}
	WORLD_GIT_HEAD=$(git -C "$_bare" rev-parse main) || return 1
	WORLD_GIT_URL=https://github.com/acme/widget.git

	_out=$("$WORLD_PY" "$WORLD_HERE/world_pypi.py" \
	    --simple-root "$WORLD_DIR/www/pypi.org" \
	    --files-root "$WORLD_DIR/www/files.pythonhosted.org" \
	    --files-url https://files.pythonhosted.org egressd-probe 1.0) ||
	    { echo "# world: building the wheel failed" >&2; return 1; }
	# shellcheck disable=SC2086
	set -- $_out
	WORLD_WHEEL_NAME=$(basename "$1")
	WORLD_WHEEL_SHA256=$2
	WORLD_WHEEL_URL=$3
	WORLD_PYPI_INDEX=https://pypi.org/simple/
}

# world__zone: automatic A/AAAA records for every origin not in
# WORLD_DNS_EXTRA, then WORLD_DNS_EXTRA, then many.example.
world__zone() {
	WORLD_DNS_ZONE=$WORLD_DIR/dns.zone
	{
		echo "# generated by world.sh"
		printf '%s\n' "$WORLD_ORIGINS" | awk -v ttl="$WORLD_DNS_TTL" \
		    -v extra="$WORLD_DNS_EXTRA" '
			BEGIN { n = split(extra, l, "\n")
				for (i = 1; i <= n; i++) { split(l[i], f, " ")
					skip[f[1]] = 1 } }
			NF >= 3 && !($1 in skip) {
				for (i = 3; i <= NF; i++)
					print $1, ttl, ($i ~ /:/ ? "AAAA" : "A"), $i }'
		printf '%s\n' "$WORLD_DNS_EXTRA"
		_i=1
		while [ "$_i" -le 40 ]; do
			echo "many.example $WORLD_DNS_TTL A 198.18.1.$_i"
			_i=$((_i + 1))
		done
	} >"$WORLD_DNS_ZONE"
}

# world__nginx_conf: one server per origin; shared locations in
# common.conf, FastCGI parameters in fcgi.conf, git in git.conf.
world__nginx_conf() {
	_d=$WORLD_DIR/nginx
	mkdir -p "$_d/tmp" || return 1
	cat >"$_d/fcgi.conf" <<-EOF
	fastcgi_pass unix:$WORLD_DIR/fcgiwrap.sock;
	fastcgi_param QUERY_STRING \$query_string;
	fastcgi_param REQUEST_METHOD \$request_method;
	fastcgi_param CONTENT_TYPE \$content_type;
	fastcgi_param CONTENT_LENGTH \$content_length;
	fastcgi_param REQUEST_URI \$request_uri;
	fastcgi_param DOCUMENT_URI \$document_uri;
	fastcgi_param SERVER_PROTOCOL \$server_protocol;
	fastcgi_param REQUEST_SCHEME \$scheme;
	fastcgi_param GATEWAY_INTERFACE CGI/1.1;
	fastcgi_param REMOTE_ADDR \$remote_addr;
	fastcgi_param REMOTE_PORT \$remote_port;
	fastcgi_param SERVER_ADDR \$server_addr;
	fastcgi_param SERVER_PORT \$server_port;
	fastcgi_param SERVER_NAME \$server_name;
	fastcgi_param PATH /usr/bin:/bin;
	fastcgi_param HOME $WORLD_DIR/git-home;
	fastcgi_param GIT_CONFIG_NOSYSTEM 1;
	fastcgi_request_buffering on;
	EOF
	cat >"$_d/common.conf" <<-EOF
	location = / {
		default_type text/plain;
		return 200 "origin \$server_name\n";
	}
	location ~ ^/echo(/|\$) {
		include $_d/fcgi.conf;
		fastcgi_param SCRIPT_FILENAME $WORLD_DIR/cgi/echo;
	}
	location /files/ {
		alias $WORLD_FILES_DIR/;
	}
	location ~ ^/redirect/([^/]+)(/.*)\$ {
		return 302 \$scheme://\$1\$2;
	}
	location / {
		index index.html;
	}
	EOF
	cat >"$_d/git.conf" <<-EOF
	location ~ ^/[^/]+/[^/]+\\.git/(info/refs|git-upload-pack|git-receive-pack)\$ {
		include $_d/fcgi.conf;
		fastcgi_param SCRIPT_FILENAME /usr/lib/git-core/git-http-backend;
		fastcgi_param GIT_PROJECT_ROOT $WORLD_DIR/git;
		fastcgi_param GIT_HTTP_EXPORT_ALL 1;
		fastcgi_param PATH_INFO \$uri;
	}
	EOF
	{
		cat <<-EOF
		user root root;
		worker_processes 2;
		pid $_d/nginx.pid;
		error_log $_d/error.log warn;
		events { worker_connections 1024; }
		http {
			types {
				text/html html;
				text/plain txt;
				application/octet-stream bin whl;
			}
			default_type application/octet-stream;
			log_format world '\$msec \$server_addr:\$server_port \$scheme '
			    'sni=\$ssl_server_name host=\$host "\$request" '
			    '\$status \$body_bytes_sent';
			access_log $WORLD_DIR/access.log world;
			client_body_temp_path $_d/tmp/body;
			proxy_temp_path $_d/tmp/proxy;
			fastcgi_temp_path $_d/tmp/fastcgi;
			uwsgi_temp_path $_d/tmp/uwsgi;
			scgi_temp_path $_d/tmp/scgi;
			client_max_body_size 0;
			sendfile on;
			server_tokens off;
			absolute_redirect off;
			keepalive_timeout 30s;
			ssl_protocols TLSv1.2 TLSv1.3;
		EOF
		printf '%s\n' "$WORLD_ORIGINS" | while read -r _n _c _a; do
			[ -n "$_n" ] || continue
			echo "	server {"
			for _x in $_a; do
				case $_x in
				*:*)
					[ "$WORLD_HAVE_IPV6" = 1 ] || continue
					_x="[$_x]"
					;;
				esac
				echo "		listen $_x:80;"
				echo "		listen $_x:443 ssl http2;"
			done
			echo "		server_name $_n;"
			echo "		ssl_certificate $WORLD_DIR/tls/$_n.crt;"
			echo "		ssl_certificate_key $WORLD_DIR/tls/$_n.key;"
			echo "		root $WORLD_DIR/www/$_n;"
			[ "$_n" = github.com ] && echo "		include $_d/git.conf;"
			echo "		include $_d/common.conf;"
			echo "	}"
		done
		echo "}"
	} >"$_d/nginx.conf"
}

# world__running PID: PID exists and is not a zombie (kill -0 cannot tell).
world__running() {
	read -r _l 2>/dev/null <"/proc/$1/stat" || return 1
	_l=${_l##*) }
	[ "${_l%% *}" != Z ]
}

# world__wait_sockets ITEM...: polls until every ITEM ("tcp ADDR:PORT",
# "udp ADDR:PORT", "u_str PATH", as ss prints them) listens in the world.
# Like t_wait_listen, but one ss run per round covers every socket, and a
# server that died ends the wait at once instead of at the timeout.
world__wait_sockets() {
	_want=$(printf '%s\n' "$@")
	_tries=1000
	while :; do
		_miss=$(ip netns exec "$WORLD_NS" ss -Hlntux 2>/dev/null |
		    awk -v want="$_want" '
			BEGIN { n = split(want, w, "\n")
				for (i = 1; i <= n; i++) need[w[i]] = 1 }
			{ delete need[$1 " " $5] }
			END { for (k in need) print k }')
		[ -z "$_miss" ] && return 0
		for _pid in $WORLD_SERVER_PIDS; do
			world__running "$_pid" && continue
			echo "# world: a server exited at start (pid $_pid)" >&2
			return 1
		done
		_tries=$((_tries - 1))
		if [ "$_tries" -le 0 ]; then
			printf '%s\n' "$_miss" |
			    sed 's/^/# world: timeout waiting for /' >&2
			return 1
		fi
		# A short yield between polls, not a readiness guess.
		sleep 0.01
	done
}

# world__start: every server, then poll until all of them listen.
world__start() {
	WORLD_DNS_LOG=$WORLD_DIR/dns.log
	WORLD_ACCESS_LOG=$WORLD_DIR/access.log
	: >"$WORLD_DNS_LOG"
	: >"$WORLD_ACCESS_LOG"
	set -- "udp $WORLD_DNS:53" "tcp $WORLD_DNS:53" \
	    "u_str $WORLD_DIR/fcgiwrap.sock"
	_listen="--listen $WORLD_DNS"
	if [ "$WORLD_HAVE_IPV6" = 1 ]; then
		_listen="$_listen --listen $WORLD_DNS6"
		set -- "$@" "udp [$WORLD_DNS6]:53" "tcp [$WORLD_DNS6]:53"
	fi
	WORLD_SERVER_PIDS=""
	# shellcheck disable=SC2086
	world__bg dns "$WORLD_PY" "$WORLD_HERE/world_dns.py" serve \
	    --zone "$WORLD_DNS_ZONE" --log "$WORLD_DNS_LOG" $_listen
	WORLD_DNS_PID=$T_PID
	world__bg fcgiwrap /usr/sbin/fcgiwrap -f -c 4 \
	    -s "unix:$WORLD_DIR/fcgiwrap.sock"
	world__bg nginx /usr/sbin/nginx -p "$WORLD_DIR/nginx" \
	    -c "$WORLD_DIR/nginx/nginx.conf" -e "$WORLD_DIR/nginx/error.log" \
	    -g 'daemon off;'
	_gh=$(world_addr github.com)
	_ex=$(world_addr example.com)
	world__bg banner socat "TCP-LISTEN:22,bind=$_gh,fork,reuseaddr" \
	    "SYSTEM:echo $WORLD_BANNER"
	world__bg echo socat "TCP-LISTEN:7,bind=$_ex,fork,reuseaddr" EXEC:cat
	set -- "$@" "tcp $_gh:22" "tcp $_ex:7"
	for _a in $(printf '%s\n' "$WORLD_ORIGINS" |
	    awk '{ for (i = 3; i <= NF; i++) print $i }'); do
		case $_a in
		*:*)
			[ "$WORLD_HAVE_IPV6" = 1 ] || continue
			_a="[$_a]"
			;;
		esac
		set -- "$@" "tcp $_a:80" "tcp $_a:443"
	done
	world__wait_sockets "$@" && return 0
	world__dump "$T_DIR/dns.log" "$T_DIR/fcgiwrap.log" "$T_DIR/nginx.log" \
	    "$WORLD_DIR/nginx/error.log" "$T_DIR/banner.log" "$T_DIR/echo.log"
	return 1
}

world_up() {
	if [ -z "${T_DIR:-}" ] || [ -z "${T_ID:-}" ]; then
		echo "# world: call t_init (lib.sh) before world_up" >&2
		return 1
	fi
	for _c in ip ss openssl git socat /usr/sbin/nginx /usr/sbin/fcgiwrap \
	    /usr/lib/git-core/git-http-backend "$WORLD_PY"; do
		command -v "$_c" >/dev/null 2>&1 || {
			echo "# world: missing $_c (see tests/deps.sh)" >&2
			return 1
		}
	done
	WORLD_NS="egw$T_ID"
	PROXY_NS="egp$T_ID"
	WORLD_DIR=$T_DIR/world
	mkdir -p "$WORLD_DIR" || return 1
	# Registered before anything exists: world_down copes with whatever
	# part of the world a signal or a failure left behind.
	t_cleanup_push world_down
	world__net || return 1
	world__tls_start || return 1
	world__content || return 1
	world__tls_leaves || return 1
	world__zone || return 1
	world__nginx_conf || return 1
	world__tls_wait || return 1
	world__start || return 1
	world_resolv "$PROXY_NS" || return 1
}
