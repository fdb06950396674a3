# shellcheck shell=sh
# lib-push.sh: the strict Pyroscope receiver (tests/tools/ingest-receiver.mjs)
# for the push tests (t7301, t7305). Sourced after test-lib.sh.
RECEIVER=$TOP/tests/tools/ingest-receiver.mjs
NODEJS_PUSH=$TOP/tests/tools/pyroscope-nodejs-push.mjs

if ! command -v node >/dev/null 2>&1; then
	test_skip 'push' 'node is not installed (the test receiver)'
	test_done
fi
# the receiver decodes pprof bodies with pprof-format (tools/install-deps.sh)
have_pprof_format() { test -d "$TOP/tests/pyroscope/node_modules/pprof-format"; }
have_pyroscope_nodejs() { test -d "$TOP/tests/pyroscope/node_modules/@pyroscope/nodejs"; }

# receiver LOG [options]: starts it on 127.0.0.1, sets $URL and $rpid
receiver() {
	log=$1; shift
	rm -f port "$log"
	node "$RECEIVER" "$log" --port-file port "$@" &
	rpid=$!
	echo "$rpid" >>"$RECV_PIDS"
	wait_for "test -s port" 100 || return 1
	URL=http://127.0.0.1:$(cat port)
}
stop_receiver() { kill "$rpid" 2>/dev/null; wait "$rpid" 2>/dev/null; :; }
# receivers started in test bodies (subshells) are killed at exit
RECV_PIDS=${TMPDIR:-/tmp}/fp-push-receivers.$$
: >"$RECV_PIDS"
trap 'while read -r p; do kill "$p" 2>/dev/null; done <"$RECV_PIDS"; rm -f "$RECV_PIDS"' EXIT
# logq LOG EXPR: EXPR over the log's records L (jq-free, with node)
logq() { node -e "const L = require('fs').readFileSync('$1', 'utf8').trim().split('\n').filter(Boolean).map(JSON.parse); console.log($2)"; }
# pushstat KEY: the last `I push` record's KEY in ./out
pushstat() { grep "^I	push" out | tail -n 1 | tr "\t" "\n" | sed -n "s/^$1=//p"; }
