#!/bin/sh
# SPDX-License-Identifier: ISC
# `make bench`: egressd's benchmarks, each a ratio or a difference against a
# baseline measured in the same run (a direct connection, the world's own DNS
# server), never a pass/fail on absolute times. Owns the order of the
# benchmarks, their policy, the arithmetic and the report; leaves the world,
# the sandbox and egressd's start to tests/integration/{lib,world,egressd}.sh
# and the timing loops to tests/helpers/{netbench,decide_bench,identity_bench}.
#
# Usage: run.sh [BUILD_DIR]   (as root; tests/bench/README.md explains every
#                             figure). Output: "name value unit" lines, "# "
#                             lines for humans, and a final "| " table.
# Knobs (environment): BENCH_ROUNDS (bulk downloads per mode, 7),
# BENCH_SAMPLES (new connections per mode, 300), BENCH_CURL_SAMPLES (curl
# processes per mode, 40), BENCH_DNS_SAMPLES (2000), BENCH_TUNNELS (idle
# tunnels, 5000 or what the file limit allows), BENCH_IDENTITY_PROCS (5000),
# BENCH_ONLY (space-separated subset of: decide identity throughput latency
# intercept dns tunnels), BENCH_RESULTS (a file that gets a copy of the figures).

set -u
EGD_NO_EXIT_CHECK=1 # egd_stop: no TAP lines in the report
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD=$(cd "${1:-build}" && pwd) || exit 1
export EGRESSD_BUILD="$BUILD"

if [ "$(id -u)" -ne 0 ]; then
	echo "bench: needs root (network namespaces, nftables)" >&2
	exit 1
fi

ROUNDS=${BENCH_ROUNDS:-7}
SAMPLES=${BENCH_SAMPLES:-300}
CURL_SAMPLES=${BENCH_CURL_SAMPLES:-40}
DNS_SAMPLES=${BENCH_DNS_SAMPLES:-2000}
ID_PROCS=${BENCH_IDENTITY_PROCS:-5000}
ONLY=${BENCH_ONLY:-decide identity throughput latency intercept dns tunnels}

NETBENCH=$BUILD/tests/helpers/netbench
DECIDE_BENCH=$BUILD/tests/helpers/decide_bench
IDENTITY_BENCH=$BUILD/tests/helpers/identity_bench
for _b in "$BUILD/egressd" "$NETBENCH" "$DECIDE_BENCH" "$IDENTITY_BENCH"; do
	[ -x "$_b" ] || { echo "bench: missing $_b (run make bench)" >&2; exit 1; }
done
for _c in curl ip nft awk timeout; do
	command -v "$_c" >/dev/null 2>&1 ||
	    { echo "bench: missing $_c (see tests/deps.sh)" >&2; exit 1; }
done

# shellcheck disable=SC2034 # read by lib.sh and world.sh
T_TAG=bnch
# shellcheck disable=SC2034
WORLD_HERE=$ROOT/tests/integration
# shellcheck source=../integration/lib.sh
. "$ROOT/tests/integration/lib.sh"
# shellcheck source=../integration/world.sh
. "$ROOT/tests/integration/world.sh"
# shellcheck source=../integration/egressd.sh
. "$ROOT/tests/integration/egressd.sh"

# A file limit as high as we may set: egressd raises its soft limit to the
# hard one, and each idle tunnel costs it several fds. (dash, bash and
# busybox sh all have ulimit -n and -H.)
# shellcheck disable=SC3045
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null
# shellcheck disable=SC3045
FD_LIMIT=$(ulimit -n)

t_init
RES=$T_DIR/results
: >"$RES"
START=$(date +%s)

# ---- output ----------------------------------------------------------------

