#!/bin/sh
test_description='fp-render on a full disk: no half file looks complete, exit 111'
. "$(dirname "$0")/test-lib.sh"
test_tags root
. "$TOP/tests/lib-render.sh"

# A 64 KiB tmpfs: the demo capture's heatmap.tsv (50 KB) and stacks.folded
# fit, not every file does (index.html, 100 KB, never). Needs root
# (mount); skipped otherwise. fp-render writes two files at a time, the
# costliest first (render/atomic.h): which ones find room first is up to
# the scheduler, so each file is checked for what it may be.
mkdir full
if ! mount -t tmpfs -o size=64k none full 2>/dev/null; then
	test_skip 'disk full tests' 'cannot mount a tmpfs here (need root)'
	test_done
fi
trap 'umount "$TRASH/full" 2>/dev/null' EXIT

test_expect_success 'the stream of the demo capture, and its files on a roomy disk' '
	fp-read "$EXAMPLES/demo-clockloop.perf.gz" | fp-bucket | fp-fold >demo.stream &&
	fp-render --outdir roomy <demo.stream
'

failed_file() { # the file named in err as not written for want of space
	sed -n "s|^fp-render: write full/out/\([a-z.]*\): No space left on device\$|\1|p" err
}

test_expect_success 'disk full: exit 111 naming a file it could not write, and the reason' '
	expect_exit 111 fp-render --outdir full/out <demo.stream 2>err &&
	test "$(wc -l <err)" = 1 &&
	f=$(failed_file) && test -n "$f" && test -e "roomy/$f" &&
	! test -e "full/out/$f"
'

test_expect_success 'every file left under its final name is complete; no temporary files' '
	ls -A full/out >left &&
	test -s left &&
	! grep "^\\." left &&
	while read f; do cmp "roomy/$f" "full/out/$f" || exit 1; done <left &&
	! test -e full/out/index.html
'

test_expect_success 'an older complete file is kept, not replaced by a partial one' '
	rm -rf full/out && mkdir full/out &&
	for f in $(ls roomy); do echo old >"full/out/$f" || return 1; done &&
	expect_exit 111 fp-render --outdir full/out <demo.stream 2>err &&
	f=$(failed_file) && test -n "$f" &&
	echo old >expect && test_cmp expect "full/out/$f" && test_cmp expect full/out/index.html &&
	for f in $(ls roomy); do
		cmp -s "roomy/$f" "full/out/$f" || test_cmp expect "full/out/$f" || return 1
	done &&
	! ls -A full/out | grep "^\\."
'

test_expect_success 'flamepipe report fails (non-zero) and says which stage' '
	rm -rf full/out &&
	test_must_fail flamepipe report -q "$EXAMPLES/demo-clockloop.perf.gz" -o full/out 2>err &&
	grep -q "No space left on device" err &&
	grep -q "render" err
'

test_expect_success 'live (--interval): a failed rewrite warns and is retried, not fatal' '
	rm -rf full/out &&
	dd if=/dev/zero of=full/filler bs=1k count=56 2>/dev/null &&
	mkfifo in &&
	{ fp-render --outdir full/out --interval 50 --format folded,heatmap-json <in 2>err & echo $! >pid; } &&
	exec 3>in &&
	test_when_finished "exec 3>&-; kill \$(cat pid) 2>/dev/null" &&
	cat demo.stream >&3 &&
	wait_for "grep -q \"trying again\" err" 100 &&
	rm full/filler &&
	wait_for "test -e full/out/heatmap.json" 100 &&
	exec 3>&- &&
	wait "$(cat pid)" &&
	cmp roomy/heatmap.json full/out/heatmap.json
'

test_expect_success 'unmount' '
	umount full
'

test_done
