#!/bin/sh
# SPDX-License-Identifier: ISC
# Golden tests for egressctl: every case of tests/golden/ctl/cases.txt runs
# (offline against tests/golden/ctl/explain.yaml and the fixture root, or
# against a stand-in for egressd's control socket, tests/golden/ctl/
# fake-egressd.py) and its stdout, stderr and exit status are diffed with
# tests/golden/ctl/expected/NAME.out. Also: every proposal passes
# `egressd -t`, JSON outputs parse, the requests sent to the socket are the
# expected ones, explain prints the daemon's answer as it prints its own, and
# every command that needs the daemon fails cleanly (exit 2, a message
# saying what to do) when nothing listens.
# Usage: run_ctl.sh EGRESSCTL EGRESSD [--update]
set -u
ctl=$1
egressd=$2
update=${3:-}
here=tests/golden/ctl
tmp=$(mktemp -d /tmp/egressctl-golden.XXXXXX)
daemon_pid=
cleanup() {
	[ -n "$daemon_pid" ] && kill "$daemon_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
n=0
failed=0

ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
check() { if [ "$1" = 0 ]; then ok "$2"; else notok "$2"; fi; }

# The names the cases use.
P=$here/explain.yaml
R=tests/golden/root
L=$here/decisions.jsonl
S=$tmp/control.sock

python3 $here/fake-egressd.py "$S" $here/daemon/map.txt "$tmp/requests.log" \
	2>"$tmp/daemon.err" &
daemon_pid=$!
# poll until it listens (the socket is renamed into place when it does)
i=0
while [ ! -S "$S" ] && [ $i -lt 400 ] && kill -0 "$daemon_pid" 2>/dev/null; do
	i=$((i + 1))
	sleep 0.025
done
[ -S "$S" ] || { echo "Bail out! fake egressd did not start"; cat "$tmp/daemon.err"; exit 1; }

# Runs egressctl with the given words; leaves $tmp/stdout, $tmp/stderr,
# $status and the combined, normalized $tmp/out.
run() {
	NO_COLOR= EGRESSD_CONTROL= "$ctl" "$@" >"$tmp/stdout" 2>"$tmp/stderr" </dev/null
	status=$?
	{
		cat "$tmp/stdout"
		if [ -s "$tmp/stderr" ]; then
			echo "--- stderr"
			cat "$tmp/stderr"
		fi
		echo "exit: $status"
	} | sed "s#$tmp#\$TMP#g" >"$tmp/out"
}

mkdir -p $here/expected
while IFS= read -r line; do
	case $line in '' | '#'*) continue ;; esac
	name=${line%%:*}
	args=${line#*:}
	eval "set -- $args"
	run "$@"
	exp=$here/expected/$name.out
	[ "$update" = --update ] && cp "$tmp/out" "$exp"
	if diff -u "$exp" "$tmp/out" >"$tmp/diff" 2>&1; then
		ok "$name: output matches"
	else
		notok "$name: output differs from $exp"
		sed 's/^/# /' "$tmp/diff"
	fi
	case $name in
	*-json)
		python3 -c 'import json,sys; json.load(open(sys.argv[1]))' \
			"$tmp/stdout" 2>/dev/null
		check $? "$name: JSON parses"
		;;
	*-jsonl)
		python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' \
			"$tmp/stdout" 2>/dev/null
		check $? "$name: every line is JSON"
		;;
	esac
	case $name in
	propose-* | daemon-propose)
		if [ $status -eq 0 ]; then
			cp "$tmp/stdout" "$tmp/proposal.yaml"
			"$egressd" -t -p "$tmp/proposal.yaml" --root $R >"$tmp/check" 2>&1 </dev/null
			if [ $? -eq 0 ]; then
				ok "$name: egressd -t accepts the proposal"
			else
				notok "$name: egressd -t refuses the proposal"
				grep error "$tmp/check" | sed 's/^/# /'
			fi
		fi
		;;
	esac
	# exit statuses follow the contract
	case $name in
	*-err-* | err-*) want=2 ;;
	help*) want=0 ;;
	daemon-reload-ok) want=0 ;;
	daemon-reload-refused) want=1 ;;
	explain-* | daemon-explain*)
		if grep -q '^decision: allowed\|"decision":"allowed"' "$tmp/stdout"; then want=0; else want=1; fi ;;
	*) want=0 ;;
	esac
	[ $status -eq $want ]
	check $? "$name: exit $want"