say() {
	if [ $# -eq 0 ]; then
		echo "#"
	else
		printf '# %s\n' "$*"
	fi
}

# A benchmark that could not measure (a helper failed, a download was
# short) makes the run exit 1 at the end; slow figures never do.
FAILED=0

# emit NAME VALUE UNIT: one figure, printed and kept for the table.
emit() {
	if [ -z "$2" ]; then
		say "$1: not measured"
		FAILED=1
		return 1
	fi
	printf '%s %s %s\n' "$1" "$2" "$3"
	printf '%s %s %s\n' "$1" "$2" "$3" >>"$RES"
}

# take CMD...: runs a helper, passes its "name value unit" lines through
# emit; returns the helper's status.
take() {
	"$@" >"$T_DIR/take.out" 2>"$T_DIR/take.err"
	_rc=$?
	while read -r _n _v _u; do
		[ -n "$_n" ] || continue
		if [ -z "$_u" ]; then
			# identity_bench prints no units (they are in the
			# names) and some names without a prefix
			case $_n in identity_*) ;; *) _n=identity_$_n ;; esac
			case $_n in
			*_us_* | *_us) _u=us ;;
			*_ms_* | *_ms) _u=ms ;;
			*) _u=count ;;
			esac
		fi
		emit "$_n" "$_v" "$_u"
	done <"$T_DIR/take.out"
	if [ "$_rc" -ne 0 ]; then
		FAILED=1
		say "$*" | cut -c1-200
		say "exited $_rc:"
		sed 's/^/#   /' "$T_DIR/take.err" | head -20
	fi
	return "$_rc"
}

# val NAME: a figure emitted earlier ("" when none).
val() {
	awk -v n="$1" '$1 == n { v = $2 } END { print v }' "$RES"
}

# calc EXPR: floating point arithmetic on figures (awk); "" stays "".
calc() {
	awk "BEGIN { printf \"%.${2:-3}f\\n\", $1 }" 2>/dev/null
}

# median, min, max of the numbers on stdin, one per line: "MED MIN MAX".
stats() {
	sort -g | awk '{ a[NR] = $1 }
		END { if (NR == 0) { print "0 0 0"; exit }
		      m = NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
		      print m, a[1], a[NR] }'
}

want() {
	case " $ONLY " in *" $1 "*) return 0 ;; esac
	return 1
}

# egressd's user + system CPU, in clock ticks.
egd_cpu_ticks() {
	read -r _l <"/proc/$EGD_PID/stat" || return 1
	_l=${_l##*) }
	# shellcheck disable=SC2086 # fields
	set -- $_l
	# after "(comm) ": state is 1, utime 12, stime 13
	shift 11
	echo $(($1 + $2))
}

egd_restart() {
	egd_stop
	egd_start -p "$EGD_POLICY" --max-conns-per-caller 100000 \
	    ${BENCH_EGRESSD_ARGS:-} ||
	    { say "egressd did not restart"; exit 1; }
}

say "egressd benchmarks: $(uname -sr), $(nproc) cpus, file limit $FD_LIMIT"
say "$("$BUILD/egressd" --version 2>/dev/null)"

# ---- 7. decisions per second vs policy size (no network) --------------------

if want decide; then
	say
	say "== decide(): decisions per second against policies of 10..10000"
	say "   endpoints (blocks of 10, a tenth wildcards), allowed and denied"
	take timeout -k 5 120 "$DECIDE_BENCH" -r 5 -t 200
	say "decide() scans every block: cost grows with the endpoint count."
fi

# ---- 4. identity lookup with thousands of host processes ---------------------

if want identity; then
	say
	say "== identity lookup with $ID_PROCS idle processes on the host"
	take timeout -k 5 180 "$IDENTITY_BENCH" -n "$ID_PROCS" -s 0 -c 3000 -r 3
	say "lookup median $(val identity_lookup_us_median) us" \
	    "(p99 $(val identity_lookup_us_p99) us); new process" \
	    "$(val identity_lookup_new_process_us_median) us;" \
	    "one whole-host /proc scan: $(val identity_full_proc_scan_us_median) us"
fi

case " $ONLY " in
*" throughput "* | *" latency "* | *" intercept "* | *" dns "* | *" tunnels "*) ;;
*) ONLY_LOCAL=1 ;;
esac

