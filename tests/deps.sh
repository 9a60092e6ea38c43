#!/bin/sh
# SPDX-License-Identifier: ISC
# Installs everything egressd needs to build and to run its whole test suite
# on Debian 12, with apt-get. Idempotent: does nothing when all is present.
set -eu

PKGS="build-essential pkg-config clang libclang-rt-14-dev
libevent-dev libssl-dev libyaml-dev libnl-3-dev libnl-idiag-3-dev
iproute2 nftables procps psmisc kmod
curl git openssl python3 python3-pip python3-venv
nginx fcgiwrap dnsmasq-base socat
clang-format"

if [ "$(id -u)" -ne 0 ]; then
	echo "deps: must run as root (apt-get installs packages)" >&2
	exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
	echo "deps: apt-get not found: this script targets Debian 12" >&2
	exit 1
fi

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f '${Status}' "$p" 2>/dev/null |
	    grep -q 'install ok installed'; then
		missing="$missing $p"
	fi
done
if [ -z "$missing" ]; then
	echo "deps: all present"
	exit 0
fi
echo "deps: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
echo "deps: done"
