#!/bin/sh
# SPDX-License-Identifier: ISC
# shellcheck disable=SC2016  # the sh -c scripts expand inside the sandbox
# Integration test of netns-scripts/egressd-netns: the sandbox it builds lets
# TCP and DNS out only through (stand-ins for) egressd's listeners, rejects
# everything else at once for IPv4 and IPv6, and up/run/down/status behave.
# egressd itself is not involved: fence_standin.py plays its listeners.
#
# Destinations are loopback, 198.18.0.0/15 and 2001:db8::/32 only; the
# sandbox has no route off the machine, and the sink's counters prove that
# not one packet was even handed to its only non-loopback link.

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/integration/lib.sh
. "$here/lib.sh"
t_init

top=$(cd "$here/../.." && pwd)
# Copies that the unprivileged user can read, whatever the checkout's modes.
PUB=$T_DIR/pub
mkdir -p "$PUB"
cp "$top/netns-scripts/egressd-netns" "$here/fence_probe.py" \
    "$here/fence_standin.py" "$PUB/"
chmod 0711 "$T_DIR"
chmod -R a+rX "$PUB"
PY=/usr/bin/python3
STATE_DIR=/run/egressd-netns
SB=egt$T_ID
SB2=egt${T_ID}b
FOREIGN=egt${T_ID}f

nn() {
	sh "$PUB/egressd-netns" "$@"
}

# Pushes the removal of sandbox $1 (down, then by hand if down failed).
cleanup_sandbox() {
	t_cleanup_push "ip netns del '$1'; rm -f '$STATE_DIR/$1.env'"
	t_cleanup_push "sh '$PUB/egressd-netns' down '$1'"
}

# err_case DESC WANT_RC PATTERN CMD...: ok when CMD exits WANT_RC and its
# stderr contains PATTERN.
err_case() {
	_d=$1 _want=$2 _pat=$3
	shift 3
	_rc=0
	"$@" >"$T_DIR/err.out" 2>"$T_DIR/err.txt" || _rc=$?
	if [ "$_rc" -eq "$_want" ] && grep -qF -- "$_pat" "$T_DIR/err.txt"; then
		t_ok 0 "$_d"
	else
		t_ok 1 "$_d"
		t_diag "exit $_rc (want $_want), stderr:" "$(cat "$T_DIR/err.txt")"
	fi
}

# probe ARGS: fence_probe.py inside $SB as nobody, no proxy variables.
probe() {
	nn run "$SB" --uid nobody --no-proxy-env -- \
	    $PY "$PUB/fence_probe.py" "$@" 2>>"$T_DIR/run.err"
}

# probe_root ARGS: the same as root (raw sockets need CAP_NET_RAW).
probe_root() {
	nn run "$SB" --no-proxy-env -- \
	    $PY "$PUB/fence_probe.py" "$@" 2>>"$T_DIR/run.err"
}

# snapshot NS: everything `up` configures inside NS, as text.
snapshot() {
	ip netns exec "$1" nft list ruleset
	ip -n "$1" -d link show | sed 's/^[0-9]*: //; s/link\/ether [^ ]*//'
	ip -n "$1" addr show | grep -v 'valid_lft'
	ip -n "$1" route show table all
	ip -n "$1" -6 route show table all
	cat "$STATE_DIR/$1.env"
}

netns_inode() {
	ip netns exec "$1" readlink /proc/self/ns/net
}

# ---------------------------------------------------------------- errors

err_case "not root: 'must run as root'" 1 "must run as root" \
    setpriv --reuid=65534 --regid=65534 --clear-groups \
    sh "$PUB/egressd-netns" up "$SB"
ip netns list | awk '{print $1}' | grep -qx "$SB"
t_ok $((!$?)) "not root: no namespace created"

mkdir -p "$T_DIR/bin-noip" "$T_DIR/bin-nonft" "$T_DIR/bin-nosetpriv"
ln -s "$(command -v id)" "$T_DIR/bin-noip/id"
for t in id ip; do
	ln -s "$(command -v $t)" "$T_DIR/bin-nonft/$t"
