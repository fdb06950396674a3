#!/bin/sh
test_description='fp-tui --baseline: the differential (d) against a baseline folded file, in tmux'
. "$(dirname "$0")/test-lib.sh"
test_tags tmux
. "$TOP/tests/lib-tui.sh"
CAPTURE=$EXAMPLES/multiproc.perf.gz

code_is() { # CODE COMMAND...
	want=$1; shift
	"$@"; rc=$?
	test $rc = "$want" || { echo "exit code $rc, expected $want"; return 1; }
}

# The capture's own folded stacks, less every stack through compare_keys:
# against it, compare_keys grew by its whole share of the capture.
test_expect_success 'setup: a baseline without compare_keys' '
	flamepipe report "$CAPTURE" -o rep -q &&
	grep -v compare_keys rep/stacks.folded >base.folded &&
	test -s base.folded
'

test_expect_success 'd lists the function that grew first, with its share now and in the baseline' '
	test_when_finished tui_stop &&
	tui_start &&
	tui_run "flamepipe report $CAPTURE --tui --baseline base.folded; echo exit=\$? >rc" &&
	tui_wait "range all: 2390 samples" &&
	! tui_has "diff vs baseline" &&
	tui_keys d && tui_wait "diff vs baseline" &&
	# the first row of the table: compare_keys, grown by its share now
	tui_screen | sed -n "/growth *now% *base%/{n;p;q}" >first &&
	grep -q "^ *+[0-9.]* *[0-9.]*% *0.00%  compare_keys$" first &&
	grown=$(awk "{ print \$1 }" first) && now=$(awk "{ print \$2 }" first) &&
	test "+${now%\%}" = "$grown" &&
	# what report counts: compare_keys is the leaf of this share of the samples
	awk "\$0 ~ /compare_keys [0-9]+\$/ { n += \$NF } END { printf \"%.2f%%\n\", 100 * n / 2390 }" \
		rep/stacks.folded >expect &&
	echo "$now" >actual && test_cmp expect actual &&
	# the functions that were in the baseline shrank, so they come after
	tui_screen | grep -q "^ *-[0-9.]* *[0-9.]*% *[0-9.]*%  emit_literal$" &&
	# d again: the trees
	tui_keys d && wait_for "! tui_has \"diff vs baseline\"" &&
	tui_keys q && wait_for "test -s rc" 100 && grep -q "exit=0" rc
'

test_expect_success 'd without a baseline says how to give one' '
	test_when_finished tui_stop &&
	tui_start &&
	tui_run "flamepipe report $CAPTURE --tui; echo exit=\$? >rc" &&
	tui_wait "range all: 2390 samples" &&
	tui_keys d && tui_wait "no baseline: start fp-tui with --baseline FILE" &&
	tui_keys q && wait_for "test -s rc" 100 && grep -q "exit=0" rc
'

test_expect_success 'a baseline that cannot be read: a clear error before the terminal is taken' '
	code_is 100 fp-tui --baseline missing.folded </dev/null 2>err &&
	grep -q "^fp-tui: --baseline missing.folded: " err
'

test_done
