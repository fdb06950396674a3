#!/bin/sh
test_description='fp-perfdata: --call-graph dwarf of a C++ program (libstdc++ frames, templates), unwound and demangled as perf script shows them'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-perfdata.sh"
pd_need_perf
command -v g++ >/dev/null 2>&1 || skip_all 'C++ dwarf capture' 'g++ is not installed'

# -O2 without frame pointers: only the dwarf unwinder finds the callers.
cat >cx.cc <<'CXX'
#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <vector>
namespace ns {
template <class T> struct Box {
	T v;
	inline T step(int i) const { return v * i; }
	__attribute__((noinline)) T spin(int n) { volatile T s = 0; for (int i = 0; i < n; i++) s += step(i); return s; }
};
}
__attribute__((noinline)) double work(int n) { ns::Box<double> b{1.5}; return b.spin(n); }
__attribute__((noinline)) size_t mapper(int n) {
	std::map<std::string, std::vector<int>> m;
	for (int i = 0; i < n; i++) m[std::to_string(i % 97)].push_back(i);
	return m.size();
}
int main() {
	auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(800);
	double s = 0;
	while (std::chrono::steady_clock::now() < end) { s += work(100000); s += mapper(2000); }
	std::printf("%g\n", s);
}
CXX

test_expect_success 'setup: a dwarf capture of a C++ program built without frame pointers' '
	g++ -O2 -g -fomit-frame-pointer -o cx cx.cc &&
	pd_record cx.data --call-graph dwarf -F 499 -- ./cx
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