done
for t in id ip nft; do
	ln -s "$(command -v $t)" "$T_DIR/bin-nosetpriv/$t"
done
err_case "ip missing: names the package iproute2" 1 "package 'iproute2'" \
    env PATH="$T_DIR/bin-noip" /bin/sh "$PUB/egressd-netns" up "$SB"
err_case "nft missing: names the package nftables" 1 "package 'nftables'" \
    env PATH="$T_DIR/bin-nonft" /bin/sh "$PUB/egressd-netns" up "$SB"
err_case "setpriv missing (run --uid): names util-linux" 1 \
    "package 'util-linux'" env PATH="$T_DIR/bin-nosetpriv" /bin/sh \
    "$PUB/egressd-netns" run "$SB" --uid nobody -- true

for bad in 'a/b' '..' '.hidden' '-x' 'a b' 'x;y' \
    'abcdefghijklmnopqrstuvwxyz0123456'; do
	err_case "invalid name '$bad' rejected" 2 "invalid sandbox name" \
	    nn up "$bad"
done
err_case "empty name rejected" 2 "missing sandbox NAME" nn up ''
err_case "unknown option rejected" 2 "unknown option '--bogus'" \
    nn up "$SB" --bogus
err_case "unknown run option rejected" 2 "unknown option '--user'" \
    nn run "$SB" --user nobody -- true
err_case "unknown command rejected" 2 "unknown command 'start'" \
    nn start "$SB"
for port in 0 65536 080 -1 abc ''; do
	err_case "--dns-port '$port' rejected" 2 "is not a port" \
	    nn up "$SB" --dns-port "$port"
done
err_case "equal ports rejected" 2 "must differ" \
    nn up "$SB" --dns-port 3128
err_case "run on a sandbox that is not up" 1 "is not up" \
    nn run "$SB" -- true
nn --help | grep -q '^usage: egressd-netns up NAME'
t_ok $? "--help prints the usage"

# A namespace egressd-netns did not make is left alone.
ip netns add "$FOREIGN"
t_cleanup_push "ip netns del '$FOREIGN'"
err_case "up refuses a foreign namespace" 1 "not made by" nn up "$FOREIGN"
t_is "$(ip netns exec "$FOREIGN" nft list tables)" "" \
    "foreign namespace: no table added"
err_case "down refuses a foreign namespace" 1 "refusing to delete" \
    nn down "$FOREIGN"
ip netns list | awk '{print $1}' | grep -qx "$FOREIGN"
t_ok $? "foreign namespace still there"

# ---------------------------------------------------------------- up

cleanup_sandbox "$SB"
nn up "$SB" >"$T_DIR/up1.out" 2>&1
t_ok $? "up $SB"
nn status "$SB" >"$T_DIR/status.out" 2>&1
t_is "$?" 0 "status: up and fenced (exit 0)"
grep -q 'ports: transparent 15001, dns 53, proxy 3128' "$T_DIR/status.out"
t_ok $? "status shows the default ports"
t_is "$(grep -c ': MISSING (is egressd running' "$T_DIR/status.out")" 7 \
    "status: all seven egressd listeners reported missing before egressd"
t_check "state file exists" test -f "$STATE_DIR/$SB.env"
t_is "$(ip -n "$SB" -o link show | awk -F': ' '{print $2}' | sort |
    tr '\n' ' ')" "lo sink0 " "links inside: lo and the sink only"
t_is "$(ip netns exec "$SB" nft list tables)" "table inet egressd" \
    "one nftables table inside"
t_is "$(ip netns exec "$SB" cat /proc/sys/net/ipv4/ip_forward \
    /proc/sys/net/ipv6/conf/all/forwarding | tr '\n' ' ')" "0 0 " \
    "forwarding off inside"
ip link show sink0 >/dev/null 2>&1
t_ok $((!$?)) "no sink link in the host namespace"