if [ -z "${ONLY_LOCAL:-}" ]; then
	say
	say "setting up the test world, the sandbox and egressd"
	world_up || { say "world_up failed"; exit 1; }
	egd_sandbox || { say "sandbox failed"; exit 1; }
	world_bigfile || { say "world_bigfile failed"; exit 1; }
	CURL=$(readlink -f "$(command -v curl)")
	NB_REAL=$(readlink -f "$NETBENCH")
	GH=$(world_addr github.com)
	EX=$(world_addr example.com)
	CA=$WORLD_CA_FILE
	egd_policy bench.yaml <<-EOF
	version: 1
	network_policies:
	  bench:
	    endpoints:
	      - { host: github.com, port: 443 }
	      - { host: example.com, port: 9 }
	      - { host: objects.githubusercontent.com, port: 443, protocol: rest, access: read-only }
	    binaries:
	      - path: $CURL
	      - path: $NB_REAL
	EOF
	egd_start -p "$EGD_POLICY" --max-conns-per-caller 100000 \
	    ${BENCH_EGRESSD_ARGS:-} ||
	    { say "egressd did not start"; exit 1; }
	TICK=$(getconf CLK_TCK)
fi

# ---- 1 + 3. bulk throughput: direct, CONNECT, transparent --------------------

# bulk MODE: one download of the 100 MiB file; prints "BYTES SECONDS".
bulk() {
	_url="https://github.com$WORLD_BIG_URLPATH"
	_fmt='%{http_code} %{size_download} %{time_total}\n'
	case $1 in
	direct)
		world_run "$PROXY_NS" "$CURL" --http1.1 -s -o /dev/null \
		    --max-time 120 --cacert "$CA" -w "$_fmt" "$_url"
		;;
	connect)
		egd_run "$CURL" --http1.1 -s -o /dev/null --max-time 120 \
		    --cacert "$CA" -w "$_fmt" "$_url" 2>/dev/null
		;;
	transparent)
		egd_run_transparent "$CURL" --http1.1 -s -o /dev/null \
		    --max-time 120 --cacert "$CA" -w "$_fmt" "$_url" 2>/dev/null
		;;
	haproxy)
		# the reference: the same hops (a loopback connection to the
		# proxy, the proxy's own to the origin) through haproxy
		world_run "$PROXY_NS" "$CURL" --http1.1 -s -o /dev/null \
		    --max-time 120 --cacert "$CA" -w "$_fmt" \
		    --connect-to "github.com:443:127.0.0.1:$REF_PORT" "$_url"
		;;
	esac
}

# An established proxy as a reference, when installed (tests/deps.sh does
# not install it): haproxy in TCP mode with splice, in egressd's namespace.
REF_MODES=""
REF_PORT=3443
ref_start() {
	command -v haproxy >/dev/null 2>&1 || return 0
	cat >"$T_DIR/haproxy.cfg" <<-EOF
	global
	  maxconn 1000
	defaults
	  mode tcp
	  timeout connect 5s
	  timeout client 120s
	  timeout server 120s
	  option splice-auto
	frontend bench
	  bind 127.0.0.1:$REF_PORT
	  default_backend origin
	backend origin
	  server github $GH:443
	EOF
	t_bg haproxy ip netns exec "$PROXY_NS" haproxy -db -f "$T_DIR/haproxy.cfg"
	t_wait_listen "$PROXY_NS" tcp 127.0.0.1 "$REF_PORT" ||
	    { say "haproxy did not start"; return 0; }
	REF_MODES=haproxy
}

