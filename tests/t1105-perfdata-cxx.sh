#!/bin/sh
test_description='fp-perfdata: a C++ program, its names demangled as perf script prints them'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-perfdata.sh"
pd_need_perf
command -v g++ >/dev/null 2>&1 || skip_all 'C++ capture' 'g++ is not installed'

pd_cxx_program cx.cc 600 </dev/null

test_expect_success 'C++ capture: same samples, seconds and stacks' '
	pd_build cx.cc -O1 -fno-omit-frame-pointer &&
	pd_record cx.data -g -F 999 -- ./cx &&
	pd_compare cx.data
'

test_expect_success 'the template method is demangled without its parameters, as perf does' '
	fp-perfdata cx.data | awk -F "\t" "\$1 == \"S\"" >s &&
	grep -q ";ns::Box<double>::spin\$" s &&
	grep -q ";work;ns::Box<double>::spin\$" s &&
	! grep -q "_ZN2ns3Box" s
'

test_done