snapshot "$SB" >"$T_DIR/snap1"
nn up "$SB" >/dev/null 2>&1
t_ok $? "up again on an existing sandbox"
snapshot "$SB" >"$T_DIR/snap2"
diff "$T_DIR/snap1" "$T_DIR/snap2" >"$T_DIR/snap.diff"
t_ok $? "up twice: identical ruleset, links, addresses, routes, state"
[ -s "$T_DIR/snap.diff" ] && t_diag "$(cat "$T_DIR/snap.diff")"

# Losing the fence is detected, refused, and repaired by up.
ip netns exec "$SB" nft delete table inet egressd
err_case "run refuses a sandbox that lost its fence" 1 \
    "lost its nftables fence" nn run "$SB" -- true
nn status "$SB" >"$T_DIR/status.out" 2>&1
t_is "$?" 1 "status: fence missing gives exit 1"
grep -q 'fence: MISSING' "$T_DIR/status.out"
t_ok $? "status says the fence is missing"
nn up "$SB" >/dev/null 2>&1
snapshot "$SB" >"$T_DIR/snap3"
diff "$T_DIR/snap1" "$T_DIR/snap3" >/dev/null
t_ok $? "up restores exactly the same state"

# ---------------------------------------------------------------- fence

t_bg standin ip netns exec "$SB" $PY "$PUB/fence_standin.py" 15001 53 3128
STANDIN_PID=$T_PID
ready=0
for l in "tcp 127.0.0.1 15001" "tcp ::1 15001" "udp 127.0.0.1 53" \
    "udp ::1 53" "tcp 127.0.0.1 53" "tcp ::1 53" "tcp 127.0.0.1 3128"; do
	# shellcheck disable=SC2086
	t_wait_listen "$SB" $l || ready=1
done
t_ok $ready "stand-in listeners up inside the sandbox"
nn status "$SB" >"$T_DIR/status.out" 2>&1
t_is "$(grep -c ': listening$' "$T_DIR/status.out")" 7 \
    "status: all seven listeners seen once they are up"

t_is "$(probe tcp 198.18.5.5 443)" "OK ORIG 198.18.5.5 443" \
    "TCP 198.18.5.5:443 captured, original destination exact"
t_is "$(probe tcp 198.19.200.7 22)" "OK ORIG 198.19.200.7 22" \
    "TCP 198.19.200.7:22 captured (any port)"
t_is "$(probe tcp 2001:db8::5 443)" "OK ORIG 2001:db8::5 443" \
    "TCP [2001:db8::5]:443 captured, original destination exact"
t_is "$(probe tcp ::ffff:198.18.0.1 443)" "OK ORIG 198.18.0.1 443" \
    "TCP to IPv4-mapped [::ffff:198.18.0.1]:443 captured as IPv4"
t_is "$(probe tcp fe80::5%sink0 443)" "OK ORIG fe80::5 443" \
    "TCP to link-local [fe80::5%sink0]:443 captured"
t_is "$(probe tcp 198.18.5.5 443 sink0)" "OK ORIG 198.18.5.5 443" \
    "TCP from a socket bound to the sink (IPv4) captured"
t_is "$(probe tcp 2001:db8::5 443 sink0)" "OK ORIG 2001:db8::5 443" \
    "TCP from a socket bound to the sink (IPv6) captured"
t_is "$(probe tcp 127.0.0.1 3128)" "OK PROXY" \
    "explicit proxy port 127.0.0.1:3128 reachable"
t_is "$(probe tcp 127.0.0.1 15001)" "ERR ECONNREFUSED" \
    "direct connect to 127.0.0.1:15001 (transparent port) refused"
t_is "$(probe tcp ::1 15001)" "ERR ECONNREFUSED" \
    "direct connect to [::1]:15001 (transparent port) refused"

for dst in 198.18.9.9 2001:db8::53 127.0.0.53; do
	for tr in udp tcp; do
		t_is "$(probe dns $tr $dst)" "DNS rcode=3" \
		    "DNS over $tr to $dst:53 answered by the stand-in"
	done
