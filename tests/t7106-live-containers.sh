#!/bin/sh
test_description='flamepipe live: each sample'"'"'s container (perf --all-cgroups), per-container views and filter'
. "$(dirname "$0")/test-lib.sh"
test_tags root perf
. "$TOP/tests/lib-perfdata.sh"
. "$TOP/tests/lib-cgroup.sh"
. "$TOP/tests/lib-serve.sh"
need_perf_sampling 'live containers'
cg_need 'live containers'

# Two groups made here, a workload in each (lib-cgroup.sh), profiled by
# flamepipe live with its web view; once the capture has ended (and the
# view stays up, --keep-serving), the live views are asked per container
# and compared with the count by group of the live recording's samples.
A=fplc-$$-a B=fplc-$$-b
cg_make $A && cg_make $B || exit 1
cat >work.sh <<SH
( echo 0 >"$(cg_dir $A)/cgroup.procs" && exec "$BUSY" 400 times.a ) &
( echo 0 >"$(cg_dir $B)/cgroup.procs" && exec "$BUSY" 250 times.b ) &
wait
SH
flamepipe live -g -F 499 --http 127.0.0.1:0 --keep-serving -o rec -- sh work.sh >out 2>err &
live=$!
register_pid $live
wait_for 'grep -qs "listening on" out' 200 || { cat err; exit 1; }
URL=$(sed -n 's|.*listening on \(http://127\.0\.0\.1:[0-9]*\)/.*|\1|p' out)
ended() { get "/heatmap/?filename=live" >/dev/null && test "$(jq .ended body)" = true; }
wait_for ended 300 || { cat err; exit 1; }
PID_A=$(cut -d ' ' -f 3 times.a) && PID_B=$(cut -d ' ' -f 3 times.b) || exit 1
# the count the views must give: the recording's samples by group (t1160
# checks those against perf report's); by pid it is not, as a forked
# subshell may be sampled before it joins its group (comm sh, in /)
fp-read -q rec/recording.fp.gz >stream
by_group() { awk -F '\t' -v c="/$1" '$1 == "S" && $11 == c { n++ } END { print n + 0 }' stream; }
N_A=$(by_group "$A") N_B=$(by_group "$B")
echo "# by group, from the recording: $A $N_A, $B $N_B"

test_expect_success 'live asked perf for the cgroups: the workloads'"'"' samples after exec carry them' '
	test "$N_A" -gt 100 && test "$N_B" -gt 50 &&
	awk -F "\t" -v a="$PID_A" -v b="$PID_B" "
		\$1 == \"S\" && \$8 == \"busy\" && \$3 == a && \$11 != \"/$A\" { bad++ }
		\$1 == \"S\" && \$8 == \"busy\" && \$3 == b && \$11 != \"/$B\" { bad++ }
		END { exit bad > 0 }" stream
'

test_expect_success 'the live view lists both containers with their counts' '
	test "$(get "/threads/?filename=live")" = 200 &&
	jq -r ".containers[] | \"\(.name) \(.samples)\"" body >containers &&
	grep -qx "$A $N_A" containers &&
	grep -qx "$B $N_B" containers
'

test_expect_success 'each container'"'"'s small multiple (its live heatmap) counts its group'"'"'s samples' '
	test "$(get "/heatmap/?filename=live&container=$A")" = 200 &&
	test "$(jq .counted body)" = "$N_A" &&
	test "$(get "/heatmap/?filename=live&container=$B")" = 200 &&
	test "$(jq .counted body)" = "$N_B"
'

test_expect_success 'the container filter'"'"'s live flame graph total is the sum over its groups' '
	test "$(get "/flamegraph/?filename=live&container=fplc-$$-.*")" = 200 &&
	test "$(tree_total)" = "$((N_A + N_B))"
'

end_live $live
test_expect_success 'live --container with a source that cannot read cgroups is refused with the reason' '
	test_must_fail flamepipe live --source perf-script --container x --duration 1 -o rec2 2>err2 &&
	grep -q "container: needs --source perf" err2
'

cg_cleanup
test_done
