# shellcheck shell=sh
# bench/env.sh: sourced first by the bench scripts. Sets $here (bench/),
# $root (the checkout) and puts FP_BIN (the binaries; default bin/, a
# relative path is taken from the checkout) first on PATH, exported.
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
FP_BIN=${FP_BIN:-$root/bin}
case $FP_BIN in /*) ;; *) FP_BIN=$root/$FP_BIN ;; esac
PATH=$FP_BIN:$PATH
export PATH

# serve_bench DIR OUT [ARG]...: fp-serve on DIR at a free loopback port,
# its stdout in OUT and its stderr beside it (.err); returns once it
# listens, its URL in $url and its pid in $srv (killed at exit). Started
# as root it keeps root (--user root): fp-serve would serve as nobody, and
# the bench's files (fp-record's are 0600) are its own. SERVE_STDIN=FILE:
# its standard input (a live stream's FIFO), else /dev/null.
serve_bench() {
	_dir=$1 _out=$2
	shift 2
	rm -f "$_out" # else a stale "listening on" of the last run may be read first
	_user=
	[ "$(id -u)" != 0 ] || _user="--user root"
	fp-serve --dir "$_dir" --listen 127.0.0.1:0 $_user "$@" <"${SERVE_STDIN:-/dev/null}" \
		>"$_out" 2>"${_out%.out}.err" &
	srv=$!
	trap 'kill $srv 2>/dev/null' EXIT
	_i=0
	while ! grep -qs "listening on" "$_out"; do
		_i=$((_i + 1))
		[ $_i -lt 100 ] || { echo "${0##*/}: fp-serve did not start" >&2; exit 111; }
		sleep 0.1
	done
	url=$(sed -n 's|.*listening on \(http://[^ ]*\)|\1|p' "$_out")
}

# build_http_load OUT: tests/helper/http-load.c, the loopback load client
build_http_load() {
	cc -O2 -Wall -Wextra -D_GNU_SOURCE -I"$root/lib" -o "$1" \
		"$root/tests/helper/http-load.c" "$root/lib/fp_error.c" -lpthread
}

# srv_cpu: fp-serve's ($srv) CPU seconds so far; cpu_sub A B: A - B.
srv_cpu() { awk '{ printf "%.2f", ($14 + $15) / 100 }' "/proc/$srv/stat"; }
cpu_sub() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a - b }'; }

# viewer_windows LOAD PORT PATH SECONDS VIEWERS: fp-serve ($srv) asked
# PATH once a second each, taking gzip, as a page does, by 1 client, then
# by VIEWERS, SECONDS each (LOAD: the built http-load); its CPU over each
# window from /proc. Prints v1_cpu_s v1_requests v1_p50_ms v1_p99_ms
# vn_cpu_s vn_requests vn_p50_ms vn_p99_ms viewers seconds exit, KEY=VALUE.
viewer_windows() {
	_rc=0
	_c1=$(srv_cpu)
	_v1=$(HTTP_LOAD_GZIP=1 HTTP_LOAD_EVERY_MS=1000 "$1" "$2" "$3" 0 1 "$4") || _rc=1
	_c2=$(srv_cpu)
	_vn=$(HTTP_LOAD_GZIP=1 HTTP_LOAD_EVERY_MS=1000 "$1" "$2" "$3" 0 "$5" "$4") || _rc=1
	_c3=$(srv_cpu)
	_f() { echo "$1" | sed -n "s/.*$2=\([0-9.]*\).*/\1/p"; }
	echo "v1_cpu_s=$(cpu_sub "$_c2" "$_c1")" \
		"v1_requests=$(_f "$_v1" requests) v1_p50_ms=$(_f "$_v1" p50_ms) v1_p99_ms=$(_f "$_v1" p99_ms)" \
		"vn_cpu_s=$(cpu_sub "$_c3" "$_c2") vn_requests=$(_f "$_vn" requests)" \
		"vn_p50_ms=$(_f "$_vn" p50_ms) vn_p99_ms=$(_f "$_vn" p99_ms) viewers=$5 seconds=$4 exit=$_rc"
}
