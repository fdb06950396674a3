#!/bin/sh
test_description='fp-serve /pprof/: a capture or a range of it as profile.pb.gz, equal to the report of that range'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-serve.sh"
. "$TOP/tests/lib-export.sh"
DEMO=demo-clockloop.perf.gz

if ! have_pprof; then
	test_skip 'serve pprof' 'go tool pprof is not installed (golang-go)'
	test_done
fi
mkdir -p prof && cp "$EXAMPLES/$DEMO" prof/ && start_server prof || exit 1

test_expect_success '/pprof/ of a whole capture: a gzip pprof with stacks.folded'"'"'s stacks' '
	test "$(get "/pprof/?filename=$DEMO")" = 200 &&
	mv body whole.pb.gz && gzip -t whole.pb.gz &&
	flamepipe report -q "$EXAMPLES/$DEMO" -o rep &&
	pprof_folded whole.pb.gz >pf &&
	test_cmp rep/stacks.folded pf
'

test_expect_success '/pprof/ with start and end equals report --from --to, and /folded of that range' '
	test "$(get "/pprof/?filename=$DEMO&start=6.2&end=9.82")" = 200 &&
	mv body range.pb.gz &&
	flamepipe report -q "$EXAMPLES/$DEMO" --from 6.2 --to 9.82 -o rr &&
	pprof_folded range.pb.gz >pf &&
	test_cmp rr/stacks.folded pf &&
	test "$(get "/folded?filename=$DEMO&start=6.2&end=9.82")" = 200 &&
	sed "s/_\[[kj]\]//g" body | LC_ALL=C sort >web.folded &&	# /folded annotates kinds
	test_cmp web.folded pf
'

test_expect_success '/pprof/ with a filter keeps only those samples, with their labels' '
	test "$(get "/pprof/?filename=$DEMO&comm=clockloop")" = 200 &&
	mv body comm.pb.gz &&
	go tool pprof -tags comm.pb.gz >tags 2>err &&
	awk "/^ comm: Total/ { on = 1; next } /^ [a-z]+: Total/ { on = 0 } on && NF >= 3 { print \$NF }" tags >comms &&
	test "$(cat comms)" = clockloop &&
	flamepipe report -q "$EXAMPLES/$DEMO" --comm clockloop -o rc &&
	pprof_folded comm.pb.gz >pf && test_cmp rc/stacks.folded pf
'

test_expect_success 'go tool pprof fetches the range itself over HTTP' '
	HOME=$TRASH PPROF_TMPDIR=$TRASH/pp go tool pprof -top "$URL/pprof/?filename=$DEMO&start=6.2&end=9.82" >top 2>err &&
	grep -q "Fetching profile over HTTP" err &&
	grep -q "Total samples = $(awk "{ t += \$NF } END { print t }" rr/stacks.folded) *\$" top
'

test_expect_success 'the answer is a download (Content-Disposition) of application/octet-stream' '
	curl -sS -D hdr -o /dev/null "$URL/pprof/?filename=$DEMO" &&
	grep -qi "^content-type: application/octet-stream" hdr &&
	grep -qi "^content-disposition: attachment; filename=\"profile.pb.gz\"" hdr
'

test_expect_success 'bad requests get JSON errors: no file, missing file, end before start' '
	st=$(get "/pprof/") && json_error_ok "$st" &&
	st=$(get "/pprof/?filename=nosuch.perf") && json_error_ok "$st" &&
	st=$(get "/pprof/?filename=$DEMO&start=9&end=2") && json_error_ok "$st"
'

test_done
