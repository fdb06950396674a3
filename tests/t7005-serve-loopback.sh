#!/bin/sh
test_description='fp-serve: loopback only by default; other addresses only when asked, with a warning'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-serve.sh"

# the host's first non-loopback IPv4 address
IP=$(ip -4 -o addr show scope global 2>/dev/null | awk '{ sub("/.*", "", $4); print $4; exit }')
[ -n "$IP" ] || IP=$(hostname -I 2>/dev/null | tr " " "\n" | grep -E "^[0-9.]+$" | grep -v "^127\." | head -n 1)
mkdir prof && cp "$EXAMPLES/multiproc.perf.gz" prof/

# start PORTSPEC: like start_server but with a given --listen
start() {
	rm -f serve.out serve.err
	fp-serve --dir prof --listen "$1" >serve.out 2>serve.err &
	serve_pid=$!
	register_pid $serve_pid
	wait_for 'grep -qs "listening on" serve.out' 100 &&
	PORT=$(sed -n "s|.*:\([0-9]*\)/\$|\1|p" serve.out)
}

if [ -z "$IP" ]; then
	test_skip 'not reachable on a non-loopback address by default' 'no non-loopback IPv4 address on this host'
else
	test_expect_success 'a bare port listens on 127.0.0.1 only: the host IP is refused' '
		start 0 &&
		grep -q "listening on http://127.0.0.1:$PORT/" serve.out &&
		! grep -q warning serve.err &&
		test "$(curl -sS -o /dev/null -w "%{http_code}" "http://127.0.0.1:$PORT/profile/")" = 200 &&
		test_must_fail curl -sS --max-time 5 -o /dev/null "http://$IP:$PORT/profile/"
	'

	test_expect_success 'flamepipe serve --http PORT is loopback only too' '
		rm -f fs.out &&
		{ flamepipe serve prof --http 0 >fs.out 2>fs.err & } &&
		register_pid $! &&
		wait_for "grep -qs \"listening on\" fs.out" 100 &&
		P=$(sed -n "s|.*:\([0-9]*\)/\$|\1|p" fs.out) &&
		grep -q "http://127.0.0.1:$P/" fs.out &&
		test "$(curl -sS -o /dev/null -w "%{http_code}" "http://127.0.0.1:$P/profile/")" = 200 &&
		test_must_fail curl -sS --max-time 5 -o /dev/null "http://$IP:$P/profile/"
	'

	test_expect_success 'an explicit 0.0.0.0 is reachable and prints a warning' '
		start 0.0.0.0:0 &&
		grep -q "warning: listening on 0.0.0.0:$PORT, not on loopback" serve.err &&
		test "$(curl -sS -o /dev/null -w "%{http_code}" "http://$IP:$PORT/profile/")" = 200
	'
fi

test_expect_success 'on loopback, a foreign Host header is refused (DNS rebinding)' '
	start 0 &&
	code=$(curl -sS -o body -w "%{http_code}" -H "Host: evil.example:$PORT" "http://127.0.0.1:$PORT/profile/") &&
	test "$code" = 403 && json_error_ok "$code" &&
	code=$(curl -sS -o body -w "%{http_code}" -H "Host: localhost:$PORT" "http://127.0.0.1:$PORT/profile/") &&
	test "$code" = 200
'

test_expect_success 'a port in use is a clear error, exit 111' '
	start 0 &&
	test_must_fail fp-serve --dir prof --listen "127.0.0.1:$PORT" 2>err &&
	grep -q "cannot listen on 127.0.0.1:$PORT" err
'

# exits CODE COMMAND...: COMMAND exits with CODE
exits() { _want=$1; shift; "$@" 2>err; _rc=$?; test "$_rc" = "$_want" || { echo "$* exited $_rc, not $_want" >&2; return 1; }; }

test_expect_success 'bad options are usage errors (exit 100), a missing DIR exit 111' '
	exits 100 fp-serve --dir prof --listen nope:99999 &&
	exits 100 fp-serve --dir prof --listen 127.0.0.1:70000 &&
	exits 100 fp-serve --dir prof --bogus &&
	exits 100 fp-serve --dir prof --max-upload lots &&
	exits 100 fp-serve --dir prof --control /tmp/x &&
	exits 111 fp-serve --dir does-not-exist --listen 0 &&
	grep -q "does-not-exist" err
'

test_done
