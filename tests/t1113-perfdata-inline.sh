#!/bin/sh
test_description='fp-perfdata --inline: inlined functions as perf script --inline shows them (libdw)'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-perfdata.sh"
pd_need_perf

pd_inline_program inl.c

test_expect_success 'setup: a C program with two levels of inlined functions, recorded with dwarf and with frame pointers' '
	pd_build inl.c &&
	pd_record_dwarf dw.data ./inl &&
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
	pd_cxx_program cx.cc 600 </dev/null &&
	pd_build cx.cc &&
	pd_record_dwarf cx.data ./cx &&
	PD_SCRIPT_OPTS=--inline PD_PERFDATA_OPTS=--inline pd_compare cx.data 0.99 &&
	fp-perfdata --inline cx.data | grep -q ";ns::Box<double>::spin;ns::Box<double>::step\$"
'

test_expect_success 'C++ functions that are not inlined keep their linkage names and kind u with --inline (anonymous namespace, std::function, lambdas)' '
	if ! command -v g++ >/dev/null 2>&1; then echo "no g++: skipped"; exit 0; fi &&
	# GCC writes no DW_AT_linkage_name for members of a class in an
	# anonymous namespace nor for std::function'"'"'s _M_invoke: addr2line
	# names them by their symbol, which perf shows as the frame itself
	cat >anon.cc <<-\CXX &&
	#include <cstdio>
	#include <ctime>
	#include <functional>
	namespace ns {
	namespace {
	template <class T, int N> struct Box {
		T v;
		inline T step(int i) const { return v * i + N; }
		__attribute__((noinline)) T spin(int n) { volatile T s = 0; for (int i = 0; i < n; i++) s += step(i); return s; }
	};
	}
	}
	__attribute__((noinline)) double call(const std::function<double(int)> &f, int n) { return f(n); }
	__attribute__((noinline)) double work(int n) {
		ns::Box<double, 24> b{1.5};
		std::function<double(int)> f = [&b](int k) { return b.spin(k) * 0.5 + 1.0; };
		auto g = [&f](int k) { return call(f, k); };
		return g(n);
	}
	int main() {
		std::clock_t end = std::clock() + 500 * (CLOCKS_PER_SEC / 1000);
		time_t wall_end = time(0) + 10;
		double s = 0;
		while (std::clock() < end && time(0) <= wall_end) s += work(100000);
		std::printf("%g\n", s);
	}
	CXX
	pd_build anon.cc &&
	pd_record_dwarf anon.data ./anon &&
	PD_SCRIPT_OPTS=--inline PD_PERFDATA_OPTS=--inline pd_compare anon.data 0.999 &&
	# the real frames by their full names, of kind u; the leaf never the
	# bare DWARF name (perf shows spin inlined into itself at addresses
	# BFD met before it renamed the function: that is not the leaf)
	awk -F "\t" "\$1 == \"S\" {
		n = split(\$10, f, \";\")
		for (i = 1; i <= n; i++)
			if (f[i] ~ /^(ns::\(anonymous namespace\)::Box<double, 24>::spin|std::_Function_handler<double \(int\), work\(int\)::{lambda\(int\)#1}>::_M_invoke)\$/)
				real[f[i] \" \" substr(\$9, i, 1)]++
		if (f[n] == \"spin\" || f[n] == \"_M_invoke\") bare++
	} END {
		for (r in real) print r, real[r]
		print \"bare leaves\", bare + 0
	}" got.s >real && cat real &&
	grep -q "^ns::(anonymous namespace)::Box<double, 24>::spin u [1-9]" real &&
	grep -q "^std::_Function_handler<double (int), work(int)::{lambda(int)#1}>::_M_invoke u [1-9]" real &&
	! grep -q " i [0-9]" real && grep -q "^bare leaves 0\$" real
'

test_done
