#!/bin/sh
test_description='run, check, report and live share one options module: the same checks, the same messages'
. "$(dirname "$0")/test-lib.sh"

CAP=$EXAMPLES/demo-clockloop.perf.gz
# every command with what it needs besides the option under test
cmds() {
	echo "run"
	echo "check"
	echo "report $CAP -o out"
	echo "live -o out"
}
# same_error 'OPTION...' 'MESSAGE': every command exits 100 with MESSAGE
same_error() {
	cmds | while read -r cmd; do
		# shellcheck disable=SC2086
		flamepipe $cmd $1 >/dev/null 2>err
		rc=$?
		[ $rc = 100 ] || { echo "$cmd $1: exit $rc"; cat err; exit 1; }
		grep -qxF "flamepipe: $2" err || { echo "$cmd $1:"; cat err; exit 1; }
	done
}

test_expect_success '--rows outside 1..1000: one message for all four' '
	same_error "--rows 0" "--rows: bad value '\''0'\'' (expected an integer 1..1000)" &&
	same_error "--rows 1001" "--rows: bad value '\''1001'\'' (expected an integer 1..1000)" &&
	same_error "--rows x" "--rows: bad value '\''x'\'' (expected an integer 1..1000)"
'

test_expect_success '-D FIFODIR=... and a bad -A: one message for all four' '
	same_error "-D FIFODIR=/tmp" "-D: FIFODIR is set by the runner" &&
	same_error "-A 1X=y" "-A: expected NAME=VALUE with NAME like [A-Za-z_][A-Za-z0-9_]*, got '\''1X=y'\''"
'

test_expect_success 'bad --drain-timeout and --kill-timeout: one message for all four' '
	same_error "--drain-timeout -1" "--drain-timeout: bad duration '\''-1'\'' (expected seconds, 0..3600)" &&
	same_error "--kill-timeout 1h" "--kill-timeout: bad duration '\''1h'\'' (expected seconds, 0..3600)"
'

test_expect_success '--rows reaches the pipeline the same way (ROWS) in run, check and report' '
	flamepipe check --rows 7 >stages &&
	grep -q "fp-bucket.*--rows	7" stages &&
	flamepipe report "$CAP" -o rep --rows 7 -q &&
	head -n 1 rep/heatmap.tsv >/dev/null &&
	test "$(cut -f2 rep/heatmap.tsv | sort -un | grep -c .)" -le 8
'

test_expect_success 'the runner defines the row limit once (fifo/fp_record.h FP_ROWS_MAX)' '
	grep -rn "define.*ROWS_MAX\|MAX_ROWS" "$TOP"/lib "$TOP"/fifo "$TOP"/recording "$TOP"/fold "$TOP"/perf "$TOP"/runner "$TOP"/stages "$TOP"/render "$TOP"/web \
		--include=*.[ch] >defs &&
	test "$(wc -l <defs)" = 1 &&
	grep -q "fifo/fp_record.h:.*define FP_ROWS_MAX 1000" defs
'

test_expect_success 'exit codes are defined once (lib/fp_error.h)' '
	grep -rnE "define FP_[A-Z_]*EXIT|FP_EXIT_[A-Z]+ *=" "$TOP"/lib "$TOP"/fifo "$TOP"/recording "$TOP"/fold "$TOP"/perf "$TOP"/runner "$TOP"/stages "$TOP"/render "$TOP"/web \
		--include=*.[ch] >defs &&
	! grep -v "lib/fp_error.h:" defs
'

test_done
