#!/bin/sh
test_description='fp-baseline and flamepipe live --baseline: bad baselines and options get a clear error'
. "$(dirname "$0")/test-lib.sh"

code_is() { # CODE COMMAND...
	want=$1; shift
	"$@"; rc=$?
	test $rc = "$want" || { echo "exit code $rc, expected $want"; return 1; }
}
# a tiny stream after fp-fold --pass-samples: two stacks, one second apart
stream() {
	printf "G\t10\t100\n"
	printf "D\t0\t-uu\tcmd;main;old\n"
	printf "R\t0\t100000000000\t1\t1\t0\t1\t1\tcpu-clock\tcmd\n"
	printf "D\t1\t-uu\tcmd;main;new\n"
	printf "R\t1\t101500000000\t1\t1\t0\t1\t1\tcpu-clock\tcmd\n"
	printf "R\t1\t101800000000\t1\t1\t0\t1\t1\tcpu-clock\tcmd\n"
}

test_expect_success 'a missing baseline file: exit 1, the file and why' '
	stream | code_is 1 fp-baseline --baseline nonexistent.folded >out 2>err &&
	grep "^fp-baseline: baseline nonexistent.folded: cannot open: No such file" err
'

test_expect_success 'a file that is neither a capture nor folded: exit 1, what was expected' '
	printf "hello world\n" >junk &&
	stream | code_is 1 fp-baseline --baseline junk >out 2>err &&
	grep "junk: not a capture flamepipe reads nor a folded file (expected" err
'

test_expect_success 'a damaged folded file: exit 1 with the first bad line' '
	printf "a;b 3\na;c 4\nthis line has no count\na;d 1\n" >bad.folded &&
	stream | code_is 1 fp-baseline --baseline bad.folded >out 2>err &&
	grep "bad.folded:3: expected .stack count. (1 such lines)" err
'

test_expect_success 'a folded file has no times: --from/--to with it is refused' '
	printf "a;b 3\n" >ok.folded &&
	stream | code_is 1 fp-baseline --baseline ok.folded --to 2 >out 2>err &&
	grep "ok.folded: a folded file has no times" err
'

test_expect_success 'a damaged perf.data: exit 1, fp-perfdata says why' '
	printf "PERFILE2" >bad.data && head -c 200 /dev/urandom >>bad.data &&
	stream | code_is 1 fp-baseline --baseline bad.data >out 2>err &&
	cat err &&
	grep "^fp-perfdata: " err &&
	grep "^fp-baseline: baseline bad.data: cannot fold it: fp-perfdata exited" err
'

test_expect_success 'an empty file, or one of comments only: exit 1, not a baseline' '
	: >empty.folded && printf "# only a comment\n" >comment.folded &&
	stream | code_is 1 fp-baseline --baseline empty.folded >out 2>err &&
	grep "not a capture flamepipe reads nor a folded file" err &&
	stream | code_is 1 fp-baseline --baseline comment.folded >out 2>err &&
	grep "not a capture flamepipe reads nor a folded file" err
'

test_expect_success 'usage errors exit 100' '
	stream | code_is 100 fp-baseline 2>err && grep "no baseline" err &&
	stream | code_is 100 fp-baseline --from 1 2>err && grep "no baseline" err &&
	stream | code_is 100 fp-baseline --from 2 --to 1 2>err && grep "is not before" err &&
	stream | code_is 100 fp-baseline --from 0 --to 1 --alert 0 2>err && grep "above 0" err &&
	stream | code_is 100 fp-baseline --from 0 --to 1 --alert 5x 2>err &&
	stream | code_is 100 fp-baseline --from 0 --to 1 --by module 2>err &&
	stream | code_is 100 fp-baseline --from 0 --to 1 --window 1000 --step 300 2>err &&
	grep "whole number of --step" err &&
	stream | code_is 100 fp-baseline --from 0 --to 1 --window 100000 --step 10 2>err &&
	grep "at most 100 of them" err
'

test_expect_success 'a stream without R records: a warning, not a silent "no change"' '
	printf "C\tbegin\tfold\nF\t1\ta;b\nC\tend\tfold\t1\t1\n" |
		fp-baseline --from 0 --to 1 >out 2>err &&
	grep "no samples to compare: the stream had no R records" err &&
	grep -q "^F	1	a;b\$" out
'

test_expect_success 'records pass unchanged, R records only with --pass-samples' '
	printf "a;b 1\n" >ok.folded &&
	stream | fp-baseline --baseline ok.folded --top 0 >out 2>err &&
	stream | grep -v "^R" >expect && grep -v "^I	baseline" out >got && test_cmp expect got &&
	stream | fp-baseline --baseline ok.folded --top 0 --pass-samples >out &&
	test "$(grep -c "^R" out)" = 3 &&
	stream | fp-baseline --baseline ok.folded --top 0 --discard >out && test ! -s out
'

test_expect_success 'flamepipe live: --alert without a baseline, half a range: usage errors' '
	code_is 100 flamepipe live --alert 10 -o out 2>err && grep "compare against a baseline" err &&
	code_is 100 flamepipe live --baseline-from 1 -o out 2>err && grep "needs both" err &&
	code_is 100 flamepipe live --baseline x --alert-by stack -o out 2>err &&
	grep "goes with --alert" err
'
if test_have perf; then
	test_expect_success 'flamepipe live with a missing baseline: exit 1 at once, the file named' '
		code_is 1 timeout 60 flamepipe live -g --baseline nonexistent.data --alert 10 \
			-- "$HELPERS/switch-phases" 1 1 /dev/null >out 2>err &&
		grep "^fp-baseline: baseline nonexistent.data: cannot open" err &&
		grep -q "incomplete: a stage failed" err
	'
else
	test_skip 'flamepipe live with a missing baseline' 'needs perf'
fi
test_done
