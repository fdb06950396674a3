#!/bin/sh
test_description='fp-serve: 414 (request line too long) and 431 (headers too large) have JSON bodies like every other error, never HTML'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-serve.sh"

mkdir prof &&
start_server prof || exit 1

# a string of N letters a
letters() { head -c "$1" /dev/zero | tr "\0" a; }

test_expect_success 'a 40 KB URL: 414 with a JSON error body' '
	code=$(curl -sS -D headers -o body -w "%{http_code}" "$URL/heatmap/?filename=x&include=$(letters 40000)") &&
	test "$code" = 414 && json_error_ok "$code" &&
	grep -qi "^Content-Type: application/json" headers &&
	! grep -qi "<html" body
'

test_expect_success 'a 40 KB header: 431 with a JSON error body' '
	code=$(curl -sS -D headers -o body -w "%{http_code}" -H "X-Big: $(letters 40000)" "$URL/profile/") &&
	test "$code" = 431 && json_error_ok "$code" &&
	grep -qi "^Content-Type: application/json" headers &&
	! grep -qi "<html" body
'

test_expect_success 'many headers that add up to too much: 431 JSON too' '
	hdrs=$(for i in $(seq 1 400); do printf " -H X-H$i:$(letters 100)"; done) &&
	code=$(eval curl -sS -o body -w "%{http_code}" $hdrs "$URL/profile/") &&
	test "$code" = 431 && json_error_ok "$code"
'

test_expect_success 'long but acceptable requests are still served (a 12 KB URL, 8 KB of headers)' '
	code=$(curl -sS -o body -w "%{http_code}" -H "X-Ok: $(letters 8000)" "$URL/profile/") &&
	test "$code" = 200 &&
	code=$(curl -sS -o body -w "%{http_code}" "$URL/heatmap/?filename=x&other=$(letters 12000)") &&
	test "$code" = 404 && json_error_ok "$code"
'

test_done