done
# A real resolver (glibc, through getent) with a resolv.conf naming a
# server in 198.18.0.0/15, bind-mounted in a private mount namespace.
printf 'nameserver 198.18.9.53\noptions timeout:2 attempts:1\n' \
    >"$PUB/resolv.conf"
chmod a+r "$PUB/resolv.conf"
nn run "$SB" --no-proxy-env -- unshare -m /bin/sh -c \
    'mount --bind "$1" /etc/resolv.conf &&
     exec setpriv --reuid=65534 --regid=65534 --clear-groups getent hosts "$2"' \
    sh "$PUB/resolv.conf" "fence-$T_ID.example" >/dev/null 2>>"$T_DIR/run.err"
t_is "$?" 2 "getent: the name is not found (NXDOMAIN from the stand-in)"
t_check "getent's query reached the stand-in" \
    t_wait_grep "$T_DIR/standin.log" "DNS udp fence-$T_ID.example."

# UDP: the reject verdict fails the send at once (EPERM) and its ICMP
# port-unreachable reaches the socket: the next recv gets ECONNREFUSED.
for dst in "198.18.5.5 9999" "198.18.5.5 443" "2001:db8::5 9999" \
    "2001:db8::5 443"; do
	# shellcheck disable=SC2086
	t_is "$(probe udp $dst)" "SEND EPERM RECV ECONNREFUSED" \
	    "UDP to ${dst% *}:${dst#* } refused at once"
done
t_is "$(probe udpburst 198.18.5.5 300)" "REFUSED 300/300" \
    "300 UDP sockets back to back: every one refused (no ICMP rate limit)"
t_is "$(probe udpburst 2001:db8::5 300)" "REFUSED 300/300" \
    "300 UDP sockets back to back over IPv6: every one refused"
t_is "$(probe mcast 224.0.0.251 5353)" "ERR EPERM" "UDP multicast refused"
t_is "$(probe mcast 255.255.255.255 9)" "ERR EPERM" "UDP broadcast refused"
t_is "$(probe mcast ff02::fb%sink0 5353)" "ERR EPERM" \
    "UDP IPv6 multicast refused"

t_is "$(probe_root icmp 198.18.5.5)" "ERR EPERM" "ICMP echo (raw) refused"
t_is "$(probe_root icmp 2001:db8::5)" "ERR EPERM" \
    "ICMPv6 echo (raw) refused"
t_is "$(probe_root raw 198.18.5.5 253)" "ERR EPERM" \
    "raw IPv4 protocol 253 refused"
t_is "$(probe_root raw 2001:db8::5 253)" "ERR EPERM" \
    "raw IPv6 protocol 253 refused"
t_is "$(probe_root raw 198.18.5.5 132)" "ERR EPERM" "raw SCTP refused"
# Unprivileged ping sockets are off by default in a new namespace; open
# them to everyone to show that the fence refuses them too.
ip netns exec "$SB" sh -c \
    'echo "0 2147483647" >/proc/sys/net/ipv4/ping_group_range'
# IPv4 ping sockets report the reject verdict on send (EPERM); IPv6 ones
# ignore it (icmpv6_push_pending_frames) and get the admin-prohibited
# ICMPv6 error on recv instead (EACCES). Both at once, never a timeout.
t_is "$(probe ping 198.18.5.5)" "ERR EPERM" "unprivileged ping refused"
t_is "$(probe ping 2001:db8::5)" "ERR EACCES" \
    "unprivileged ICMPv6 ping refused"

if command -v curl >/dev/null 2>&1; then
	t_is "$(nn run "$SB" --uid nobody --no-proxy-env -- curl -s \
	    --max-time 5 --http0.9 http://198.18.5.5:8080/ 2>>"$T_DIR/run.err")" \
	    "ORIG 198.18.5.5 8080" "curl without proxy variables: captured"
	t_is "$(nn run "$SB" --uid nobody -- curl -s --max-time 5 \
	    --http0.9 http://198.18.5.5:8080/ 2>>"$T_DIR/run.err")" "PROXY" \
	    "curl with run's proxy variables: goes to the explicit proxy"
