#!/bin/sh
# Installs the Debian packages flamepipe needs, only those that are missing.
# Run as root on Debian 12 (apt-get update runs first when anything is missing).
set -eu
pkgs="build-essential pkg-config libev-dev zlib1g-dev libdeflate-dev libpcre2-dev libmicrohttpd-dev libcmocka-dev
      libxml2-utils jq curl linux-perf bpftrace valgrind chromium clang libclang-rt-14-dev nodejs npm
      libprotobuf-c-dev protobuf-c-compiler golang-go libjansson-dev
      libcurl4-openssl-dev go-md2man groff-base man-db openssh-server openssh-client
      libdw-dev libelf-dev libiberty-dev libzstd-dev libxxhash-dev g++ shellcheck clang-format dpkg-dev fakeroot mmdebstrap libdebuginfod-dev debuginfod iproute2 libncurses-dev tmux util-linux strace"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
# perf may come from the image rather than linux-perf; the command is what counts.
if command -v perf >/dev/null 2>&1; then
	missing=$(echo "$missing" | sed 's/ linux-perf//')
fi
if command -v node >/dev/null 2>&1; then
	missing=$(echo "$missing" | sed 's/ nodejs//; s/ npm//')
fi
if [ -n "$(echo "$missing" | tr -d ' ')" ]; then
	echo "install-deps: installing:$missing"
	[ "$(id -u)" = 0 ] || { echo "install-deps: need root to install:$missing" >&2; exit 100; }
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
# playwright-core drives Debian's chromium in the browser tests; speedscope
# (its page and file-format schema) and ajv check the speedscope export.
if [ -f tests/browser/package.json ] && { [ ! -d tests/browser/node_modules/playwright-core ] ||
   [ ! -d tests/browser/node_modules/speedscope ] || [ ! -d tests/browser/node_modules/ajv ]; }; then
	(cd tests/browser && npm install --no-audit --no-fund --silent)
fi
# @pyroscope/nodejs (a real Pyroscope client, to compare requests with) and
# pprof-format (the push tests' receiver decodes pprof bodies with it).
if [ -f tests/pyroscope/package.json ] && { [ ! -d tests/pyroscope/node_modules/@pyroscope/nodejs ] ||
   [ ! -d tests/pyroscope/node_modules/pprof-format ]; }; then
	(cd tests/pyroscope && npm install --no-audit --no-fund --silent)
fi
exit 0
