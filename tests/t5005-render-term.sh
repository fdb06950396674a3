#!/bin/sh
test_description='fp-render --term: the heatmap on a terminal'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-render.sh"
D=$DATA/render
ESC=$(printf '\033')

# term.heat: rows=10; cells (0,0)=2 (0,9)=1 (3,5)=8 (12,2)=4. In 12 lines the
# 10 rows are drawn in pairs (200 ms per line); 8 is the largest: '@'.
test_expect_success 'plain output golden (not a tty: characters only, drawn once)' '
	fp-render --term --term-size 40x12 <"$D/term.heat" >out &&
	test_cmp "$D/term-40x12.txt" out &&
	! grep -q "$ESC" out
'

test_expect_success 'NO_COLOR and --term=plain give the same plain text' '
	NO_COLOR=1 fp-render --term --term-size 40x12 <"$D/term.heat" >nc &&
	test_cmp out nc &&
	fp-render --term=plain --term-size 40x12 <"$D/term.heat" >pl &&
	test_cmp out pl
'

test_expect_success 'no line is wider than the terminal' '
	for w in 32 40 57 80; do
		fp-render --term --term-size ${w}x12 <"$D/term.heat" >w.out &&
		awk -v w=$w "length(\$0) > w { exit 1 }" w.out || return 1
	done
'

test_expect_success 'a narrow terminal shows the newest seconds' '
	awk "BEGIN { print \"G\\t10\\t0\"; for (c = 0; c < 100; c++) print \"H\\t\" c \"\\t0\\t\" (c + 1) }" >wide.heat &&
	fp-render --term --term-size 40x12 <wide.heat >narrow &&
	grep -q "67..99 s" narrow &&
	tail -n 1 narrow | grep -q "^         70        80        90 *\$" &&
	grep "^   0ms " narrow | grep -q "@\$"
'

test_expect_success '--term=color: 256-colour cells, truecolor with COLORTERM' '
	fp-render --term=color --term-size 40x12 <"$D/term.heat" >c256 &&
	grep -q "$ESC\[48;5;" c256 &&
	COLORTERM=truecolor fp-render --term=color --term-size 40x12 <"$D/term.heat" >ctrue &&
	grep -q "$ESC\[48;2;255;0;0m" ctrue &&
	grep -q "$ESC\[0m" ctrue
'

test_expect_success '--term with --outdir: both the files and the picture' '
	fp-render --term --term-size 40x12 --outdir both <"$D/term.heat" >pic &&
	test_cmp "$D/term-40x12.txt" pic &&
	test -s both/heatmap.tsv
'

# A real terminal through script(1): redrawn in place, at most FP_TERM_FPS
# times a second, each frame starting at the cursor home position.
if command -v script >/dev/null 2>&1; then
test_expect_success 'on a tty: redrawn in place as cells arrive (home, clear to end of line)' '
	mkfifo in &&
	{ NO_COLOR=1 script -qfec "fp-render --term --term-size 40x10 <in" /dev/null \
		</dev/null >tty.out 2>&1 & echo $! >pid; } &&
	exec 3>in &&
	printf "G\\t10\\t100\\nH\\t0\\t0\\t5\\n" >&3 &&
	wait_for "grep -q \"   0ms @\" tty.out" 50 &&
	awk "BEGIN { for (i = 1; i < 300; i++) printf \"H\\t%d\\t0\\t5\\n\", i % 30 }" >&3 &&
	wait_for "grep -q \"   0ms @@@\" tty.out" 50 &&
	exec 3>&- &&
	wait "$(cat pid)" &&
	test "$(grep -c "${ESC}\[2J" tty.out)" = 1 &&
	frames=$(grep -o "${ESC}\[H" tty.out | wc -l) &&
	test "$frames" -ge 2 && test "$frames" -lt 100 &&
	grep -q "${ESC}\[K" tty.out &&
	grep -q "${ESC}\[?25l" tty.out && grep -q "${ESC}\[?25h" tty.out &&
	! grep -q "${ESC}\[4[0-9]" tty.out
'
else
	test_skip 'on a tty: redrawn in place' 'script(1) not installed'
fi

test_done
