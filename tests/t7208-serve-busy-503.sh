#!/bin/sh
test_description='fp-serve: with every server slot taken (256 connections being served), a new client gets a JSON 503 at once, and is served again when slots free up'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-serve.sh"

command -v perl >/dev/null 2>&1 || { echo "1..0 # SKIP perl not installed"; exit 0; }
mkdir prof &&
start_server prof || exit 1

test_expect_success '256 uploads whose body has not started hold every slot: 503 JSON, then 200 once they close' '
	mkfifo go || return 1
	perl -MIO::Socket::INET -e "
		\$| = 1;
		my @s;
		for (1 .. 256) {
			my \$s = IO::Socket::INET->new(PeerAddr => q(127.0.0.1:$PORT)) or die qq(connect: \$!);
			print \$s qq(POST /upload?filename=hold.perf HTTP/1.1\r\nHost: 127.0.0.1\r\n) .
				qq(Content-Type: application/octet-stream\r\nContent-Length: 1000000\r\n\r\n);
			push @s, \$s;
		}
		print qq(open\n);
		open(my \$go, q(<), q(go)); <\$go>;	# hold them until told
		close \$_ for @s;
	" >holder.out &
	holder=$!
	wait_for "grep -q open holder.out" 100 &&
	sleep 1 &&
	code=$(get /profile/) &&
	test "$code" = 503 && jq -e ".error | test(\"too many connections\")" body &&
	echo go >go &&
	wait $holder &&
	wait_for "test \$(get /profile/) = 200" 100
'

test_done
