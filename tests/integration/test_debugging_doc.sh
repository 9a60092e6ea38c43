#!/bin/sh
# SPDX-License-Identifier: ISC
# docs/debugging.md shows real transcripts; this test replays them (the
# symlink and pip cases, the fix by reload, the other symptoms, the audit
# pilot) and checks that every output the page quotes is what egressd and
# egressctl print today. Volatile parts (pids, times, byte counts, commit
# hashes) are masked and this run's paths mapped to the ones the page uses
# (/etc/egressd/sandbox.yaml, sandbox "sbx", the default control socket).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/world.sh"
. "$(dirname "$0")/egressd.sh"

t_init
world_up || { echo "Bail out! world_up failed"; exit 1; }
egd_sandbox || { echo "Bail out! sandbox"; exit 1; }

DOC=$EGD_ROOT/docs/debugging.md
CTL="${EGRESSD_BUILD:-$EGD_ROOT/build}/egressctl"
P=$T_DIR/sandbox.yaml
O=$T_DIR/out
SHARED=$T_DIR/shared # HOME and download directories for uid nobody
mkdir -p "$O" "$SHARED" && chmod 755 "$T_DIR" && chmod 1777 "$SHARED"

ctl() { EGRESSD_CONTROL=$EGD_CONTROL "$CTL" "$@"; }
# as the page runs tools: uid nobody, the bundle egressd wrote
sbx() {
	env -u SSL_CERT_FILE -u SSL_CERT_DIR -u CURL_CA_BUNDLE \
	    -u REQUESTS_CA_BUNDLE -u GIT_SSL_CAINFO -u PIP_CERT \
	    -u PIP_INDEX_URL -u PIP_EXTRA_INDEX_URL -u PIP_FIND_LINKS \
	    sh "$EGD_NETNS" run "$SBX" --uid nobody "$@"
}
run() {
	sbx --ca-bundle "$EGD_CA_BUNDLE" --env HOME="$SHARED" \
	    --env PIP_CONFIG_FILE=/dev/null \
	    --env PIP_DISABLE_PIP_VERSION_CHECK=1 -- "$@"
}
pip_dl() {
	run /usr/bin/pip3 download --no-deps --no-cache-dir --retries 0 \
	    -d "$SHARED/$1" --index-url https://pypi.org/simple/ egressd-probe
}
grep_log() { grep -E "$2" "$1" >"$3"; }

cat >"$P" <<'EOF'
version: 1
network_policies:
  github:
    endpoints:
      - { host: github.com, port: 443 }
    binaries:
      - path: /usr/bin/git
      - path: /usr/lib/git-core/git-remote-https
  pypi:
    endpoints:
      - { host: pypi.org, port: 443 }
      - { host: files.pythonhosted.org, port: 443 }
    binaries:
      - path: /usr/bin/pip3
EOF
cp "$P" "$O/policy1.yaml"
"$EGD_BIN" -t -p "$P" >"$O/check.out" 2>&1

# --- the two cases, enforce -------------------------------------------------
egd_start -p "$P" || { echo "Bail out! egressd"; exit 1; }
run git ls-remote https://github.com/acme/widget.git >"$O/git1.out" 2>&1
pip_dl pipdl >"$O/pip1.out" 2>&1
grep_log "$EGD_LOG" 'git-remote-http\(' "$O/log-git.out"
grep_log "$EGD_LOG" 'python3.11\(' "$O/log-pip.out"
ctl denials >"$O/denials.out" 2>&1
ctl explain --binary /usr/lib/git-core/git-remote-http --host github.com \
    --port 443 >"$O/explain-git.out" 2>&1
ctl explain --binary /usr/bin/python3.11 --host pypi.org --port 443 \
    >"$O/explain-pip.out" 2>&1
ctl propose >"$O/propose.out" 2>&1

