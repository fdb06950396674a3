#!/bin/sh
test_description='pprof export (profile.pb.gz) read back by go tool pprof: stacks, totals, labels, kinds, events, ranges'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-export.sh"
DEMO=$EXAMPLES/demo-clockloop.perf.gz
MULTI=$EXAMPLES/multiproc.perf.gz
BUSY=$TOP/build/tests/busy-phases

if ! have_pprof; then
	test_skip 'pprof export' 'go tool pprof is not installed (golang-go)'
	test_done
fi

# The default chain up to fp-fold --pass-samples: the samples that reach fp-render.
chain() { fp-read "$1" | fp-bucket | fp-range | fp-fold --pass-samples; }
# The S records fp-fold folds (one event: all of them); fp-render gets them
# as R records naming D-defined stacks.
samples() { fp-read "$1" | fp-bucket | fp-range; }
# sum of the counts of a folded file
folded_total() { awk '{ t += $NF } END { print t + 0 }' "$1"; }

test_expect_success 'report --format pprof writes a gzip profile.pb.gz' '
	flamepipe report -q "$DEMO" -o r --format all,pprof &&
	test -s r/profile.pb.gz && test -s r/stacks.folded &&
	gzip -t r/profile.pb.gz
'

test_expect_success 'pprof -traces gives exactly the stacks and counts of stacks.folded' '
	pprof_folded r/profile.pb.gz >pf &&
	test_cmp r/stacks.folded pf &&
	test "$(wc -l <pf)" -gt 20
'

test_expect_success 'pprof -top: the same total and the same leaf (flat) counts as stacks.folded' '
	go tool pprof -top -nodecount=100000 -nodefraction=0 r/profile.pb.gz >top 2>err &&
	total=$(folded_total r/stacks.folded) &&
	grep -q "Total samples = $total *\$" top &&
	awk "/ flat  flat%/ { on = 1; next } on && \$1 > 0 { c = \$1; sub(/^ *[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+  /, \"\"); print \$0, c }" top | LC_ALL=C sort >got &&
	awk "{ n = split(\$0, f, \";\"); c = f[n]; sub(/ [0-9]+\$/, \"\", c); if (n > 1) s[c] += \$NF }
	     END { for (k in s) print k, s[k] }" r/stacks.folded | LC_ALL=C sort >want &&
	test_cmp want got
'

test_expect_success 'sample types samples/count and cpu/nanoseconds: cpu is the sum of the periods' '
	go tool pprof -raw r/profile.pb.gz >raw 2>err &&
	grep -q "^samples/count\\[dflt\\] cpu/nanoseconds\$" raw &&
	grep -q "^PeriodType: cpu nanoseconds\$" raw &&
	samples "$DEMO" >s &&
	want=$(awk -F "	" "\$1 == \"S\" { t += \$6 } END { printf \"%d\", t }" s) &&
	go tool pprof -raw -sample_index=cpu r/profile.pb.gz >rawcpu 2>err &&
	got=$(awk "/^Samples:/ { on = 1; next } /^Locations/ { on = 0 } on && /^ +[0-9]+ +[0-9]+:/ { t += \$2 } END { printf \"%d\", t }" rawcpu) &&
	echo "periods=$want pprof=$got" && test "$got" = "$want"
'

test_expect_success 'labels pid, tid, cpu, comm: per value the same counts as the S records' '
	go tool pprof -tags r/profile.pb.gz >tags 2>err &&
	for key in pid tid comm; do
		col=$(case $key in pid) echo 3;; tid) echo 4;; comm) echo 8;; esac) &&
		awk -F "	" -v c=$col "\$1 == \"S\" && \$c != \"-1\" { n[\$c]++ } END { for (k in n) print k, n[k] }" s |
			LC_ALL=C sort >want.$key &&
		awk -v key="$key" "/^ [a-z]+: Total/ { on = (\$1 == key \":\"); next }
		     on && NF >= 3 { print \$NF, int(\$1) }" tags | LC_ALL=C sort >got.$key &&
		test_cmp want.$key got.$key || return 1
	done &&
	grep -q "^ cpu: Total" tags && grep -q "^ event: Total" tags
'

