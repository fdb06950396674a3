#!/bin/sh
test_description='containers: each sample'"'"'s cgroup from perf record --all-cgroups, its name, the container filter and views'
. "$(dirname "$0")/test-lib.sh"
test_tags root perf
. "$TOP/tests/lib-perfdata.sh"
. "$TOP/tests/lib-cgroup.sh"
. "$TOP/tests/lib-stream.sh"
. "$TOP/tests/lib-serve.sh"
pd_need_perf
cg_need 'container views'

# Two groups made here, a CPU-bound workload in each (400 and 250 ms of
# CPU), each joining its group before it execs (lib-cgroup.sh). A fixed
# period (-c 2 ms of a task's own CPU time) rather than -F. The independent
# count of a group is perf report's (--sort cgroup): by pid it is not, as a
# loaded machine once had the forked subshell sampled in its first 2 ms,
# before it joined its group (comm sh, in /: rightly so).
A=fpcg-$$-a B=fpcg-$$-b
cg_make $A && cg_make $B || exit 1
cat >work.sh <<SH
( echo 0 >"$(cg_dir $A)/cgroup.procs" && exec "$BUSY" 400 times.a ) &
( echo 0 >"$(cg_dir $B)/cgroup.procs" && exec "$BUSY" 250 times.b ) &
wait
SH
pd_record cg.data --all-cgroups -e cpu-clock -c 2000000 -g -- sh work.sh || exit 1
PID_A=$(cut -d ' ' -f 3 times.a) && PID_B=$(cut -d ' ' -f 3 times.b) || exit 1
perf report -i cg.data --stdio -g none -F sample,cgroup 2>/dev/null | grep -v "^#" >by-cgroup
N_A=$(awk -v c="$(cg_path $A)" '$2 == c { print $1 }' by-cgroup)
N_B=$(awk -v c="$(cg_path $B)" '$2 == c { print $1 }' by-cgroup)
echo "# independent counts (perf report --sort cgroup): $A $N_A, $B $N_B"
fp-perfdata -q cg.data >stream

# count_in STREAM PATH: S records whose cgroup (the 11th field) is PATH
count_in() { awk -F '\t' -v c="$2" '$1 == "S" && $11 == c { n++ } END { print n + 0 }' "$1"; }
folded_sum() { awk '{ n += $NF } END { print n + 0 }' "$1"; }

test_expect_success 'each workload has samples (the capture is usable)' '
	test "$N_A" -gt 100 && test "$N_B" -gt 50
'

test_expect_success 'every sample of a workload after its exec carries its group as the S record'"'"'s 11th field' '
	awk -F "\t" -v a="$PID_A" -v b="$PID_B" -v ca="$(cg_path $A)" -v cb="$(cg_path $B)" "
		\$1 == \"S\" && \$8 == \"busy\" && \$3 == a && \$11 != ca { bad++ }
		\$1 == \"S\" && \$8 == \"busy\" && \$3 == b && \$11 != cb { bad++ }
		\$1 == \"S\" && \$8 == \"busy\" && (\$3 == a || \$3 == b) { n++ }
		END { exit bad > 0 || n < 150 }" stream
'

test_expect_success 'the samples of each group are its count by perf report --sort cgroup' '
	test "$(count_in stream "$(cg_path $A)")" = "$N_A" &&
	test "$(count_in stream "$(cg_path $B)")" = "$N_B"
'

test_expect_success 'fp-perfdata counts the groups it was told of' '
	grep "^I	read	" stream | tr "\t" "\n" >info &&
	grep -qx "unknown_cgroup_samples=0" info &&
	awk -F = "\$1 == \"cgroups\" { exit !(\$2 >= 3) }" info
'

test_expect_success 'the stack-id stream carries the group in its K records, to the R records' '
	fp-perfdata -q --stack-ids cg.data | fp-fold --pass-samples >folded &&
	test "$(awk -F "\t" -v c="$(cg_path $A)" "\$1 == \"R\" && \$11 == c" folded | wc -l)" = "$N_A"
'

test_expect_success 'fp-range --container NAME keeps the group'"'"'s samples, from S and from P records' '
	fp-range --container $A <stream >a.out &&
	test "$(grep -c "^S" a.out)" = "$N_A" &&
	fp-perfdata -q --stack-ids cg.data | fp-range --container $B >b.out &&
	test "$(grep -c "^P" b.out)" = "$N_B"
'

test_expect_success 'the container filter'"'"'s regex matches the whole name: both groups, their sum' '
	fp-range --container "fpcg-$$-(a|b)" <stream >ab.out &&
	test "$(grep -c "^S" ab.out)" = "$((N_A + N_B))" &&
	fp-range --container "fpcg-$$" <stream >none.out &&
	test "$(grep -c "^S" none.out)" = 0
'

test_expect_success 'the container filter changes over fp-range'"'"'s control FIFO' '
	start_range &&
	cat stream >&9 &&
	wait_for "grep -q \"^I	read\" out" 100 &&
	echo "container $B" >ctl &&
	wait_for "grep -q \"^C	filter	container $B\" out" 100 &&
	awk -F "\t" "\$1 == \"C\" && \$2 == \"reset\" { n = 0; next } \$1 == \"S\" { n++ }
		\$1 == \"C\" && \$2 == \"filter\" { print n; exit }" out >replayed &&
	test "$(cat replayed)" = "$N_B" &&
	echo "container a(" >ctl &&
	wait_for "grep -q \"bad container regex\" err" 100 &&
	stop_range
'

test_expect_success 'flamepipe report --container: the flame graph'"'"'s total is the sum over its groups' '
	flamepipe report -q cg.data -o rep-a --container $A &&
	test "$(folded_sum rep-a/stacks.folded)" = "$N_A" &&
	flamepipe report -q cg.data -o rep-ab --container "(?:$A|$B)" &&
	test "$(folded_sum rep-ab/stacks.folded)" = "$((N_A + N_B))"
'

test_expect_success 'fp-fold --container-root: the container is the outermost frame' '
	fp-fold --plain --container-root <stream >by-container &&
	test "$(awk -v c="$A" "index(\$0, c \";\") == 1 { n += \$NF } END { print n + 0 }" by-container)" = "$N_A"
'

mkdir caps && cp cg.data caps/ && start_server caps || exit 1
test_expect_success 'fp-serve lists the two containers with their counts' '
	test "$(get "/threads/?filename=cg.data")" = 200 &&
	jq -r ".containers[] | \"\(.name) \(.samples)\"" body >containers &&
	grep -qx "$A $N_A" containers &&
	grep -qx "$B $N_B" containers
'

test_expect_success 'fp-serve: each container'"'"'s small multiple (its heatmap) counts its group'"'"'s samples' '
	test "$(get "/heatmap/?filename=cg.data&container=$A")" = 200 &&
	test "$(jq .counted body)" = "$N_A" &&
	test "$(jq "[.values[][]] | add" body)" = "$N_A" &&
	test "$(get "/heatmap/?filename=cg.data&container=$B")" = 200 &&
	test "$(jq .counted body)" = "$N_B"
'

test_expect_success 'fp-serve: the container filter'"'"'s flame graph total is the sum over its groups' '
	test "$(get "/flamegraph/?filename=cg.data&container=fpcg-$$-.*")" = 200 &&
	test "$(tree_total)" = "$((N_A + N_B))"
'

test_expect_success 'fp-serve refuses a bad container regex with the reason' '
	status=$(get "/heatmap/?filename=cg.data&container=a(") &&
	json_error_ok "$status" &&
	grep -q "container: bad regex" body
'

cg_cleanup
test_done
