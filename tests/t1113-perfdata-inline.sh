#!/bin/sh
test_description='fp-perfdata --inline: inlined functions as perf script --inline shows them (libdw)'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-perfdata.sh"
pd_need_perf

pd_c_program inl.c 'outer()' <<'CC'
static inline __attribute__((always_inline)) void inner(int n) { for (int i = 0; i < n; i++) sink += i; }
static inline __attribute__((always_inline)) void middle(int n) { inner(n); sink++; }
__attribute__((noinline)) void outer(void) { middle(100000); }
CC

test_expect_success 'setup: a C program with two levels of inlined functions, recorded with dwarf and with frame pointers' '
	cc -O2 -g -o inl inl.c &&
	pd_record dw.data --call-graph dwarf -F 499 -- ./inl &&
	pd_record fp.data -g -F 499 -- ./inl
'

test_expect_success '--inline agrees with perf script --inline: same samples and seconds, folded agreement >= 0.99' '
	PD_SCRIPT_OPTS=--inline PD_PERFDATA_OPTS=--inline pd_compare dw.data 0.99
'

test_expect_success 'the inlined functions are frames of kind i under the function they were inlined into' '
	fp-perfdata --inline dw.data >out &&
	grep -q "	u[ui]uuuii	_start;__libc_start_main[^;]*;__libc_start_call_main;main;outer;middle;inner\$" out &&
	fp-fold --all --plain <out >folded &&
	grep -q ";outer;middle_\[i\];inner_\[i\] " folded
'

test_expect_success 'without --inline the same recording has no inlined frames (perf script --no-inline)' '
	fp-perfdata dw.data >plain &&
	! grep -q "	[uk]*i[uki]*	" plain &&
	grep -q ";main;outer\$" plain
'

test_expect_success 'a frame-pointer callchain gets no inlined frames, as perf 6.1 shows it' '
	PD_SCRIPT_OPTS=--inline PD_PERFDATA_OPTS=--inline pd_compare fp.data 0.99 &&
	fp-perfdata --inline fp.data >fpout && ! grep -q "	[uk]*i[uki]*	" fpout
'

test_expect_success 'a C++ dwarf capture: inlined template methods agree with perf script --inline' '
	if ! command -v g++ >/dev/null 2>&1; then echo "no g++: skipped"; exit 0; fi &&
	cat >cx.cc <<-\CXX &&
	#include <chrono>
	#include <cstdio>
	namespace ns {
	template <class T> struct Box {
		T v;
		inline T step(int i) const { return v * i; }
		__attribute__((noinline)) T spin(int n) { volatile T s = 0; for (int i = 0; i < n; i++) s += step(i); return s; }
	};
	}
	int main() {
		auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(600);
		ns::Box<double> b{1.5};
		double s = 0;
		while (std::chrono::steady_clock::now() < end) s += b.spin(100000);
		std::printf("%g\n", s);
	}
	CXX
	g++ -O2 -g -o cx cx.cc &&
	pd_record cx.data --call-graph dwarf -F 499 -- ./cx &&
	PD_SCRIPT_OPTS=--inline PD_PERFDATA_OPTS=--inline pd_compare cx.data 0.99 &&
	fp-perfdata --inline cx.data | grep -q ";ns::Box<double>::spin;ns::Box<double>::step\$"
'

test_done
