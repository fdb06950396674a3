#!/bin/sh
test_description='fp-serve: an upload body that trickles (resetting the idle timeout) is cut off, nothing stored'
. "$(dirname "$0")/test-lib.sh"
test_tags slow
. "$TOP/tests/lib-serve.sh"

command -v perl >/dev/null 2>&1 || { echo "1..0 # SKIP perl not installed"; exit 0; }
F=multiproc.perf.gz
mkdir prof &&
start_server prof || exit 1

test_expect_success 'a body sent at 20 bytes/s is closed after the 10 s grace, not stored' '
	perl -MIO::Socket::INET -e "
		my \$s = IO::Socket::INET->new(PeerAddr => q(127.0.0.1:$PORT)) or exit 2;
		\$s->autoflush(1);
		\$SIG{PIPE} = q(IGNORE);
		print \$s qq(POST /upload?filename=slow.perf HTTP/1.1\r\nHost: 127.0.0.1\r\n) .
			qq(Content-Type: application/octet-stream\r\nContent-Length: 100000\r\n\r\n);
		my \$t0 = time;
		while (time - \$t0 < 30) {
			print \$s q(x) x 10 or last;
			my \$rin = q(); vec(\$rin, fileno(\$s), 1) = 1;
			if (select(\$rin, undef, undef, 0.5)) {
				my \$n = sysread(\$s, my \$buf, 4096);
				last if !\$n;
			}
		}
		printf qq(elapsed=%d\n), time - \$t0;
	" >probe.out &&
	cat probe.out &&
	elapsed=$(sed -n "s/^elapsed=//p" probe.out) &&
	test "$elapsed" -ge 9 && test "$elapsed" -le 20 &&
	! test -e prof/uploads/slow.perf &&
	grep -q "upload: body slower than" serve.err
'

test_expect_success 'a normal upload still works' '
	code=$(post "/upload?filename=ok.perf.gz" --data-binary "@$EXAMPLES/$F") &&
	test "$code" = 201 &&
	cmp "$EXAMPLES/$F" prof/uploads/ok.perf.gz
'

test_done
