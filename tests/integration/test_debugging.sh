#!/bin/sh
# SPDX-License-Identifier: ISC
# Debugging denied connections with egressctl against a running egressd:
# the audit -> propose -> enforce round trip with the engineer example
# policy (the traffic a pilot observed passes once the proposal is merged,
# other traffic is still denied), plus status, tail, explain (the daemon's
# own policy) and reload through egressctl.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/world.sh"
. "$(dirname "$0")/egressd.sh"

t_init
world_up || { echo "Bail out! world_up failed"; exit 1; }
egd_sandbox || { echo "Bail out! sandbox"; exit 1; }

PY=/usr/bin/python3
PYREAL=$(readlink -f $PY)
CTL="${EGRESSD_BUILD:-$EGD_ROOT/build}/egressctl"
ENGINEER=$EGD_ROOT/policies/examples/engineer.yaml
ctl() { EGRESSD_CONTROL=$EGD_CONTROL "$CTL" "$@"; }
run() { egd__run "--no-proxy-env --ca-bundle $EGD_CA_BUNDLE" "$@"; }

# The pilot's traffic: what the engineer policy does not cover (pip runs as
# python3.11 here, not python3.12; curl to example.com and to pypi.org; raw
# TCP to github.com:22) next to what it does (git and curl to github.com).
pilot() {
	run git ls-remote "$WORLD_GIT_URL" >/dev/null 2>&1 && echo git-ok
	run $PY -m pip download --no-deps --no-cache-dir \
	    --index-url "$WORLD_PYPI_INDEX" -d "$T_DIR/w$1" egressd-probe \
	    >/dev/null 2>&1 && echo pip-ok
	[ "$(run curl -s -o /dev/null -w '%{http_code}' https://example.com/)" = 200 ] &&
		echo curl-ok
	run socat -T 5 - TCP:github.com:22 </dev/null 2>/dev/null | grep -q SSH &&
		echo ssh-ok
}

egd_start -p "$ENGINEER" --audit-all || { echo "Bail out! egressd"; exit 1; }
t_is "$(pilot 1 | tr '\n' ' ')" "git-ok pip-ok curl-ok ssh-ok " \
	"audit mode: the pilot's traffic all passes"
out=$(ctl denials --json)
t_check "egressctl denials lists the would-be denials from the daemon" \
	sh -c 'printf "%s" "$1" | '"$PY"' -c "import json,sys; d=json.load(sys.stdin); r={(x[\"binary\"],x[\"host\"],x[\"reason\"]) for x in d}; assert (\"'"$PYREAL"'\",\"pypi.org\",\"binary_not_allowed\") in r and (\"/usr/bin/curl\",\"example.com\",\"no_matching_policy\") in r, r"' _ "$out"
ctl propose --merge "$ENGINEER" >"$T_DIR/merged.yaml" 2>"$T_DIR/propose.err"
t_ok $? "egressctl propose --merge writes a whole policy"
t_check "...that egressd -t accepts" sh -c '"$1" -t -p "$2" >/dev/null' _ "$EGD_BIN" "$T_DIR/merged.yaml"
t_check "...with the real interpreter path, never a symlink" \
	grep -q "path: \"$PYREAL\"" "$T_DIR/merged.yaml"
t_check "...and raw TCP proposed as protocol: tcp" grep -q "protocol: tcp" "$T_DIR/merged.yaml"
egd_stop

egd_start -p "$T_DIR/merged.yaml" --enforce-all || { echo "Bail out! egressd"; exit 1; }
t_is "$(pilot 2 | tr '\n' ' ')" "git-ok pip-ok curl-ok ssh-ok " \
	"merged policy, enforce: the same traffic passes"
t_is "$(run curl -s -o /dev/null -w '%{http_code}' https://evil.example/)" 000 \
	"...and traffic outside it is still denied"

# --- the live commands ---------------------------------------------------------
out=$(ctl status --json)
t_check "egressctl status: generation, override and listeners" \
	sh -c 'printf "%s" "$1" | '"$PY"' -c "import json,sys; d=json.load(sys.stdin); assert d[\"policy\"][\"generation\"]==1 and d[\"mode_override\"]==\"enforce\" and len(d[\"listeners\"])==7"' _ "$out"
ctl tail --denied >"$T_DIR/tail.out" 2>&1 &
tailpid=$!
# denials until the tail (connecting in the background) has shown one
i=0
until grep -q "evil.example" "$T_DIR/tail.out" || [ $i -ge 100 ]; do
	run curl -s -o /dev/null --resolve evil.example:443:198.18.0.66 \
	    https://evil.example/
	i=$((i + 1))
done
kill "$tailpid" 2>/dev/null
wait "$tailpid" 2>/dev/null
t_check "egressctl tail --denied shows a new denial as it happens" \
	grep -q "DENIED.*evil.example:443.*no_matching_policy" "$T_DIR/tail.out"
out=$(ctl explain --binary /usr/bin/curl --host evil.example --port 443)
t_check "egressctl explain asks the running daemon" \
	sh -c 'printf "%s" "$1" | grep -q "decision: denied" && printf "%s" "$1" | grep -q "no_matching_policy"' _ "$out"
cp "$T_DIR/merged.yaml" "$T_DIR/merged.bak"
printf 'network_policies: [\n' >"$T_DIR/merged.yaml"
out=$(ctl reload 2>&1)
t_ok $(( $? == 0 )) "egressctl reload of an invalid policy fails"
t_check "...printing file:line:col" \
	sh -c 'printf "%s" "$1" | grep -q "merged.yaml:2:1"' _ "$out"
cp "$T_DIR/merged.bak" "$T_DIR/merged.yaml"
out=$(ctl reload 2>&1)
t_ok $? "egressctl reload of a valid policy succeeds ($out)"

egd_stop
out=$(ctl status 2>&1)
t_is $? 2 "egressctl against a daemon that is not running: exit 2"
t_check "...with a clear message" \
	sh -c 'printf "%s" "$1" | grep -q "cannot reach egressd"' _ "$out"
t_done
