#!/bin/sh
test_description='fp-perfdata: a C++ program, its names demangled as perf script prints them'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-perfdata.sh"
pd_need_perf
command -v g++ >/dev/null 2>&1 || skip_all 'C++ capture' 'g++ is not installed'

cat >cx.cc <<'CXX'
#include <chrono>
#include <cstdio>
namespace ns {
template <class T> struct Box {
	T v;
	__attribute__((noinline)) T spin(int n) { volatile T s = 0; for (int i = 0; i < n; i++) s += v * i; return s; }
};
}
__attribute__((noinline)) double work(int n) { ns::Box<double> b{1.5}; return b.spin(n); }
int main(int argc, char **argv) {
	auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(600);
	double s = 0;
	while (std::chrono::steady_clock::now() < end) s += work(100000);
	std::printf("%g\n", s);
}
CXX

test_expect_success 'C++ capture: same samples, seconds and stacks' '
	g++ -O1 -g -fno-omit-frame-pointer -o cx cx.cc &&
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
