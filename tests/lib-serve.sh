# tests/lib-serve.sh: start and query a real fp-serve (sourced by t70*.sh
# after test-lib.sh).
#
#	start_server DIR [fp-serve options]   sets $URL, $serve_pid
#	get PATH                               body in ./body, prints status
#	post PATH [curl options]               same, POST
#	json_error_ok STATUS                   body is {"error":"..."} and STATUS is 4xx
# The server listens on a free port (--listen 127.0.0.1:0) and is killed by
# an EXIT trap, so a failing test never leaves it behind.

command -v curl >/dev/null 2>&1 || { echo "1..0 # SKIP curl not installed"; exit 0; }
command -v jq >/dev/null 2>&1 || { echo "1..0 # SKIP jq not installed"; exit 0; }

serve_pids=
stop_servers() {
	for p in $serve_pids; do kill "$p" 2>/dev/null; done
	for p in $serve_pids; do wait "$p" 2>/dev/null; done
	serve_pids=
}
trap stop_servers EXIT

start_server() { # DIR [options]
	_d=$1
	shift
	rm -f serve.out
	fp-serve --dir "$_d" --listen 127.0.0.1:0 "$@" >serve.out 2>>serve.err &
	serve_pid=$!
	serve_pids="$serve_pids $serve_pid"
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
json_error_ok() { # STATUS
	case $1 in 4??) ;; *) echo "status $1 is not 4xx" >&2; return 1 ;; esac
	jq -e '.error | type == "string" and length > 0' body >/dev/null || {
		echo "not a JSON error body:" >&2; head -c 300 body >&2; return 1; }
}