# --- the fix by hand --------------------------------------------------------
sed -i 's|/usr/lib/git-core/git-remote-https|/usr/lib/git-core/git-remote-http|; s|/usr/bin/pip3|/usr/bin/python3.11|' "$P"
ctl reload >"$O/reload.out" 2>&1
run git ls-remote https://github.com/acme/widget.git >"$O/git2.out" 2>&1
pip_dl pipdl2 >"$O/pip2.out" 2>&1
grep_log "$EGD_LOG" 'reloaded|ALLOWED|NET:CLOSE' "$O/log-fixed.out"

# --- other symptoms ---------------------------------------------------------
run curl -sS http://example.com/ >"$O/http-body.out" 2>&1
sbx --no-proxy-env -- curl -sS https://example.com/ >"$O/tr-name.out" 2>&1
sbx --no-proxy-env -- curl -sS https://198.18.0.66/ >"$O/tr-ip.out" 2>&1
grep_log "$EGD_LOG" 'DNS:QUERY.*example.com|198.18.0.66' "$O/log-tr.out"
egd_stop

# --- the pilot --------------------------------------------------------------
egd_start -p "$P" --audit-all || { echo "Bail out! egressd"; exit 1; }
PILOT=$EGD_JSON
run curl -sS -o /dev/null -w '%{http_code}\n' https://example.com/ \
    >"$O/audit-curl.out" 2>&1
run git ls-remote https://github.com/acme/widget.git >/dev/null 2>&1
run sh -c 'curl -sS -o /dev/null https://objects.githubusercontent.com/; curl -sS -o /dev/null https://api.github.com/' >/dev/null 2>&1
grep_log "$EGD_LOG" 'WOULD_DENY' "$O/log-audit.out"
ctl propose --merge "$P" >"$O/merged.yaml" 2>&1
egd_stop
"$CTL" denials --log "$PILOT" >"$O/denials-file.out" 2>&1
"$EGD_BIN" -t -p "$O/merged.yaml" 2>&1 | tail -9 >"$O/check-merged.out"

# --- every quoted output is on the page ---------------------------------------
check_quoted() {
	"$WORLD_PY" - "$DOC" "$1" <<'EOF'
import os
import re
import sys
doc_path, out_path = sys.argv[1], sys.argv[2]
def norm(text):
    for src, dst in MAP:
        if src:
            text = text.replace(src, dst)
    text = re.sub(r"\(\d+\) ->", "(PID) ->", text)
    text = re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", "TIME", text)
    text = re.sub(r"up=\S+ down=\S+ [\d.]+s", "up=B down=B Ts", text)
    text = re.sub(r"\b[0-9a-f]{40}\b", "HASH", text)
    return "\n".join(l.strip() for l in text.splitlines())
MAP = [(os.environ["MAP_PILOT"], "/var/log/egressd-pilot.jsonl"),
       (os.environ["MAP_MERGED"], "/etc/egressd/sandbox.new.yaml"),
       (os.environ["MAP_POLICY"], "/etc/egressd/sandbox.yaml"),
       (os.environ["MAP_CONTROL"], "/run/egressd/control.sock"),
       (os.environ["MAP_SHARED"] + "/", "/tmp/"),
       (os.environ["MAP_CA"], "/run/egressd-ca/sbx"),
       (os.environ["MAP_SBX"], "sbx")]
doc = norm(open(doc_path).read())
out = norm(open(out_path).read()).strip("\n")
if out and out in doc:
    sys.exit(0)
print("# not on the page as printed now:")
for l in out.splitlines():
    print("#   " + l)
sys.exit(1)
EOF
}
export MAP_PILOT="$PILOT" MAP_MERGED="$O/merged.yaml" MAP_POLICY="$P" \
    MAP_CONTROL="$EGD_CONTROL" MAP_SHARED="$SHARED" MAP_CA="$T_DIR/ca" \
    MAP_SBX="$SBX"
for f in policy1.yaml check.out git1.out pip1.out log-git.out log-pip.out \
    denials.out explain-git.out explain-pip.out propose.out reload.out \
    git2.out pip2.out log-fixed.out http-body.out tr-name.out tr-ip.out \
    log-tr.out audit-curl.out log-audit.out denials-file.out merged.yaml \
    check-merged.out; do
	t_check "docs/debugging.md quotes $f as printed today" \
	    check_quoted "$O/$f"
done
t_done