test_expect_success 'kernel frames are in the [kernel] mapping, user frames in [user]' '
	kmap=$(awk "/^Mappings/ { on = 1; next } on && / \\[kernel\\] / { sub(/:.*/, \"\"); print }" raw) &&
	umap=$(awk "/^Mappings/ { on = 1; next } on && / \\[user\\] / { sub(/:.*/, \"\"); print }" raw) &&
	test -n "$kmap" && test -n "$umap" &&
	grep -q "M=$kmap do_syscall_64 " raw && grep -q "M=$umap main " raw &&
	! grep -q "M=$umap do_syscall_64 " raw
'

test_expect_success 'a range export (--from/--to) equals the stacks.folded of that report' '
	flamepipe report -q "$DEMO" --from 6.2 --to 9.82 -o rr --format pprof &&
	flamepipe report -q "$DEMO" --from 6.2 --to 9.82 -o rf &&
	pprof_folded rr/profile.pb.gz >pf &&
	test_cmp rf/stacks.folded pf &&
	test "$(folded_total pf)" -lt "$(folded_total r/stacks.folded)"
'

test_expect_success 'inlined frames are lines of their caller'"'"'s location, in pprof order' '
	printf "%s\n" "%flamepipe	1" \
	  "S	1000000000	7	7	0	1000	cpu-clock	app	uuiu	main;run;inl_a;leaf" \
	  "S	1001000000	7	8	1	1000	cpu-clock	app	uui	main;run;inl_a" >in.stream &&
	fp-render --outdir o --format pprof,folded <in.stream &&
	go tool pprof -raw o/profile.pb.gz >raw2 2>err &&
	grep -q "^ *[0-9]*: 0x0 M=[0-9] inl_a :0 s=0()\$" raw2 &&
	awk "/^Locations/ { on = 1; next } /^Mappings/ { on = 0 } on" raw2 >locs &&
	grep -A1 " inl_a :0" locs | grep -q "^ *run :0 s=0()\$" &&
	pprof_folded o/profile.pb.gz >pf &&
	printf "app;main;run;inl_a 1\napp;main;run;inl_a;leaf 1\n" >want &&
	test_cmp want pf &&
	go tool pprof -traces o/profile.pb.gz 2>err | grep -q "^ *inl_a (inline)\$"
'

capture() {
	perf record --no-bpf-event -e cpu-clock -e task-clock -g -F 499 -o perf.data -- "$BUSY" 11 phases \
		>record.out 2>record.err &&
	perf script -i perf.data >cap.perf 2>script.err && test -s cap.perf
}
if ! test_have perf || ! capture; then
	test_skip 'real two-event capture' "perf record failed: $(head -n 1 record.err 2>/dev/null)"
	test_done
fi

test_expect_success 'real two-event capture: per event, pprof gives that event'"'"'s stacks.folded' '
	flamepipe report -q cap.perf -o all --all-events --format pprof,folded &&
	go tool pprof -raw all/profile.pb.gz >raw3 2>err &&
	grep -E -q "^samples/count\\[dflt\\] (cpu/nanoseconds task-clock/nanoseconds|task-clock/nanoseconds cpu/nanoseconds)\$" raw3 &&
	for ev in cpu-clock task-clock; do
		flamepipe report -q cap.perf -o "one-$ev" --event "$ev" &&
		pprof_folded all/profile.pb.gz -tagfocus="event=^$ev\$" >"pf.$ev" &&
		echo "$ev: $(folded_total "one-$ev/stacks.folded") samples" &&
		test "$(folded_total "one-$ev/stacks.folded")" -gt 50 &&
		test_cmp "one-$ev/stacks.folded" "pf.$ev" || return 1
	done &&
	test "$(folded_total all/stacks.folded)" = \
		"$(( $(folded_total one-cpu-clock/stacks.folded) + $(folded_total one-task-clock/stacks.folded) ))"
'

test_expect_success 'real capture: the workload function is under its comm, in the [user] mapping' '
	grep -q "fp_read_test_hot_loop" pf.cpu-clock &&
	grep "^busy-phases;" pf.cpu-clock | grep -q fp_read_test_hot_loop
'

test_done