else
	t_ok 0 "# SKIP curl not installed"
	t_ok 0 "# SKIP curl not installed"
fi

# Not one packet was handed to the sink: everything was redirected to
# loopback or refused before it.
t_is "$(ip netns exec "$SB" sh -c 'cd /sys/class/net/sink0/statistics &&
    cat tx_packets rx_packets tx_dropped rx_dropped' | tr '\n' ' ')" \
    "0 0 0 0 " "sink link counters all zero"

# ---------------------------------------------------------------- run

t_is "$(nn run "$SB" --uid nobody -- sh -c 'echo $(id -u) $(id -g) $(id -G)' \
    2>>"$T_DIR/run.err")" "65534 65534 65534" "run --uid nobody: uid and groups"
nn run "$SB" --uid nobody -- sh -c 'exit 7' 2>>"$T_DIR/run.err"
t_is "$?" 7 "run passes the exit status through"
t_is "$(nn run "$SB" --uid 4242 --gid 4243 -- sh -c 'echo $(id -u) $(id -G)' \
    2>>"$T_DIR/run.err")" "4242 4243" "run --uid/--gid with numbers"
err_case "run --uid without passwd entry needs --gid" 1 "give --gid" \
    nn run "$SB" --uid 4242 -- true
t_is "$(nn run "$SB" --uid nobody -- sh -c \
    'grep -E "^(CapEff|CapBnd|NoNewPrivs):" /proc/self/status | tr -s "\t\n" "  "' \
    2>>"$T_DIR/run.err")" \
    "CapEff: 0000000000000000 CapBnd: 0000000000000000 NoNewPrivs: 1 " \
    "run --uid: no new privileges, no capabilities"
t_is "$(nn run "$SB" --uid nobody -- sh -c 'echo "$HOME $USER"' \
    2>>"$T_DIR/run.err")" "/nonexistent nobody" "run --uid: HOME and USER"
t_is "$(nn run "$SB" --uid nobody -- sh -c \
    'echo "$HTTP_PROXY $HTTPS_PROXY $ALL_PROXY $http_proxy $https_proxy $all_proxy"' \
    2>>"$T_DIR/run.err")" "$(printf 'http://127.0.0.1:3128 %.0s' 1 2 3 4 5 6 |
    sed 's/ $//')" "run: proxy variables point to the explicit proxy"
t_is "$(nn run "$SB" --uid nobody -- sh -c 'echo "$NO_PROXY $no_proxy"' \
    2>>"$T_DIR/run.err")" "localhost,127.0.0.1,::1 localhost,127.0.0.1,::1" \
    "run: NO_PROXY covers loopback"
t_is "$(HTTPS_PROXY=http://stale.invalid:1 nn run "$SB" --uid nobody \
    --no-proxy-env -- sh -c 'echo "${HTTPS_PROXY-unset} ${http_proxy-unset} ${NO_PROXY-unset}"' \
    2>>"$T_DIR/run.err")" "unset unset unset" \
    "run --no-proxy-env: proxy variables unset, even inherited ones"
t_is "$(nn run "$SB" --uid nobody --env HTTPS_PROXY=http://127.0.0.1:9 \
    --env 'X_Y=a b=c' -- sh -c 'echo "$HTTPS_PROXY|$HTTP_PROXY|$X_Y"' \
    2>>"$T_DIR/run.err")" "http://127.0.0.1:9|http://127.0.0.1:3128|a b=c" \
    "run --env sets variables and wins over the defaults"
err_case "run --env with a bad name rejected" 2 "not a variable name" \
    nn run "$SB" --env 'A-B=1' -- true
printf 'not really a CA\n' >"$PUB/ca.pem"
chmod a+r "$PUB/ca.pem"
t_is "$(nn run "$SB" --uid nobody --ca-bundle "$PUB/ca.pem" -- sh -c \
    'echo $SSL_CERT_FILE $REQUESTS_CA_BUNDLE $CURL_CA_BUNDLE $GIT_SSL_CAINFO $PIP_CERT $NODE_EXTRA_CA_CERTS' \
    2>>"$T_DIR/run.err")" "$(printf "$PUB/ca.pem %.0s" 1 2 3 4 5 6 |
    sed 's/ $//')" "run --ca-bundle sets the six CA variables"
