#!/bin/sh
test_description='fp-perfdata: --call-graph dwarf of a C++ program (libstdc++ frames, templates), unwound and demangled as perf script shows them'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-perfdata.sh"
pd_need_perf
command -v g++ >/dev/null 2>&1 || skip_all 'C++ dwarf capture' 'g++ is not installed'

# -O2 without frame pointers: only the dwarf unwinder finds the callers.
pd_cxx_program cx.cc 800 's += mapper(2000)' <<'CXX'
#include <map>
#include <string>
#include <vector>
__attribute__((noinline)) size_t mapper(int n) {
	std::map<std::string, std::vector<int>> m;
	for (int i = 0; i < n; i++) m[std::to_string(i % 97)].push_back(i);
	return m.size();
}
CXX

test_expect_success 'setup: a dwarf capture of a C++ program built without frame pointers' '
	pd_build cx.cc -fomit-frame-pointer &&
	pd_record_dwarf cx.data ./cx
'

test_expect_success 'C++ dwarf: same samples and seconds, folded agreement >= 0.99' '
	pd_compare cx.data 0.99
'

test_expect_success 'the template method is reached through main and work, demangled without parameters' '
	fp-perfdata cx.data >out &&
	grep -q "	_start;__libc_start_main[^;]*;__libc_start_call_main;main;work;ns::Box<double>::spin\$" out &&
	grep -q ";main;mapper;std::" out &&
	! grep -q "_ZN2ns3Box" out
'

test_done