if want throughput; then
	say
	say "== bulk download of $((WORLD_BIG_SIZE >> 20)) MiB over HTTPS" \
	    "(curl, HTTP/1.1, nginx), $ROUNDS rounds per mode, modes interleaved"
	ref_start
	for _m in direct connect transparent $REF_MODES; do
		: >"$T_DIR/bulk-$_m"
		eval "CPU_$_m=0 BYTES_$_m=0"
	done
	_r=0
	while [ "$_r" -lt "$ROUNDS" ]; do
		# the order turns every round: no mode always runs first
		case $((_r % 3)) in
		0) _order="direct connect transparent $REF_MODES" ;;
		1) _order="connect transparent $REF_MODES direct" ;;
		2) _order="transparent $REF_MODES direct connect" ;;
		esac
		for _m in $_order; do
			_c0=$(egd_cpu_ticks)
			_out=$(bulk "$_m")
			_c1=$(egd_cpu_ticks)
			# shellcheck disable=SC2086
			set -- $_out
			if [ "${1:-}" != 200 ] || [ "${2:-}" != "$WORLD_BIG_SIZE" ]; then
				say "$_m download failed or short: '$_out'"
				FAILED=1
				continue
			fi
			calc "$2 / $3 / 1048576" 1 >>"$T_DIR/bulk-$_m"
			eval "CPU_$_m=\$((CPU_$_m + _c1 - _c0))"
			eval "BYTES_$_m=\$((BYTES_$_m + $2))"
		done
		_r=$((_r + 1))
	done
	for _m in direct connect transparent $REF_MODES; do
		# shellcheck disable=SC2046
		set -- $(stats <"$T_DIR/bulk-$_m")
		emit "${_m}_throughput_mib_s" "$1" MiB/s
		emit "${_m}_throughput_min_mib_s" "$2" MiB/s
		emit "${_m}_throughput_max_mib_s" "$3" MiB/s
	done
	_d=$(val direct_throughput_mib_s)
	emit connect_throughput_ratio \
	    "$(calc "$(val connect_throughput_mib_s) / $_d")" ratio
	emit transparent_throughput_ratio \
	    "$(calc "$(val transparent_throughput_mib_s) / $_d")" ratio
	for _m in connect transparent; do
		_cpu=0 _bytes=0
		eval "_cpu=\$CPU_$_m _bytes=\$BYTES_$_m"
		[ "$_bytes" -gt 0 ] &&
		    emit "${_m}_cpu_s_per_gib" \
		    "$(calc "$_cpu / $TICK / ($_bytes / 1073741824)")" s/GiB
	done
	say "direct $(val direct_throughput_mib_s) MiB/s," \
	    "CONNECT $(val connect_throughput_mib_s) MiB/s" \
	    "(x$(val connect_throughput_ratio))," \
	    "transparent $(val transparent_throughput_mib_s) MiB/s" \
	    "(x$(val transparent_throughput_ratio)); egressd CPU per GiB:" \
	    "$(val connect_cpu_s_per_gib) s (CONNECT)," \
	    "$(val transparent_cpu_s_per_gib) s (transparent)"
	if [ -n "$REF_MODES" ]; then
		emit haproxy_throughput_ratio \
		    "$(calc "$(val haproxy_throughput_mib_s) / $_d")" ratio
		emit connect_vs_haproxy_ratio "$(calc \
		    "$(val connect_throughput_mib_s) / $(val haproxy_throughput_mib_s)")" ratio
		say "reference: haproxy $(haproxy -v | awk 'NR == 1 { print $3 }')" \
		    "(TCP mode, splice) $(val haproxy_throughput_mib_s) MiB/s" \
		    "(x$(val haproxy_throughput_ratio)); egressd CONNECT / haproxy" \
		    "x$(val connect_vs_haproxy_ratio)"
	else
		say "no reference proxy measured (apt-get install haproxy for one)"
	fi
fi

# ---- 2 + 3. added latency per new connection ------------------------------------

