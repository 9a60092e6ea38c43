#!/bin/sh
# SPDX-License-Identifier: ISC
# Runs every integration test (tests/integration/test_*.sh) under prove, each
# bounded by a timeout. Usage: run.sh BUILD_DIR [TEST...]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
EGRESSD_BUILD=$(cd "${1:-build}" && pwd)
export EGRESSD_BUILD
shift || true
if [ "$(id -u)" -ne 0 ]; then
	echo "integration: skipped (needs root)"
	exit 0
fi
if [ $# -eq 0 ]; then
	set -- "$here"/test_*.sh
fi
[ -e "$1" ] || { echo "integration: no tests"; exit 0; }
exec prove -f --timer -e "timeout -k 5 ${EGRESSD_TEST_TIMEOUT:-300} sh" "$@"
