#!/bin/sh
test_description='flamepipe: disk full while writing outputs: an error naming the file, non-zero exit, no half file left as if complete'
. "$(dirname "$0")/test-lib.sh"
test_tags root

T=20
TMPDIR=$TRASH/tmp && export TMPDIR && mkdir -p "$TMPDIR"
no_fifo_dir_left() { test -z "$(ls -A "$TMPDIR")" || { echo "left behind: $(ls -A "$TMPDIR")"; return 1; }; }
CAP=$EXAMPLES/demo-clockloop.perf.gz

mkdir full
if ! mount -t tmpfs -o size=64k tmpfs full 2>/dev/null; then
	test_skip 'disk full tests' 'cannot mount a small tmpfs (needs root)'
	test_done
fi
trap 'umount "$TRASH/full" 2>/dev/null' EXIT

test_expect_success 'reference outputs on a roomy disk' '
	timeout $T flamepipe report "$CAP" -o ref -q && ls ref
'

test_expect_success 'a report that does not fit: the renderer names the file, exit 2, incomplete' '
	timeout $T flamepipe report "$CAP" -o full/out 2>err; rc=$?; cat err;
	test $rc = 2 &&
	grep "^fp-render: .*full/out/[a-z.]*: No space left on device" err &&
	grep "^flamepipe: stage .render. (fp-render) exited with code 111" err &&
	grep "(incomplete: a stage failed)" err &&
	no_fifo_dir_left
'

test_expect_success 'every file left in the output dir is complete; no temporary names' '
	ls -la full/out &&
	for f in full/out/* full/out/.[!.]*; do
		[ -e "$f" ] || continue
		b=$(basename "$f")
		test -f "ref/$b" || { echo "unexpected file $b"; exit 1; }
		cmp "ref/$b" "$f" || { echo "$b differs from the complete one"; exit 1; }
	done
'

test_expect_success 'a disk with no room at all: nothing written, exit non-zero' '
	rm -rf full/out && mkdir full/out &&
	dd if=/dev/zero of=full/filler bs=4k count=64 2>/dev/null;
	timeout $T flamepipe report "$CAP" -o full/out 2>err; rc=$?; cat err;
	test $rc != 0 && grep "No space left on device" err &&
	test -z "$(ls -A full/out)" &&
	no_fifo_dir_left
'

test_expect_success '--dir-file on a full disk: exit 111, no temporary file, no FIFO dir left' '
	timeout $T flamepipe run --input "$CAP" --outdir out2 --dir-file full/dirf 2>err; rc=$?; cat err;
	test $rc = 111 && grep "^flamepipe: cannot write full/dirf: No space left on device" err &&
	test -z "$(ls full | grep -v "^out\$" | grep -v "^filler\$")" &&
	no_fifo_dir_left
'

test_expect_success 'unmount' 'umount "$TRASH/full"'
test_done