if want latency; then
	say
	say "== new HTTPS connections, one after another, from one process:"
	say "   TCP connect (+ CONNECT) + full TLS handshake + GET / to the"
	say "   first response byte; $SAMPLES per mode after 20 of warm-up"
	say "   (egressd's DNS cache warm), modes interleaved"
	take timeout -k 5 300 ip netns exec "$SBX" "$NETBENCH" conn \
	    -n "$SAMPLES" -w 20 -C "$CA" -H github.com \
	    "direct:$PROXY_NS:$GH:443" \
	    "connect:-:127.0.0.1:3128:connect" \
	    "transparent:-:$GH:443"
	_d=$(val conn_direct_ttfb_median)
	emit connect_added_latency_us \
	    "$(calc "$(val conn_connect_ttfb_median) - $_d" 1)" us
	emit transparent_added_latency_us \
	    "$(calc "$(val conn_transparent_ttfb_median) - $_d" 1)" us
	emit connect_exchange_us "$(calc "$(val conn_connect_tunnel_median) - \
	    $(val conn_connect_tcp_median)" 1)" us
	say "time to first byte: direct $_d us, CONNECT" \
	    "$(val conn_connect_ttfb_median) us" \
	    "(+$(val connect_added_latency_us); the CONNECT exchange alone" \
	    "$(val connect_exchange_us) us), transparent" \
	    "$(val conn_transparent_ttfb_median) us" \
	    "(+$(val transparent_added_latency_us))"

	say
	say "== the same with a new curl process per connection" \
	    "($CURL_SAMPLES per mode; curl's own time to first byte)"
	_fmt='%{http_code} %{time_starttransfer}\n'
	_rs="github.com:443:$GH"
	for _m in direct connect transparent; do : >"$T_DIR/curl-$_m"; done
	_i=0
	while [ "$_i" -lt "$CURL_SAMPLES" ]; do
		for _m in direct connect transparent; do
			case $_m in
			direct) _out=$(world_run "$PROXY_NS" "$CURL" -s \
			    -o /dev/null --resolve "$_rs" --cacert "$CA" \
			    --max-time 10 -w "$_fmt" https://github.com/) ;;
			connect) _out=$(egd_run "$CURL" -s -o /dev/null \
			    --cacert "$CA" --max-time 10 -w "$_fmt" \
			    https://github.com/ 2>/dev/null) ;;
			transparent) _out=$(egd_run_transparent "$CURL" -s \
			    -o /dev/null --resolve "$_rs" --cacert "$CA" \
			    --max-time 10 -w "$_fmt" https://github.com/ \
			    2>/dev/null) ;;
			esac
			# shellcheck disable=SC2086
			set -- $_out
			[ "${1:-}" = 200 ] && calc "$2 * 1000000" 1 \
			    >>"$T_DIR/curl-$_m"
		done
		_i=$((_i + 1))
	done
	for _m in direct connect transparent; do
		# shellcheck disable=SC2046
		set -- $(stats <"$T_DIR/curl-$_m")
		emit "curl_${_m}_samples" "$(grep -c . "$T_DIR/curl-$_m")" count
		emit "curl_${_m}_ttfb_median" "$1" us
	done
	_d=$(val curl_direct_ttfb_median)
	emit connect_added_latency_new_process_us \
	    "$(calc "$(val curl_connect_ttfb_median) - $_d" 1)" us
	emit transparent_added_latency_new_process_us \
	    "$(calc "$(val curl_transparent_ttfb_median) - $_d" 1)" us
	say "curl time to first byte: direct $_d us, CONNECT" \
	    "+$(val connect_added_latency_new_process_us) us, transparent" \
	    "+$(val transparent_added_latency_new_process_us) us" \
	    "(a new process each time: egressd looks it up afresh)"
fi

# ---- 8. TLS interception (protocol: rest) ----------------------------------------

