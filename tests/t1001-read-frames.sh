#!/bin/sh
test_description='fp-read: frame names, offsets, [unknown], inlined frames, kinds, tasks'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-read.sh"

# The stack of the Nth S record, one frame per line, leaf first (as perf
# prints it), and its kinds one per line.
frames() { grep "^S	" out | sed -n "${1}p" | cut -f 10 | tr ";" "\n" | tac; }
kinds() { grep "^S	" out | sed -n "${1}p" | cut -f 9 | fold -w 1 | tac; }

test_expect_success 'frames: goldens' '
	read_golden frames
'

test_expect_success 'the +0x offset is removed and C++ operator names stay whole' '
	read_golden frames &&
	frames 1 | head -n 4 >got &&
	printf "%s\n" "operator+=" "operator<" "operator+" "operator()" >expect &&
	test_cmp expect got
'

test_expect_success '(anonymous namespace) and templates with spaces and parentheses are kept' '
	read_golden frames &&
	frames 1 | sed -n "5,8p" >got &&
	cat >expect <<-\EOT &&
	(anonymous namespace)::parse_line
	std::map<int, std::string, std::less<int> >::find(int const&) const
	void std::vector<std::pair<int, int> >::emplace_back<int&, int&>(int&, int&)
	ns::Foo<(ns::Kind)1>::run()
	EOT
	test_cmp expect got
'

test_expect_success 'a name ending in hex digits without +0x keeps them' '
	read_golden frames &&
	frames 1 | grep -qx "lambda_0x12"
'

test_expect_success '[unknown] takes the dso basename; unknown dso stays [unknown]' '
	read_golden frames &&
	frames 2 | head -n 3 >got &&
	printf "%s\n" "[libc.so.6]" "[unknown]" "[libz.so.1.2.13]" >expect &&
	test_cmp expect got &&
	kinds 2 | head -n 3 | tr -d "\n" >k && echo >>k &&
	echo uxu >expect && test_cmp expect k
'

test_expect_success '(inlined) frames are kind i, in order' '
	read_golden frames &&
	frames 2 | sed -n "4,5p" >got &&
	printf "%s\n" inner_helper outer_function >expect &&
	test_cmp expect got &&
	kinds 2 | sed -n "4,5p" | tr -d "\n" >k && echo >>k &&
	echo iu >expect && test_cmp expect k
'

test_expect_success '; in a name becomes :, dso paths with parentheses stay whole' '
	read_golden frames &&
	frames 2 | sed -n "6,9p" >got &&
	printf "%s\n" "a:b" deleted_fn "[libweird.so]" weird_path_fn >expect &&
	test_cmp expect got
'

test_expect_success 'kinds from the dso: kernel, modules, vmlinux, JIT maps, jitdump, inlined, unknown, user' '
	read_golden kinds &&
	frames 1 >f && kinds 1 >k &&
	paste -d " " k f >got &&
	cat >expect <<-\EOT &&
	k do_syscall_64
	k nf_hook_slow
	k ext4_readdir
	k xfs_iread
	k schedule
	k __vdso_clock_gettime
	j Interpreter
	j Lcom/example/Foo:::bar
	u read
	i helper
	x [unknown]
	u JVM_Sleep
	EOT
	test_cmp expect got
'

test_expect_success 'tasks: exited (:-1 -1), comm with a space and pid/tid, comm with / and :' '
	read_golden tasks &&
	grep "^S	" out | cut -f 3,4,5,8 >got &&
	printf "%s\n" "-1	-1	0	:-1" "-1	-1	1	:-1" "5000	5003	1	Web Content" "77	77	0	kworker/u4:2-ev" >expect &&
	test_cmp expect got
'

test_expect_success 'a frame line of spaces (bpftrace style) is a frame too' '
	printf "a 1 1.0: \n    55aa0001 work+0x8 (/x/app)\n    55aa0002 main+0x1 (/x/app)\n\n" >t.perf &&
	read_fields_are 9,10 "uu\tmain;work\n"
'

test_expect_success 'a TAB, CR or control byte inside a name becomes a space' '
	printf "a 1 1.0: \n\t55aa0001 we\001ird\tname+0x8 (/x/app)\n\n" >t.perf &&
	read_fields_are 10 "we ird name\n"
'

test_done
