# shellcheck shell=sh
# tests/lib-serve.sh: start and query a real fp-serve (sourced by t70*.sh
# after test-lib.sh).
#
#	start_server DIR [fp-serve options]   sets $URL, $PORT, $serve_pid (as root:
#	                                       --user root unless told otherwise)
#	register_pid PID                       kill PID at exit
#	get PATH                               body in ./body, prints status
#	post PATH [curl options]               same, POST
#	json_error_ok STATUS                   body is {"error":"..."} and STATUS is 4xx
#	tree_total                             the samples of the /flamegraph/ tree in ./body
#	                                       (jq's streaming parser: a real capture's tree
#	                                       can be deeper than jq's nesting limit)
# The server listens on a free port (--listen 127.0.0.1:0) and is killed by
# an EXIT trap, so a failing test never leaves it behind.
# (test_when_finished cannot do it: its cleanup runs outside the body's
# subshell.)

command -v curl >/dev/null 2>&1 || { echo "1..0 # SKIP curl not installed"; exit 0; }
command -v jq >/dev/null 2>&1 || { echo "1..0 # SKIP jq not installed"; exit 0; }

# Test bodies run in subshells: servers started there are remembered in a
# file (outside $TRASH, which test_done removes) that the EXIT trap reads.
SERVE_PIDS=${TMPDIR:-/tmp}/fp-serve-pids.$$
: >"$SERVE_PIDS"
register_pid() { echo "$1" >>"$SERVE_PIDS"; }
stop_servers() {
	while read -r _p; do kill "$_p" 2>/dev/null; done <"$SERVE_PIDS"
	rm -f "$SERVE_PIDS"
}
trap stop_servers EXIT

start_server() { # DIR [options]
	_d=$1
	shift
	rm -f serve.out
	# as root, fp-serve serves as nobody unless told (docs/web.md,
	# "Privilege"): the tests of other behaviour keep the tester's user,
	# so a checkout nobody cannot reach still runs them; tests of the
	# privilege rules pass --user themselves
	# (serve_default_user=1: start it as it is, to test that default)
	case " $* " in
	*" --user "*) ;;
	*) [ "$(id -u)" != 0 ] || [ -n "${serve_default_user:-}" ] || set -- --user root "$@" ;;
	esac
	fp-serve --dir "$_d" --listen 127.0.0.1:0 "$@" >serve.out 2>>serve.err &
	serve_pid=$!
	register_pid $serve_pid
	wait_for 'grep -qs "listening on" serve.out' 100 || { cat serve.err >&2; return 1; }
	PORT=$(sed -n 's|.*http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' serve.out)
	URL=http://127.0.0.1:$PORT
}

# --globoff: [ ] { } stay literal; --path-as-is: ../ is sent, not resolved
get() {
	curl -sS --globoff --path-as-is --max-time 20 -o body -w '%{http_code}' "$URL$1"
}
post() {
	_p=$1
	shift
	curl -sS --globoff --path-as-is --max-time 20 -o body -w '%{http_code}' -X POST "$@" "$URL$_p"
}
tree_total() {
	jq -n --stream "[inputs | select(length == 2 and .[0][-1] == \"v\") | .[1]] | add // 0" body
}
json_error_ok() { # STATUS
	case $1 in 4??) ;; *) echo "status $1 is not 4xx" >&2; return 1 ;; esac
	jq -e '.error | type == "string" and length > 0' body >/dev/null || {
		echo "not a JSON error body:" >&2; head -c 300 body >&2; return 1; }
}
