#!/bin/sh
test_description='fp-serve on loopback: a Host header that is not exactly a loopback name and port, or no Host at all, gets a JSON 403 (DNS rebinding)'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-serve.sh"

command -v perl >/dev/null 2>&1 || { echo "1..0 # SKIP perl not installed"; exit 0; }
mkdir prof && cp "$EXAMPLES/demo-clockloop.perf.gz" prof/ &&
start_server prof || exit 1

host_status() { # HOST: the status of GET /profile/ with that Host header
	curl -sS -o body -w '%{http_code}' -H "Host: $1" "$URL/profile/"
}

test_expect_success 'Host 127.0.0.1:PORT@evil.com and other authorities that only begin with a loopback name: 403 JSON' '
	for h in "127.0.0.1:$PORT@evil.com" "127.0.0.1@evil.com" "localhost:$PORT/evil.com" \
		"127.0.0.1:$PORT:80" "127.0.0.1:" "127.0.0.1:${PORT}x" "localhost:999999" \
		"127.0.0.1.evil.com" "[::1]evil.com" "localhost evil.com"; do
		code=$(host_status "$h") && echo "$h -> $code" &&
		test "$code" = 403 && json_error_ok 403 &&
		jq -e ".error | test(\"not a loopback name\")" body || return 1
	done
'

test_expect_success 'no Host header at all (HTTP/1.0 and HTTP/1.1): 403 JSON' '
	for v in 1.0 1.1; do
		perl -MIO::Socket::INET -e "
			my \$s = IO::Socket::INET->new(PeerAddr => q(127.0.0.1:$PORT)) or die;
			print \$s qq(GET /profile/ HTTP/$v\r\nConnection: close\r\n\r\n);
			local \$/; print <\$s>;" >resp &&
		head -n 1 resp | grep -q "^HTTP/1.[01] 403 " &&
		sed "1,/^\r\$/d" resp | jq -e ".error | test(\"no Host header\")" || return 1
	done
'

test_expect_success 'the loopback names with or without a port are accepted' '
	for h in "127.0.0.1:$PORT" 127.0.0.1 "localhost:$PORT" LOCALHOST "[::1]:$PORT" "[::1]"; do
		code=$(host_status "$h") && echo "$h -> $code" && test "$code" = 200 || return 1
	done
'

test_done
