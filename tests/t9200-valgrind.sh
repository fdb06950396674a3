#!/bin/sh
test_description='every stage is valgrind-clean on a bundled capture (no invalid access, no definite leak)'
. "$(dirname "$0")/test-lib.sh"
test_tags slow valgrind

# A cut-down capture keeps this fast under valgrind (about 20x slower):
# the first 300 samples of examples/demo-clockloop.perf.gz.
SAMPLES=300
# 99: a valgrind error; the stage's own codes stay 0/1/100/111.
VG_ERROR=99
LIMIT=120

if ! command -v valgrind >/dev/null 2>&1; then
	test_skip 'valgrind checks' 'valgrind is not installed (tools/install-deps.sh installs it)'
	test_done
fi
if [ -n "${FP_ASAN:-}" ]; then
	# ASan and valgrind cannot share a process; the normal build is checked.
	test_skip 'valgrind checks' 'sanitizer build: valgrind runs against bin/ only'
	test_done
fi

# vg NAME STAGE [ARG]...: runs the stage under valgrind (stdin inherited)
# into NAME.out; fails on a valgrind error, a leak, a crash or a hang, and
# shows valgrind's report.
vg() {
	_name=$1
	shift
	timeout -k 5 $LIMIT valgrind -q --error-exitcode=$VG_ERROR --leak-check=full \
		--errors-for-leak-kinds=definite --show-leak-kinds=definite \
		--log-file="$_name.vg" "$@" >"$_name.out" 2>"$_name.err"
	_rc=$?
	if [ $_rc -ne 0 ]; then
		echo "valgrind $*: exit $_rc" >&2
		head -c 4000 "$_name.vg" >&2
		head -c 1000 "$_name.err" >&2
		return 1
	fi
	# -q: valgrind writes nothing unless it found something.
	if [ -s "$_name.vg" ]; then
		cat "$_name.vg" >&2
		return 1
	fi
}

test_expect_success 'setup: the first 300 samples of the demo capture' '
	zcat "$EXAMPLES/demo-clockloop.perf.gz" |
		awk -v max=$SAMPLES "!/^[#\t]/ && !/^[ ]*\$/ { if (++n > max) exit } { print }" >cap.perf &&
	test "$(awk_count_samples cap.perf)" = $SAMPLES &&
	gzip -c cap.perf >cap.perf.gz
' || true

test_expect_success 'fp-read (plain and gzip) is valgrind-clean' '
	vg read fp-read cap.perf &&
	grep -q "^I	read	.*samples=$SAMPLES	" read.out &&
	vg readgz fp-read cap.perf.gz &&
	grep -v "^I" read.out >plain.S && grep -v "^I" readgz.out >gz.S &&
	test_cmp plain.S gz.S
'

test_expect_success 'fp-bucket is valgrind-clean' '
	fp-read cap.perf >read.S &&
	vg bucket fp-bucket --rows 50 <read.S &&
	grep -q "^I	bucket	samples=$SAMPLES	" bucket.out
'

test_expect_success 'fp-range (range and regex filters) is valgrind-clean' '
	fp-read cap.perf | fp-bucket >bucket.S &&
	vg range fp-range --from 0 --to 3 --include "syscall|clock" --exclude "^x" <bucket.S &&
	grep -q "^I	range	" range.out
'

test_expect_success 'fp-fold is valgrind-clean' '
	fp-read cap.perf | fp-bucket --keep-idle | fp-range >range.S &&
	vg fold fp-fold --weight period <range.S &&
	grep -q "^C	end	fold	" fold.out
'

if command -v fp-render >/dev/null 2>&1; then
	test_expect_success 'fp-render is valgrind-clean' '
		fp-read cap.perf | fp-bucket | fp-range | fp-fold >fold.S &&
		mkdir out &&
		vg render fp-render --outdir out <fold.S &&
		test -n "$(ls out)"
	'
else
	test_skip 'fp-render is valgrind-clean' 'bin/fp-render is not built yet'
fi

test_expect_success 'fp-latency (event text, perf text, TSV) is valgrind-clean' '
	vg lat fp-latency --pair io=open,close --tsv rows.tsv "$DATA/latency/pairs.events" &&
	grep -q "^io	4	" lat.out &&
	test $(wc -l <rows.tsv) = 5 &&
	vg latperf fp-latency --pair p=cpu-clock:ppp,cpu-clock:ppp cap.perf.gz &&
	grep -q "^# fp-latency final: " latperf.out
'

test_expect_success 'fp-bpftrace is valgrind-clean' '
	vg bt fp-bpftrace "$DATA/bpftrace/profile-60.bt.txt" &&
	fp-read bt.out >bt.S &&
	grep -q "^I	read	.*samples=60	.*bad_lines=0	" bt.S
'

test_done
