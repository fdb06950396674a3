#!/bin/sh
test_description='fp-fold --kernel/--jit/--all annotate frames by kind'
. "$(dirname "$0")/test-lib.sh"
D=$DATA/fold

# Golden files checked by hand and against stackcollapse-perf.pl with the
# same option (frames of kind k had dso [kernel.kallsyms], j /tmp/perf-N.map,
# i "inlined", x [unknown]).
for opt in none kernel jit all; do
	test_expect_success "annotations with ${opt}" "
		if test $opt = none; then fp-fold --plain \"\$D/annotate.S\" >out; \
		else fp-fold --plain --$opt \"\$D/annotate.S\" >out; fi &&
		test_cmp \"\$D/annotate.$opt.folded\" out
	"
done

# (issue 14 #7: --all left them bare, so the API never said libtype inlined)
test_expect_success 'perf inlined frames (kind i) get _[i] with --all; unknown dsos (x) never' '
	fp-fold --plain --all "$D/annotate.S" >out &&
	grep -qxF "app;main;caller;inlined_callee_[i] 1" out &&
	grep -qxF "app;main;[unknown];leaf 1" out
'

test_expect_success 'precedence: the inner parts of a->b are _[i] even in kernel and JIT frames' '
	grep -qxF "app;main;kfunc_[k];kinl_[i] 1" out &&
	grep -qxF "app;main;jfunc_[j];jinl_[i];jinl2_[i] 1" out
'

test_expect_success 'a JIT name already ending in _[j] is not annotated twice' '
	grep -qxF "app;main;Interpreter_[j];LFoo:.bar_[j] 1" out
'

test_done
