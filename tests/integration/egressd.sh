# SPDX-License-Identifier: ISC
# Helpers for tests that run egressd itself (sourced after lib.sh and
# world.sh): a sandbox namespace made by netns-scripts/egressd-netns, egressd
# in the world's proxy namespace serving it (--netns), and clients run inside
# the sandbox. Owns starting and stopping those; the assertions are the
# tests'.
#
#   sandbox ns $SBX            proxy ns $PROXY_NS            world ns
#   (lo + fence only)          egressd --netns $SBX  ----->  origins, DNS
#   curl/git/pip  --127.0.0.1:3128 / redirect-->  listeners placed inside $SBX
#
# Functions
#   egd_sandbox             create $SBX (egressd-netns up), removed at exit
#   egd_start ARGS...       start egressd with ARGS (e.g. -p POLICY) plus
#                           --netns, --dns, --trust-range, --log-json; waits
#                           until its listeners answer; sets EGD_PID, EGD_LOG
#                           (stderr), EGD_JSON (decision log)
#   egd_stop                SIGTERM egressd and wait for it; a TAP check
#                           that it exited 0 (EGD_NO_EXIT_CHECK=1: none)
#   egd_run CMD...          run CMD in the sandbox (proxy variables set)
#   egd_run_transparent CMD...  the same without proxy variables
#   egd_json_has PATTERN    exit 0 when a decision line matches PATTERN
#                           (grep -E over the JSON lines)
#   egd_policy FILE <<EOF   write a policy file into $T_DIR

EGD_ROOT=$(cd "$(dirname "$0")/../.." && pwd)
EGD_BIN=${EGRESSD_BUILD:-$EGD_ROOT/build}/egressd
EGD_NETNS=$EGD_ROOT/netns-scripts/egressd-netns
EGD_PID=""

egd_sandbox() {
	SBX="egs$T_ID"
	t_cleanup_push "sh '$EGD_NETNS' down '$SBX'"
	sh "$EGD_NETNS" up "$SBX" >"$T_DIR/netns-up.log" 2>&1 || {
		cat "$T_DIR/netns-up.log" >&2
		return 1
	}
}

egd_start() {
	_trust=""
	for _n in $WORLD_PUBLIC_NETS; do
		_trust="$_trust --trust-range $_n"
	done
	# one log pair per start, so that earlier runs stay readable
	EGD_RUN=$((${EGD_RUN:-0} + 1))
	EGD_LOG=$T_DIR/egressd-$EGD_RUN.log
	EGD_JSON=$T_DIR/decisions-$EGD_RUN.jsonl
	: >"$EGD_JSON"
	# shellcheck disable=SC2086 # word splitting of _trust is meant
	t_bg "egressd-$EGD_RUN" ip netns exec "$PROXY_NS" "$EGD_BIN" \
	    --netns "$SBX" --dns "$WORLD_DNS" $_trust --log-json "$EGD_JSON" \
	    --control "$T_DIR/control.sock" --ca-dir "$T_DIR/ca" \
	    --upstream-ca "$WORLD_CA_FILE" "$@"
	EGD_CONTROL=$T_DIR/control.sock
	EGD_CA_BUNDLE=$T_DIR/ca/bundle.pem
	EGD_PID=$T_PID
	# "ready" is logged after every listener is open
	if ! t_wait_grep "$EGD_LOG" "egressd: ready" 1000; then
		sed 's/^/# egressd: /' "$EGD_LOG" >&2
		return 1
	fi
}

egd_stop() {
	[ -n "$EGD_PID" ] || return 0
	kill -TERM "$EGD_PID" 2>/dev/null
	wait "$EGD_PID" 2>/dev/null
	EGD_STATUS=$?
	EGD_PID=""
	# every run must end cleanly: drained, exit 0, and under ASan/UBSan
	# no report (a leak or error makes the status non-zero)
	[ -n "${EGD_NO_EXIT_CHECK:-}" ] && return 0
	t_is "$EGD_STATUS" 0 "egressd run $EGD_RUN exits 0 after SIGTERM"
	[ "$EGD_STATUS" -eq 0 ] || tail -40 "$EGD_LOG" | sed 's/^/# /' >&2
	return 0
}

# The client environment of world_run, inside the sandbox through
# egressd-netns run (which checks the fence and sets the proxy variables).
egd__run() {
	_mode=$1
	shift
	env -u SSL_CERT_FILE -u SSL_CERT_DIR -u CURL_CA_BUNDLE \
	    -u REQUESTS_CA_BUNDLE -u GIT_SSL_CAINFO -u PIP_CERT \
	    -u PIP_INDEX_URL -u PIP_EXTRA_INDEX_URL -u PIP_FIND_LINKS \
	    -u PIP_DEFAULT_TIMEOUT \
	    sh "$EGD_NETNS" run "$SBX" $_mode \
	    --env HOME="$WORLD_DIR/home" \
	    --env XDG_CONFIG_HOME="$WORLD_DIR/home/.config" \
	    --env XDG_CACHE_HOME="$WORLD_DIR/home/.cache" \
	    --env GIT_CONFIG_NOSYSTEM=1 \
	    --env GIT_CONFIG_GLOBAL="$WORLD_DIR/home/.gitconfig" \
	    --env GIT_TERMINAL_PROMPT=0 --env GIT_ASKPASS=/bin/false \
	    --env PIP_CONFIG_FILE=/dev/null --env PIP_NO_INPUT=1 \
	    --env PIP_DISABLE_PIP_VERSION_CHECK=1 --env PYTHONNOUSERSITE=1 \
	    -- "$@"
}

egd_run() {
	egd__run "" "$@"
}

egd_run_transparent() {
	egd__run --no-proxy-env "$@"
}

egd_json_has() {
	grep -Eq -- "$1" "$EGD_JSON"
}

egd_policy() {
	cat >"$T_DIR/$1"
	EGD_POLICY=$T_DIR/$1
}
