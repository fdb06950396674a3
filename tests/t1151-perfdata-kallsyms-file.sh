#!/bin/sh
test_description='fp-perfdata --kallsyms FILE: the kernel symbols of a file, its addresses read as strtoull reads hex'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-perfdata.sh"
pd_need_perf

test_expect_success 'a copy of /proc/kallsyms gives what /proc/kallsyms gives' '
	pd_record_kernel sys.data &&
	cat /proc/kallsyms >ks.plain &&
	fp-perfdata -q --kallsyms /proc/kallsyms sys.data >default.s &&
	fp-perfdata -q --kallsyms ks.plain sys.data >plain.s &&
	test_cmp default.s plain.s &&
	awk -F "\t" "\$1 == \"S\" && \$9 ~ /k/" plain.s >kernel.s &&
	test -s kernel.s
'

test_expect_success 'upper-case hex, a 0x prefix, leading spaces and zeros name the same addresses' '
	awk "{ \$1 = toupper(\$1); print }" ks.plain >ks.upper &&
	awk "{ \$1 = \"0x\" \$1; print }" ks.plain >ks.0x &&
	awk "{ \$1 = \"  000\" \$1; print }" ks.plain >ks.pad &&
	for v in upper 0x pad; do
		fp-perfdata -q --kallsyms ks.$v sys.data >$v.s && test_cmp plain.s $v.s || return 1
	done
'

test_expect_success 'lines that are not ADDR TYPE NAME are skipped' '
	{ echo "not a symbol line"; echo "ffffffff81000000"; echo "zz T nothex"; cat ks.plain; } >ks.junk &&
	fp-perfdata -q --kallsyms ks.junk sys.data >junk.s &&
	test_cmp plain.s junk.s
'

test_done
