#!/bin/sh
# SPDX-License-Identifier: ISC
# Golden tests for the policy checker: every policy file (tests/golden/cases,
# the shipped examples and the default) is checked with `egressd -t` against
# the fixture root, and the output is diffed with tests/golden/expected/.
# Also: the JSON form parses, and a normalized valid policy re-checks to the
# same normalized form. `make golden-update` rewrites the expectations.
# Usage: run.sh EGRESSD [--update]
set -u
egressd=$1
update=${2:-}
here=tests/golden
root=$here/root
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
failed=0

ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }

for f in $here/cases/*.yaml policies/examples/*.yaml policies/default.yaml; do
	name=$(basename "$f" .yaml)
	case $f in policies/examples/*) name="example-$name" ;; esac
	case $f in policies/default.yaml) name="default" ;; esac
	exp=$here/expected/$name.out
	"$egressd" -t -p "$f" --root "$root" >"$tmp/out" 2>&1
	status=$?
	echo "exit: $status" >>"$tmp/out"
	if [ "$update" = --update ]; then
		cp "$tmp/out" "$exp"
	fi
	if diff -u "$exp" "$tmp/out" >"$tmp/diff" 2>&1; then
		ok "$name: checker output matches"
	else
		notok "$name: checker output differs from $exp"
		sed 's/^/# /' "$tmp/diff"
	fi
	case $name in
	invalid-*) [ $status -eq 1 ] && ok "$name: exit 1" || notok "$name: exit $status, want 1" ;;
	*) [ $status -eq 0 ] && ok "$name: exit 0" || notok "$name: exit $status, want 0" ;;
	esac
	if "$egressd" -t --json -p "$f" --root "$root" | python3 -c 'import json,sys; d=json.load(sys.stdin); sys.exit(0 if d["valid"] == (sys.argv[1] == "0") else 1)' "$status"; then
		ok "$name: JSON output parses and agrees"
	else
		notok "$name: JSON output broken or disagrees"
	fi
	if [ $status -eq 0 ]; then
		# normalize twice: the second pass must change nothing
		sed -n '/^# normalized policy$/,/^# effective/p' "$tmp/out" | sed '1d;$d' >"$tmp/n1.yaml"
		"$egressd" -t -p "$tmp/n1.yaml" --root "$root" |
			sed -n '/^# normalized policy$/,/^# effective/p' | sed '1d;$d' >"$tmp/n2.yaml"
		if cmp -s "$tmp/n1.yaml" "$tmp/n2.yaml"; then
			ok "$name: normalized form is stable"
		else
			notok "$name: normalized form changes when re-checked"
			diff -u "$tmp/n1.yaml" "$tmp/n2.yaml" | sed 's/^/# /'
		fi
	fi
done
# The reason-code table in docs/policy.md lists every code the binary knows.
missing=""
for code in $("$egressd" --list-reasons | awk '{print $1}'); do
	grep -q "^| \`$code\` |" docs/policy.md || missing="$missing $code"
done
if [ -z "$missing" ]; then
	ok "docs/policy.md documents every reason code"
else
	notok "docs/policy.md lacks reason codes:$missing"
fi
echo "1..$n"
[ $failed -eq 0 ]
