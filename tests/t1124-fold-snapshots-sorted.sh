#!/bin/sh
test_description='fp-fold keeps its stacks sorted across snapshots: each snapshot is in bytewise order, also with stacks added, reset and re-counted between them'
. "$(dirname "$0")/test-lib.sh"

s() { printf 'S\t%s\t1\t1\t0\t1\tcpu-clock\t%s\tu\t%s\n' "$1" "$2" "$3"; }

test_expect_success 'setup: stacks arriving over four snapshots, a reset between' '
	{
		printf "%%flamepipe\t1\n"
		s 1 app m; s 2 app b; s 3 zed a
		printf "C\tflush\n"
		s 4 app c; s 5 app a; s 6 aaa z; s 7 app b
		printf "C\tflush\n"
		printf "C\treset\n"
		s 8 app m; s 9 mid q
		printf "C\tflush\n"
		awk "BEGIN { for (i = 0; i < 500; i++) printf \"S\t%d\t1\t1\t0\t1\tcpu-clock\tp%03d\tu\tf%d\n\", 10 + i, (i * 37) % 500, i }"
	} >in &&
	fp-fold in >out
'

test_expect_success 'every snapshot is sorted bytewise and counts what was folded since the last reset' '
	awk -F "\t" "/^C	begin	fold/ { n++ } \$1 == \"F\" { print n \"\t\" \$3 \"\t\" \$2 }" out >snaps &&
	for n in 1 2 3 4; do
		awk -F "\t" -v n=$n "\$1 == n { print \$2 }" snaps >got.$n &&
		LC_ALL=C sort got.$n >want.$n && test_cmp want.$n got.$n || return 1
	done &&
	printf "%s\n" "app;b" "app;m" "zed;a" >want && test_cmp want got.1 &&
	printf "%s\n" "aaa;z" "app;a" "app;b" "app;c" "app;m" "zed;a" >want && test_cmp want got.2 &&
	printf "%s\n" "app;m" "mid;q" >want && test_cmp want got.3 &&
	test "$(wc -l <got.4)" = 502 &&
	awk -F "\t" "\$1 == 2 && \$2 == \"app;b\" { print \$3 }" snaps >count && echo 2 >want && test_cmp want count
'

test_expect_success 'a few stacks added to many: each snapshot still sorted, each stack once' '
	{
		awk "BEGIN { for (i = 0; i < 400; i++) printf \"S\t%d\t1\t1\t0\t1\tcpu-clock\tm%03d\tu\tf\n\", i, (i * 7) % 400 }"
		printf "C\tflush\n"
		s 500 a0 f; s 501 m1995 f; s 502 zz f
		printf "C\tflush\n"
		s 503 m200 f; s 504 m2001 f
		printf "C\tflush\n"
		s 505 m000 g; s 506 m399 g; s 507 m3990 f
		printf "C\tflush\n"
	} >few &&
	fp-fold few >few.out &&
	awk -F "\t" "/^C	begin	fold/ { n++ } \$1 == \"F\" { print n \"\t\" \$3 }" few.out >few.snaps &&
	for n in 1 2 3 4; do
		awk -F "\t" -v n=$n "\$1 == n { print \$2 }" few.snaps >few.$n &&
		LC_ALL=C sort -u few.$n >want.$n && test_cmp want.$n few.$n || return 1
	done &&
	test "$(wc -l <few.4)" = 407 &&
	awk -F "\t" "\$1 == \"F\" && \$3 == \"m200;f\" { c = \$2 } END { print c }" few.out >count &&
	echo 2 >want && test_cmp want count
'

test_done