if want intercept; then
	OBJ=$(world_addr objects.githubusercontent.com)
	# egressd's bundle: the world's CA (--upstream-ca) plus egressd's CA,
	# so one trust file serves the direct and the intercepted path
	BUNDLE=$EGD_CA_BUNDLE
	_url="https://objects.githubusercontent.com$WORLD_BIG_URLPATH"
	_fmt='%{http_code} %{size_download} %{time_total}\n'
	say
	say "== TLS interception: bulk download of" \
	    "$((WORLD_BIG_SIZE >> 20)) MiB from an endpoint with protocol:" \
	    "rest (egressd terminates TLS, decides the GET, re-encrypts)" \
	    "vs direct TLS; $ROUNDS rounds, modes interleaved"
	: >"$T_DIR/ibulk-direct"
	: >"$T_DIR/ibulk-intercept"
	_c=0
	_r=0
	while [ "$_r" -lt "$ROUNDS" ]; do
		for _m in direct intercept; do
			if [ "$_m" = direct ]; then
				_out=$(world_run "$PROXY_NS" "$CURL" --http1.1 \
				    -s -o /dev/null --max-time 120 \
				    --cacert "$BUNDLE" -w "$_fmt" "$_url")
			else
				_c0=$(egd_cpu_ticks)
				_out=$(egd_run "$CURL" --http1.1 -s -o /dev/null \
				    --max-time 120 --cacert "$BUNDLE" \
				    -w "$_fmt" "$_url" 2>/dev/null)
				_c=$((_c + $(egd_cpu_ticks) - _c0))
			fi
			# shellcheck disable=SC2086
			set -- $_out
			if [ "${1:-}" != 200 ] ||
			    [ "${2:-}" != "$WORLD_BIG_SIZE" ]; then
				say "intercept $_m download failed: '$_out'"
				FAILED=1
				continue
			fi
			calc "$2 / $3 / 1048576" 1 >>"$T_DIR/ibulk-$_m"
		done
		_r=$((_r + 1))
	done
	for _m in direct intercept; do
		# shellcheck disable=SC2046
		set -- $(stats <"$T_DIR/ibulk-$_m")
		emit "tls_${_m}_throughput_mib_s" "$1" MiB/s
	done
	emit intercept_throughput_ratio "$(calc \
	    "$(val tls_intercept_throughput_mib_s) / $(val tls_direct_throughput_mib_s)")" \
	    ratio
	emit intercept_cpu_s_per_gib "$(calc "$_c / $TICK / \
	    ($ROUNDS * $WORLD_BIG_SIZE / 1073741824)")" s/GiB
	say "direct TLS $(val tls_direct_throughput_mib_s) MiB/s," \
	    "intercepted $(val tls_intercept_throughput_mib_s) MiB/s" \
	    "(x$(val intercept_throughput_ratio)); egressd CPU" \
	    "$(val intercept_cpu_s_per_gib) s/GiB"

	say
	say "== new intercepted connections to a host whose leaf is cached:" \
	    "TCP + CONNECT + TLS with egressd + GET / (decided, re-sent over" \
	    "egressd's own TLS to the origin) to the first byte; $SAMPLES" \
	    "per mode after 20 of warm-up, interleaved with direct TLS"
	take timeout -k 5 300 ip netns exec "$SBX" "$NETBENCH" conn \
	    -n "$SAMPLES" -w 20 -C "$BUNDLE" \
	    -H objects.githubusercontent.com \
	    "tlsdirect:$PROXY_NS:$OBJ:443" \
	    "intercept:-:127.0.0.1:3128:connect" \
	    "itransparent:-:$OBJ:443"
	emit intercept_added_latency_us "$(calc \
	    "$(val conn_intercept_ttfb_median) - $(val conn_tlsdirect_ttfb_median)" \
	    1)" us
	emit intercept_transparent_added_latency_us "$(calc \
	    "$(val conn_itransparent_ttfb_median) - $(val conn_tlsdirect_ttfb_median)" \
	    1)" us

	# leaf minting: a fresh egressd, one connection to each world name
	# (the first connection to a host mints its leaf; the upstream
	# verdict does not matter here)
	_names="github.com api.github.com objects.githubusercontent.com
	    pypi.org files.pythonhosted.org example.com evil.example
	    rebind.example badcert.example wrongname.example"
	EGD_POLICY_KEEP=$EGD_POLICY
	{
		printf 'version: 1\nnetwork_policies:\n  mint:\n    endpoints:\n'
		for _h in $_names; do
			printf '      - { host: %s, port: 443, protocol: rest, access: read-only }\n' "$_h"
		done
		printf '    binaries:\n      - path: %s\n' "$CURL"
	} >"$T_DIR/bench-mint.yaml" # (egd_policy after a pipe would set
	EGD_POLICY=$T_DIR/bench-mint.yaml # EGD_POLICY in a subshell only)
	egd_restart
	BUNDLE=$EGD_CA_BUNDLE
	for _h in $_names; do
		egd_run "$CURL" -s -o /dev/null --max-time 10 \
		    --cacert "$BUNDLE" "https://$_h/" 2>/dev/null
	done
	_st=$(EGRESSD_CONTROL=$EGD_CONTROL "$BUILD/egressctl" status --json)
	emit tls_leaves_minted "$(printf '%s' "$_st" | "$WORLD_PY" -c \
	    'import json,sys; print(json.load(sys.stdin)["tls"]["leaves_minted"])')" count
	emit tls_leaf_mint_us_avg "$(printf '%s' "$_st" | "$WORLD_PY" -c \
	    'import json,sys; print(json.load(sys.stdin)["tls"]["mint_us_avg"])')" us
	emit tls_leaf_mint_us_max "$(printf '%s' "$_st" | "$WORLD_PY" -c \
	    'import json,sys; print(json.load(sys.stdin)["tls"]["mint_us_max"])')" us
	EGD_POLICY=$EGD_POLICY_KEEP
	egd_restart
	say "a new intercepted connection adds $(val intercept_added_latency_us)" \
	    "us through CONNECT, $(val intercept_transparent_added_latency_us)" \
	    "us transparently (leaf cached); minting a leaf for a new host takes" \
	    "$(val tls_leaf_mint_us_avg) us on average" \
	    "($(val tls_leaves_minted) hosts, max $(val tls_leaf_mint_us_max) us)"
