#!/bin/sh
test_description='fp-serve: slow or many clients never lock out a normal one (a head deadline a trickle cannot reset, bounded waiting connections)'
. "$(dirname "$0")/test-lib.sh"
test_tags slow
. "$TOP/tests/lib-serve.sh"

LOAD=$TOP/${FP_BUILD:-build}/tests/http-load
test -x "$LOAD" || { echo "1..0 # SKIP $LOAD not built (make all)"; exit 0; }
F=multiproc.perf.gz
mkdir prof && cp "$EXAMPLES/$F" prof/ &&
start_server prof || exit 1

test_expect_success '40 connections trickling a header line every 0.5 s do not lock out 8 normal clients' '
	"$LOAD" "$PORT" /profile/ 40 8 4 500 >load.out &&
	cat load.out &&
	grep -q "failures=0 " load.out
'

test_expect_success 'more trickling connections than may wait (600 > 512): the oldest are dropped, normal clients served' '
	"$LOAD" "$PORT" "/heatmap/?filename=$F" 600 4 4 500 >load.out &&
	cat load.out &&
	grep -q "failures=0 " load.out &&
	sed -n "s/.*slow_reconnects=\([0-9]*\).*/\1/p" load.out >reconnects &&
	test "$(cat reconnects)" -gt 0
'

test_expect_success 'a head still incomplete after 10 s gets a JSON 408 and is closed, however it trickles' '
	perl -MIO::Socket::INET -e "
		my \$s = IO::Socket::INET->new(PeerAddr => q(127.0.0.1:$PORT)) or exit 2;
		\$s->autoflush(1);
		print \$s qq(GET /profile/ HTTP/1.1\r\nHost: 127.0.0.1\r\n);
		my \$t0 = time;
		my \$answer = q();
		\$SIG{PIPE} = q(IGNORE);
		while (time - \$t0 < 20) {
			print \$s qq(X-Trickle: 1\r\n);
			my \$rin = q(); vec(\$rin, fileno(\$s), 1) = 1;
			if (select(\$rin, undef, undef, 0.5)) {
				my \$n = sysread(\$s, my \$buf, 4096);
				last if !\$n;
				\$answer .= \$buf;
			}
		}
		print \$answer;
		printf qq(\nelapsed=%d\n), time - \$t0;
	" >probe.out &&
	cat probe.out &&
	grep -q "^HTTP/1.1 408 " probe.out &&
	grep -q "Content-Type: application/json" probe.out &&
	grep -q "{\"error\":\"request head not complete within the deadline\"}" probe.out &&
	elapsed=$(sed -n "s/^elapsed=//p" probe.out) &&
	test "$elapsed" -ge 9 && test "$elapsed" -le 15
'

test_expect_success 'normal requests still work one after the other (every answer closes its connection)' '
	test "$(get /profile/)" = 200 &&
	curl -sS -D headers -o body "$URL/profile/" &&
	grep -qi "^Connection: close" headers
'

test_done
