# SPDX-License-Identifier: ISC
# Shared shell helpers for the integration tests (sourced, POSIX sh).
# Owns: TAP output, unique names, LIFO cleanup from a trap, polling for
# readiness. Leaves the test world (servers, CA, DNS) to world.sh.
#
# Every test:   . "$(dirname "$0")/lib.sh"; t_init; ...; t_done
# Names:        $T_ID is short and unique per run ("<tag><pid>"), so
#               namespace and interface names built from it never collide
#               (interface names must stay within 15 characters).

set -u

T_N=0
T_FAILED=0
T_CLEANUP=""

t_init() {
	if [ "$(id -u)" -ne 0 ]; then
		echo "1..0 # SKIP integration tests need root"
		exit 0
	fi
	T_TAG=${T_TAG:-$(basename "$0" .sh | sed 's/^test_//' | tr -cd 'a-z0-9' | cut -c1-4)}
	T_ID="${T_TAG}$$"
	# traps first: a signal right after mktemp must not leave T_DIR
	trap 't_run_cleanup' EXIT
	trap 't_run_cleanup; exit 130' INT TERM
	T_DIR=$(mktemp -d "/tmp/egt-${T_ID}.XXXXXX")
	# EGT_KEEP=1 keeps the logs of a run for debugging (namespaces and
	# processes are removed all the same)
	[ -n "${EGT_KEEP:-}" ] || t_cleanup_push "rm -rf '$T_DIR'"
	[ -z "${EGT_KEEP:-}" ] || echo "# keeping $T_DIR"
}

# Registers a command to run at exit; commands run last-in first-out.
t_cleanup_push() {
	T_CLEANUP="$1
$T_CLEANUP"
}

t_run_cleanup() {
	trap - EXIT INT TERM
	printf '%s\n' "$T_CLEANUP" | while IFS= read -r c; do
		[ -n "$c" ] && eval "$c" >/dev/null 2>&1
	done
	T_CLEANUP=""
}

t_ok() {
	# t_ok CONDITION_EXIT_STATUS "description"
	T_N=$((T_N + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $T_N - $2"
	else
		echo "not ok $T_N - $2"
		T_FAILED=$((T_FAILED + 1))
	fi
}

# t_check "description" command args...: runs the command, ok when it exits 0.
t_check() {
	_d=$1
	shift
	if "$@"; then t_ok 0 "$_d"; else t_ok 1 "$_d"; fi
}

# t_not CMD...: succeeds when CMD fails (for t_check with functions).
t_not() {
	! "$@"
}

# t_is GOT WANT "description"
t_is() {
	if [ "$1" = "$2" ]; then
		t_ok 0 "$3"
	else
		t_ok 1 "$3"
		echo "# got:  $1"
		echo "# want: $2"
	fi
}

t_diag() {
	printf '%s\n' "$@" | sed 's/^/# /'
}

t_done() {
	echo "1..$T_N"
	[ "$T_FAILED" -eq 0 ]
}

# t_netns NAME: creates a network namespace with lo up, removed at exit.
t_netns() {
	ip netns add "$1"
	t_cleanup_push "ip netns del '$1'"
	ip -n "$1" link set lo up
}

# t_bg NAME CMD...: starts CMD in the background with its output in
# $T_DIR/NAME.log; it is killed at exit. Sets T_PID.
t_bg() {
	_name=$1
	shift
	"$@" >"$T_DIR/$_name.log" 2>&1 &
	T_PID=$!
	t_cleanup_push "kill $T_PID; wait $T_PID"
}

# t_wait_listen NS PROTO ADDR PORT [TRIES]: polls until something listens on
# ADDR:PORT (PROTO tcp or udp) inside namespace NS ("" for the current one).
t_wait_listen() {
	_ns=$1 _proto=$2 _addr=$3 _port=$4 _tries=${5:-500}
	_flag=-ltnH
	[ "$_proto" = udp ] && _flag=-lunH
	case $_addr in *:*) _pat="\[$_addr\]:$_port" ;; *) _pat="$_addr:$_port" ;; esac
	while [ "$_tries" -gt 0 ]; do
		if [ -n "$_ns" ]; then
			ip netns exec "$_ns" ss $_flag 2>/dev/null
		else
			ss $_flag 2>/dev/null
		fi | awk '{print $4}' | grep -qx "$_pat" && return 0
		_tries=$((_tries - 1))
		# A short yield between polls, not a readiness guess.
		sleep 0.01
	done
	echo "# timeout waiting for $_proto $_addr:$_port in ns '${_ns}'" >&2
	return 1
}

# t_wait_grep FILE PATTERN [TRIES]: polls until FILE contains PATTERN.
t_wait_grep() {
	_f=$1 _p=$2 _tries=${3:-500}
	while [ "$_tries" -gt 0 ]; do
		grep -q -- "$_p" "$_f" 2>/dev/null && return 0
		_tries=$((_tries - 1))
		sleep 0.01
	done
	echo "# timeout waiting for '$_p' in $_f" >&2
	return 1
}