fi

# ---- 6. the policy DNS server ---------------------------------------------------

if want dns; then
	say
	say "== DNS: example.com A, one UDP query at a time, $DNS_SAMPLES per" \
	    "server after one warm-up: egressd's policy DNS server in the" \
	    "sandbox (cached) vs the world's DNS server queried directly"
	take timeout -k 5 120 ip netns exec "$SBX" "$NETBENCH" dns \
	    -n "$DNS_SAMPLES" -w 1 example.com "egressd:-:127.0.0.1:53" \
	    "world:$PROXY_NS:$WORLD_DNS:53"
	emit dns_cached_answer_us "$(val dns_egressd_median)" us
	emit dns_world_direct_us "$(val dns_world_median)" us
	say "egressd answers in $(val dns_cached_answer_us) us (median;" \
	    "p90 $(val dns_egressd_p90)); the world's server (Python) in" \
	    "$(val dns_world_direct_us) us"
fi

# ---- 5. memory per idle tunnel ---------------------------------------------------

if want tunnels; then
	# egressd holds 2 sockets per idle tunnel (a direction gets a pipe
	# only once it carries bulk), plus its own; the client one socket
	# each, the sink one each. Opening one costs egressd a caller lookup
	# that tries the fd next to the client's previous socket first, and
	# otherwise lists its fds: 5000 (the issue's figure).
	_n=$(((FD_LIMIT - 500) / 2 / 100 * 100))
	[ "$_n" -gt 5000 ] && _n=5000
	NTUN=${BENCH_TUNNELS:-$_n}
	say
	say "== $NTUN idle CONNECT tunnels from one process (file limit" \
	    "$FD_LIMIT); egressd restarted before each run so that its heap" \
	    "starts small"
	t_bg sink ip netns exec "$WORLD_NS" "$NETBENCH" sink "$EX:9"
	t_wait_listen "$WORLD_NS" tcp "$EX" 9 || { say "sink did not start"; exit 1; }
	egd_restart
	take timeout -k 5 600 ip netns exec "$SBX" "$NETBENCH" tunnels -R \
	    -N "$NTUN" -e "$EGD_PID" -x "-:127.0.0.1:3128" -t example.com:9
	egd_restart
	take timeout -k 5 600 ip netns exec "$SBX" "$NETBENCH" tunnels -f \
	    -N "$NTUN" -e "$EGD_PID" -x "-:127.0.0.1:3128" -t example.com:9
	say "RSS per idle tunnel (a byte each way, then idle):" \
	    "$(val rss_per_idle_tunnel_bytes) bytes," \
	    "$(val tunnels_idle_fds_per_tunnel) fds; reopened after close:" \
	    "$(val rss_regrowth_per_idle_tunnel_bytes) bytes more per tunnel"
	say "RSS per fresh tunnel (CONNECT answered, nothing sent yet):" \
	    "$(val rss_per_fresh_tunnel_bytes) bytes"
	say "opening a tunnel took $(val tunnels_idle_open_first_us) us with" \
	    "few open and $(val tunnels_idle_open_last_us) us with" \
	    "$NTUN open (the caller lookup finds a socket next to the" \
	    "previous one without listing the client's fds)"
