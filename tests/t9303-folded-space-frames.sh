#!/bin/sh
test_description='folded files: a frame that ends in a space stays one frame (issue 14 #7)'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-render.sh"
. "$TOP/tests/lib-serve.sh"

# stackcollapse's tidy rule cuts a name at its first "(": the template
# std::_Function_handler<unsigned long (int), F> becomes
# "std::_Function_handler<unsigned long " (a trailing space). The folded
# parser trimmed every blank before the count, so the frame as a leaf lost
# its space and became a second node next to the same frame with children.
F='std::_Function_handler<unsigned long '

test_expect_success 'fp-flamegraph: one node for the frame, leaf or not' '
	printf "app;%s;g 3\napp;%s 2\n" "$F" "$F" >sp.folded &&
	fp-flamegraph --minwidth 0 sp.folded >sp.svg &&
	grep -c "<title>std::_Function_handler&lt;unsigned long  (" sp.svg >n &&
	echo 1 >expect && test_cmp expect n &&
	grep -q "<title>std::_Function_handler&lt;unsigned long  (5 samples, 100.00%)</title>" sp.svg
'

test_expect_success 'exactly one blank separates stack and count (flamegraph.pl), tabs too' '
	printf "a;b  4\na;b\t1\na;b 2\n" >blanks.folded &&
	fp-flamegraph --minwidth 0 blanks.folded >b.svg &&
	grep -q "<title>b  (4 samples" b.svg && grep -q "<title>b (3 samples" b.svg
'

# A capture with the template in a leaf and in a caller: report, then the
# flame graph of its stacks.folded and fp-serve's tree agree with flame.svg.
cat >tmpl.perf <<'PERF'
app 7/7 [000] 1.000000: 1 cpu-clock: 
	1000 std::_Function_handler<unsigned long (int), F>::_M_invoke+0x10 (/bin/app)
	2000 main+0x1 (/bin/app)

app 7/7 [000] 1.100000: 1 cpu-clock: 
	3000 leaf+0x1 (/bin/app)
	1000 std::_Function_handler<unsigned long (int), F>::_M_invoke+0x10 (/bin/app)
	2000 main+0x1 (/bin/app)

PERF

test_expect_success 'report: stacks.folded read back gives the same single node' '
	flamepipe report -q tmpl.perf -o o &&
	grep -c "_Function_handler<unsigned long ;leaf 1\$\|_Function_handler<unsigned long  1\$" o/stacks.folded >n &&
	echo 2 >expect && test_cmp expect n &&
	fp-flamegraph --minwidth 0 o/stacks.folded >re.svg &&
	test "$(grep -c "<title>std::_Function_handler&lt;unsigned long  (2 samples" re.svg)" = 1 &&
	test "$(grep -c "<title>std::_Function_handler&lt;unsigned long  (2 samples" o/flame.svg)" = 1
'

test_expect_success 'fp-serve /flamegraph/: one node (self 1) with the leaf under it' '
	mkdir prof && cp tmpl.perf prof/ && start_server prof &&
	test "$(get "/flamegraph/?filename=tmpl.perf")" = 200 &&
	jq -r "[.. | objects | select(.n? and (.n | startswith(\"std::\")))] | map(.n + \"|\" + (.v|tostring)) | .[]" body >got &&
	printf "%s|1\n" "$F" >expect && test_cmp expect got &&
	jq -e "[.. | objects | select(.n? == \"leaf\")] | length == 1" body
'

test_done