err_case "run --ca-bundle with a missing file" 1 "not a readable file" \
    nn run "$SB" --ca-bundle "$PUB/nope.pem" -- true
err_case "run without --uid warns about root" 0 "running as root" \
    nn run "$SB" -- true

# ---------------------------------------------------------------- ports

cleanup_sandbox "$SB2"
nn up "$SB2" --transparent-port 16001 --dns-port=5353 --proxy-port 13128 \
    >/dev/null 2>&1
t_ok $? "up with custom ports"
nn status "$SB2" | grep -q 'ports: transparent 16001, dns 5353, proxy 13128'
t_ok $? "status shows the custom ports"
t_bg standin2 ip netns exec "$SB2" $PY "$PUB/fence_standin.py" \
    16001 5353 13128
t_check "custom-port stand-in up" t_wait_listen "$SB2" udp 127.0.0.1 5353
t_wait_listen "$SB2" tcp 127.0.0.1 16001 >/dev/null 2>&1
t_is "$(nn run "$SB2" --uid nobody --no-proxy-env -- $PY \
    "$PUB/fence_probe.py" tcp 198.18.5.5 443 2>>"$T_DIR/run.err")" \
    "OK ORIG 198.18.5.5 443" "custom transparent port 16001 captures TCP"
t_is "$(nn run "$SB2" --uid nobody --no-proxy-env -- $PY \
    "$PUB/fence_probe.py" dns udp 198.18.9.9 2>>"$T_DIR/run.err")" \
    "DNS rcode=3" "custom DNS port 5353 gets DNS to port 53"
t_is "$(nn run "$SB2" --uid nobody -- sh -c 'echo $HTTPS_PROXY' \
    2>>"$T_DIR/run.err")" "http://127.0.0.1:13128" \
    "run uses the recorded proxy port"
snapshot "$SB2" >"$T_DIR/snap2a"
nn up "$SB2" >/dev/null 2>&1
snapshot "$SB2" >"$T_DIR/snap2b"
diff "$T_DIR/snap2a" "$T_DIR/snap2b" >/dev/null
t_ok $? "up again without options keeps the recorded ports"
nn up "$SB2" --dns-port 5354 >/dev/null 2>&1
ip netns exec "$SB2" nft list table inet egressd | grep -q 'redirect to :5354'
t_ok $? "up with a new DNS port replaces the rule"
grep -qx 'DNS_PORT=5354' "$STATE_DIR/$SB2.env"
t_ok $? "... and records it"

# ---------------------------------------------------------------- down

ino=$(netns_inode "$SB")
err_case "down warns about processes still inside" 0 \
    "processes still inside" nn down "$SB"
kill "$STANDIN_PID" 2>/dev/null
wait "$STANDIN_PID" 2>/dev/null
ip netns list | awk '{print $1}' | grep -qx "$SB"
t_ok $((!$?)) "down: namespace gone"
t_check "down: state file gone" test ! -e "$STATE_DIR/$SB.env"
held=0
for f in /proc/[0-9]*/ns/net; do
	[ "$(readlink "$f" 2>/dev/null)" = "$ino" ] && held=1
done
t_is "$held" 0 "down: no process holds the namespace (sink and table gone)"
ip link show sink0 >/dev/null 2>&1
t_ok $((!$?)) "down: no sink link anywhere in the host namespace"
nn down "$SB" >"$T_DIR/down2.out" 2>&1
t_is "$?" 0 "down again: exit 0"
grep -q 'not present' "$T_DIR/down2.out"
t_ok $? "down again says 'not present'"
nn status "$SB" >/dev/null 2>&1
t_is "$?" 3 "status of an absent sandbox: exit 3"

t_done