fi

# ---- summary ----------------------------------------------------------------------

row() {
	_v=$(val "$1")
	_u=$(awk -v n="$1" '$1 == n { u = $3 } END { print u }' "$RES")
	[ -n "$_v" ] && printf '| %-42s | %12s %-6s | %-10s |\n' "$1" "$_v" \
	    "$_u" "$2"
}

echo
say "summary ($(($(date +%s) - START)) s); targets from the project's issues"
printf '| %-42s | %19s | %-10s |\n' figure value target
printf '|%s|%s|%s|\n' "--------------------------------------------" \
    "---------------------" "------------"
row connect_throughput_ratio ">= 0.90"
row transparent_throughput_ratio ">= 0.90"
row haproxy_throughput_ratio "reference"
row connect_vs_haproxy_ratio ""
row connect_cpu_s_per_gib ""
row transparent_cpu_s_per_gib ""
row connect_added_latency_us "<= 250"
row transparent_added_latency_us "<= 150"
row connect_exchange_us ""
row connect_added_latency_new_process_us ""
row transparent_added_latency_new_process_us ""
row identity_lookup_us_median "<= 100"
row identity_lookup_new_process_us_median ""
row rss_per_idle_tunnel_bytes "<= 4096"
row rss_per_fresh_tunnel_bytes ""
row rss_regrowth_per_idle_tunnel_bytes ""
row tunnels_idle_open_first_us ""
row tunnels_idle_open_last_us ""
row intercept_throughput_ratio ">= 0.5"
row intercept_cpu_s_per_gib ""
row intercept_added_latency_us "<= 1500"
row intercept_transparent_added_latency_us "<= 1500"
row tls_leaf_mint_us_avg "reported"
row dns_cached_answer_us "<= 50"
row dns_world_direct_us "baseline"
for _n in 10 100 1000 10000; do
	row "decisions_per_sec_$_n" ""
done
[ -z "${BENCH_RESULTS:-}" ] || cp "$RES" "$BENCH_RESULTS"
[ "$FAILED" -eq 0 ] || say "some benchmarks could not measure (see above)"
exit "$FAILED"
