#!/bin/sh
test_description='fp-range: pid, tid, cpu, comm, event and stack regex filters'
. "$(dirname "$0")/test-lib.sh"
D=$DATA/range

# filters.S has 8 samples at 10.1 .. 10.8 s; "kept TENTHS..." lists which
# survive, by the tenth of a second they sit at.
kept() { awk -F '\t' '$1 == "S" { printf "%s%s", sep, substr($2, 3, 1); sep = " " } END { print "" }'; }
check() { # expected-tenths fp-range-args...
	want=$1; shift
	fp-range "$@" <"$D/filters.S" >out 2>err && kept <out >got &&
	echo "$want" >expect && test_cmp expect got
}

test_expect_success '--pid keeps listed processes (comma list, -1 for unknown)' '
	check "1 2 5" --pid 100,300 && check "6" --pid -1 && check "7" --pid 0
'
test_expect_success '--tid and --cpu' '
	check "2" --tid 101 && check "2 4 5 7" --cpu 1
'
test_expect_success '--comm is exact, may contain spaces, repeats or lists' '
	check "4" --comm "Web Content" && check "" --comm Web &&
	check "1 2 3 5 8" --comm bash --comm gzip && check "1 2 3 5 8" --comm bash,gzip
'
test_expect_success '--event matches the name with or without perf modifiers' '
	check "1 2 3 4 6 8" --event cpu-clock && check "1 2 3 6 8" --event cpu-clock:ppp &&
	check "7" --event sched:sched_switch && check "" --event sched &&
	check "5" --event page-faults
'
test_expect_success '--include matches the folded form comm;frames (POSIX ERE)' '
	check "3 8" --include ";deflate\$" && check "1 2" --include "^bash;" &&
	check "4" --include "js::(Run|Exec)" && check "6" --include "^:-1\$"
'
test_expect_success '--exclude drops matching stacks; with --include both apply' '
	check "1 2 4 5 6 7" --exclude deflate &&
	check "2" --include "^bash" --exclude syscall
'
test_expect_success 'filters and the range combine (all must pass)' '
	check "3" --comm gzip --cpu 0 --to 0.5 &&
	check "8" --pid 200 --from 0.5
'
test_expect_success 'the regex runs once per unique stack: one interned tail per stack' '
	fp-range --include deflate <"$D/filters.S" | grep "^I" >got &&
	grep -q "	seen=8	passed=2	history=8	unique_stacks=7	.*	regex_runs=7\$" got &&
	awk "/^S/ { l[n++] = \$0 } END { for (i = 0; i < 1000; i++) for (j = 0; j < n; j++) print l[j] }" \
		"$D/filters.S" >many &&
	test "$(wc -l <many)" = 8000 &&
	fp-range --include deflate --exclude "^x" <many | grep "^I" >got &&
	grep -q "	regex_runs=7\$" got
'
test_expect_success 'bad filter options are usage errors (exit 100) naming the option' '
	{ fp-range --include "(" </dev/null 2>err; test $? = 100; } && grep -q "include: bad regex" err &&
	{ fp-range --pid 1,x </dev/null 2>err; test $? = 100; } && grep -q "^fp-range: --pid:" err &&
	{ fp-range --cpu "" </dev/null 2>err; test $? = 100; } &&
	{ fp-range --comm a, </dev/null 2>err; test $? = 100; } &&
	{ fp-range --pid 99999999999 </dev/null 2>err; test $? = 100; }
'
test_expect_success 'records other than S pass unchanged; malformed S becomes a W record' '
	printf "%s\n" "# x" "Z	whatever" "C	flush" "H	1	2	3" "S	1	2" "I	read	lines=1" >in &&
	fp-range --pid 5 <in >out 2>err &&
	printf "%s\n" "C	range	-	-" "C	filter	pid 5" "# x" "Z	whatever" "C	flush" "H	1	2	3" >expect &&
	echo "W	range	stdin:5	malformed S record (expected 10 or 11 TAB-separated fields, see PROTOCOL.md): dropped" >>expect &&
	echo "I	read	lines=1" >>expect &&
	echo "I	range	seen=0	passed=0	history=0	unique_stacks=0	history_dropped=0	replays=0	replayed=0	bad=1	regex_runs=0" >>expect &&
	test_cmp expect out
'
test_expect_success 'a regex PCRE2 cannot compile is refused at once, from options and the control FIFO' '
	{ timeout 10 fp-range --include "a++++++++++++++++++++++++++++++" </dev/null 2>err; test $? = 100; } &&
	grep -q "bad regex: quantifier does not follow a repeatable item" err &&
	{ timeout 10 fp-range --exclude "((a{255}){255}){255}" </dev/null 2>err; test $? = 100; } &&
	grep -q "bad regex: regular expression is too large" err &&
	{ timeout 10 fp-range --include "a)(b" </dev/null 2>err; test $? = 100; } &&
	grep -q "unmatched closing parenthesis at offset 1" err &&
	mkfifo ctl &&
	{ sleep 1; echo "include ((a{255}){255}){255}" >ctl; sleep 1; } |
		timeout 20 fp-range --control ctl >out 2>err &&
	grep -q "^W	range	.*too large" out
'
test_expect_success 'possessive quantifiers and back-references work (PCRE2); operators inside brackets are literals' '
	printf "S\t1000000000\t1\t1\t0\t1\tev\tc+*\tu\tf\n" >plus.S &&
	fp-range --include "[*+]+" <plus.S | grep -c "^S" >n && test "$(cat n)" = 1 &&
	fp-range --include "[[:alpha:]]+[+]" <plus.S | grep -c "^S" >n && test "$(cat n)" = 1 &&
	fp-range --include "c[+]++[*]" <plus.S | grep -c "^S" >n && test "$(cat n)" = 1 &&
	printf "S\t1000000000\t1\t1\t0\t1\tev\tabab\tu\tf\n" >back.S &&
	fp-range --include "^(ab)\\1;" <back.S | grep -c "^S" >n && test "$(cat n)" = 1
'
test_done