done <$here/cases.txt

# The requests egressctl sent, percent-encoding included.
exp=$here/expected/requests.log
[ "$update" = --update ] && cp "$tmp/requests.log" "$exp"
diff -u "$exp" "$tmp/requests.log" >"$tmp/diff" 2>&1
rc=$?
check $rc "requests sent to the control socket"
[ $rc -eq 0 ] || sed 's/^/# /' "$tmp/diff"

# explain prints the daemon's answer exactly as its own offline one (the
# canned answer is the offline decision of the same question).
sed -n '/^trace/,$p' $here/expected/explain-audit.out | sed '/^exit:/d;s#tests/golden/ctl/explain.yaml#/etc/egressd/policy.yaml#g' >"$tmp/a"
sed -n '/^trace/,$p' $here/expected/daemon-explain.out | sed '/^exit:/d' >"$tmp/b"
cmp -s "$tmp/a" "$tmp/b"
check $? "explain: the daemon's answer prints like the offline one"

# Colors: on a terminal (script(1) gives one) unless NO_COLOR is set.
if command -v script >/dev/null 2>&1; then
	script -qec "EGRESSD_CONTROL= NO_COLOR= $ctl tail --control $S" /dev/null >"$tmp/tty" 2>&1 </dev/null
	grep -q "$(printf '\033\\[31mNET:OPEN \\[MED\\] DENIED')" "$tmp/tty" &&
		grep -q "$(printf '\033\\[33mNET:OPEN \\[MED\\] WOULD_DENY')" "$tmp/tty" &&
		grep -q "$(printf '\033\\[32mNET:OPEN \\[INFO\\] ALLOWED')" "$tmp/tty"
	check $? "tail on a terminal: red denied, yellow would_deny, green allowed"
	script -qec "EGRESSD_CONTROL= NO_COLOR=1 $ctl tail --control $S" /dev/null >"$tmp/tty" 2>&1 </dev/null
	! grep -q "$(printf '\033')" "$tmp/tty" && grep -q DENIED "$tmp/tty"
	check $? "tail on a terminal with NO_COLOR: no colors"
else
	ok "# SKIP script(1) not installed"
fi

# Nothing listening: a missing socket, and a socket file nobody serves.
python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.close()' "$tmp/stale.sock"
for path in "$tmp/missing.sock" "$tmp/stale.sock"; do
	case $path in
	*missing*) why="No such file or directory" ;;
	*) why="Connection refused" ;;
	esac
	for cmd in "status" "status --json" "reload" "tail" "tail --denied" \
		"tail --json" "denials" "denials --json" "propose" \
		"propose --since 1h" \
		"explain --binary /usr/bin/curl --host example.com --port 443"; do
		# shellcheck disable=SC2086
		run $cmd --control "$path"
		head -1 "$tmp/stderr" | grep -q "^egressctl: cannot reach egressd at $path: $why (is egressd running? start it" &&
			[ $status -eq 2 ] && [ ! -s "$tmp/stdout" ]
		check $? "$cmd, $why: exit 2 and what to do"
	done
	# the same through EGRESSD_CONTROL
	EGRESSD_CONTROL=$path "$ctl" status >"$tmp/stdout" 2>"$tmp/stderr" </dev/null
	status=$?
	grep -q "^egressctl: cannot reach egressd at $path: $why" "$tmp/stderr" && [ $status -eq 2 ]
	check $? "EGRESSD_CONTROL=$why path: exit 2 and the message"
done
# The offline advice names the offline option of each command.
run denials --control "$tmp/missing.sock"
grep -q ', or read a decision log with --log FILE)$' "$tmp/stderr"
check $? "denials: the advice names --log FILE"
run explain --binary /usr/bin/curl --host example.com --port 443 --control "$tmp/missing.sock"
grep -q ', or decide offline with --policy FILE)$' "$tmp/stderr"
check $? "explain: the advice names --policy FILE"

echo "1..$n"
[ $failed -eq 0 ]
