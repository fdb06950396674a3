#!/bin/sh
test_description='fp-serve: flipping a directory to a symlink while files are requested never serves a file outside DIR (race-free open)'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-serve.sh"

command -v perl >/dev/null 2>&1 || { echo "1..0 # SKIP perl not installed"; exit 0; }
F=multiproc.perf.gz
mkdir -p prof/d outside &&
cp "$EXAMPLES/$F" prof/d/x.perf.gz &&
# the outside file: the same capture with every comm renamed, so a leaked
# answer is recognised by its stacks
zcat "$EXAMPLES/$F" | sed "s/^[a-z][^ ]*  */SECRETCOMM /" | gzip >outside/x.perf.gz &&
ln -s "$TRASH/outside" outside-link &&
start_server prof || exit 1

test_expect_success 'requests during 8 s of flipping prof/d <-> a symlink out: zero leaked answers' '
	perl -e "
		my \$end = time + 8;
		while (time < \$end) {
			rename q(prof/d), q(prof/d.real) or next;
			symlink q($TRASH/outside), q(prof/d);
			select(undef, undef, undef, 0.0002);
			unlink q(prof/d);
			rename q(prof/d.real), q(prof/d);
		}
	" &
	flipper=$!
	# two requesters, as fast as the server answers (cached answers)
	for r in 1 2; do
		perl -MIO::Socket::INET -e "
			my (\$n, \$served, \$leaked) = (0, 0, 0);
			my \$end = time + 8;
			while (time < \$end) {
				my \$s = IO::Socket::INET->new(PeerAddr => q(127.0.0.1:$PORT)) or next;
				print \$s qq(GET /folded?filename=d/x.perf.gz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n);
				local \$/; my \$a = <\$s>; close \$s;
				\$n++;
				\$served++ if \$a =~ m{^HTTP/1.1 200 };
				\$leaked++ if \$a =~ /SECRETCOMM/;
			}
			print qq(requests=\$n served=\$served leaked=\$leaked\n);
		" >req.$r &
	done
	wait
	cat req.1 req.2 &&
	set -- $(awk -F "[= ]" "{ n += \$2; s += \$4; l += \$6 } END { print n, s, l }" req.1 req.2) &&
	n=$1 served=$2 leaked=$3 &&
	test -d prof/d && test ! -L prof/d &&
	test "$n" -gt 50 && test "$served" -gt 0 && test "$leaked" = 0
'

test_expect_success 'a symlink anywhere on the path is refused (403 JSON), inside DIR or not' '
	ln -s d prof/alias &&
	ln -s x.perf.gz prof/d/y.perf.gz &&
	code=$(get "/heatmap/?filename=alias/x.perf.gz") && test "$code" = 403 && json_error_ok "$code" &&
	jq -e ".error | test(\"symbolic links are not followed\")" body &&
	code=$(get "/heatmap/?filename=d/y.perf.gz") && test "$code" = 403 && json_error_ok "$code" &&
	code=$(get "/heatmap/?filename=d/x.perf.gz") && test "$code" = 200
'

test_expect_success 'an uploads directory that is a symlink is not written through' '
	ln -s "$TRASH/outside" prof/uploads &&
	code=$(post "/upload?filename=evil.perf" --data-binary x) &&
	test "$code" = 500 && jq -e ".error | type == \"string\"" body &&
	! test -e outside/evil.perf
'

test_done
