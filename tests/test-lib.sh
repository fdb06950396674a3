# shellcheck shell=sh
# tests/test-lib.sh: a minimal git-style test library (TAP output).
#
# A test script:
#	#!/bin/sh
#	test_description='fp-fold folds stacks'
#	. "$(dirname "$0")/test-lib.sh"
#	test_expect_success 'one sample gives one line' '
#		printf "S\t1\t..." | fp-fold >out &&
#		test_cmp expect out
#	'
#	test_done
#
# Each script runs in its own trash directory ($TRASH), removed on success.
# FP_TEST_TIMES=1 prints each passing test's wall time ("# 1.23 s").
# $FP_BIN (default bin/) is put first on PATH, so the same script tests the
# normal and the sanitizer build. $TOP is the repository, $DATA tests/data.
# On failure the test prints its body, so it can be reproduced by hand.

TOP=$(cd "$(dirname "$0")/.." && pwd)
DATA=$TOP/tests/data
EXAMPLES=$TOP/examples
FP_BIN=${FP_BIN:-$TOP/bin}
case $FP_BIN in /*) ;; *) FP_BIN=$TOP/$FP_BIN ;; esac
PATH=$FP_BIN:$TOP/tests/bin:$PATH
export TOP DATA EXAMPLES FP_BIN PATH
# The helper programs of the tests (tests/helper/*.c, built by make tests):
# the ASan build's for the ASan suite.
HELPERS=$TOP/${FP_BUILD:-build}/tests
[ -n "${FP_ASAN:-}" ] && HELPERS=$TOP/build-asan/tests
# Sanitizer builds: fail the test on the first report.
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

test_name=$(basename "$0" .sh)
TRASH=${TMPDIR:-/tmp}/fp-trash.$test_name.$$
rm -rf "$TRASH" && mkdir -p "$TRASH" || exit 1
cd "$TRASH" || exit 1

test_count=0
test_failed=0
test_skipped=0
test_cleanup=:

say() { printf '%s\n' "$*"; }

test_when_finished() {
	test_cleanup="{ $*
	} ; $test_cleanup"
}

_run_test() {
	test_cleanup=:
	# test_when_finished runs inside the subshell, so its cleanups live
	# there too: an EXIT trap runs them whatever way the body ends.
	( trap 'eval "$test_cleanup" >/dev/null 2>&1' EXIT; eval "$1" ) >"$TRASH/.out" 2>&1
}

test_expect_success() {
	test_count=$((test_count + 1))
	if [ -n "${FP_TEST_FILTER:-}" ] && ! echo "$1" | grep -q -- "$FP_TEST_FILTER"; then
		say "ok $test_count - $1 # skip filtered"; test_skipped=$((test_skipped + 1)); return 0
	fi
	[ -n "${FP_TEST_TIMES:-}" ] && _t0=$(date +%s.%N)
	if _run_test "$2"; then
		say "ok $test_count - $1"
		[ -n "${FP_TEST_TIMES:-}" ] && say "# $(echo "$_t0 $(date +%s.%N)" | awk '{ printf "%.2f", $2 - $1 }') s"
	else
		test_failed=$((test_failed + 1))
		say "not ok $test_count - $1"
		say "# in $TRASH, the test was:"
		printf '%s\n' "$2" | sed 's/^/#	/'
		say "# its output:"
		tail -n 40 "$TRASH/.out" | cut -c1-300 | sed 's/^/#   /'
	fi
}

test_expect_failure() {
	# A known bug: the body must fail.
	test_count=$((test_count + 1))
	if _run_test "$2"; then
		say "ok $test_count - $1 # TODO known breakage vanished"
	else
		say "not ok $test_count - $1 # TODO known breakage"
	fi
}

test_skip() {
	test_count=$((test_count + 1)); test_skipped=$((test_skipped + 1))
	say "ok $test_count - $1 # skip $2"
}

# Tags: a script whose tests need root, perf, bpftrace, tmux (a terminal to
# drive: the TUI tests), or that is slow (valgrind), says so right after sourcing this file:
#	test_tags root perf
# FP_SKIP=root,perf,bpftrace,slow,browser (comma-separated) then skips it
# whole, and so does a tag whose need is not met here (root: not uid 0;
# perf, bpftrace: not installed). test_have TAG asks the same for one test.
_tag_missing() { # tag -> prints why it cannot run, or nothing
	case ",${FP_SKIP:-}," in *",$1,"*) echo "FP_SKIP=$FP_SKIP"; return ;; esac
	case $1 in
	root) [ "$(id -u)" = 0 ] || echo "needs root" ;;
	perf|bpftrace|valgrind|tmux|strace) command -v "$1" >/dev/null 2>&1 || echo "$1 is not installed (tools/install-deps.sh)" ;;
	esac
}
# The script cannot run here: one skipped test that says why, then exit.
skip_all() { # WHAT WHY
	test_skip "$1" "$2"
	test_done
}

# need_perf_sampling WHAT: skip_all unless perf is installed and may open
# system-wide events here (root, or perf_event_paranoid low enough).
need_perf_sampling() {
	command -v perf >/dev/null 2>&1 || skip_all "$1" 'perf is not installed'
	perf stat -a -e cpu-clock -- true >/dev/null 2>perf.err ||
		skip_all "$1" "perf_event_open refused: $(head -n 1 perf.err)"
}

# need_capture WHAT FUNCTION: skip_all unless perf is installed and
# FUNCTION (the script's perf record | perf script capture, which leaves
# record.err and script.err) succeeds; a failed capture's errors are shown.
need_capture() {
	command -v perf >/dev/null 2>&1 || skip_all "$1" 'perf is not installed'
	if ! "$2"; then
		# a machine where perf cannot sample (not root, perf_event_paranoid)
		cat record.err script.err >&2
		skip_all "$1" "perf record failed: $(head -n 1 record.err)"
	fi
}

# need_bpftrace WHAT: skip_all unless bpftrace is installed, runs as root
# and the kernel loads a BPF program (BPF maps count against
# RLIMIT_MEMLOCK on kernels before 5.11: the limit is lifted first).
need_bpftrace() {
	[ "$(id -u)" = 0 ] || skip_all "$1" 'bpftrace needs root'
	command -v bpftrace >/dev/null 2>&1 || skip_all "$1" 'bpftrace is not installed (tools/install-deps.sh)'
	# shellcheck disable=SC3045  # dash has ulimit -l
	ulimit -l unlimited 2>/dev/null || true
	timeout 30 bpftrace -q -e 'BEGIN { exit(); }' >bpf.out 2>bpf.err ||
		skip_all "$1" "the kernel refuses BPF: $(grep -v RLIMIT_MEMLOCK bpf.err | head -n 1)"
}

test_have() { # TAG...: every tag may run here
	for _t in "$@"; do [ -z "$(_tag_missing "$_t")" ] || return 1; done
}
test_tags() { # TAG...
	for _t in "$@"; do
		_why=$(_tag_missing "$_t")
		[ -z "$_why" ] && continue
		test_skip "$test_name" "tagged $_t: $_why"
		test_done
	done
}

# Compare expected and actual output; show a diff on mismatch.
test_cmp() {
	diff -u "$1" "$2"
}

# A golden output: CMD (its stdin is the caller's) writes exactly EXPECT;
# the output stays in ./out for further checks.
#	test_golden "$D/root.comm.folded" fp-fold --plain "$D/root.S"
test_golden() { # EXPECT CMD...
	_expect=$1; shift
	"$@" >out && test_cmp "$_expect" out
}

# Assert that a command fails (non-zero, not a crash by signal).
test_must_fail() {
	"$@"
	_rc=$?
	if [ $_rc -eq 0 ]; then echo "test_must_fail: '$*' succeeded" >&2; return 1; fi
	if [ $_rc -gt 128 ] && [ $_rc -ne 141 ]; then echo "test_must_fail: '$*' died by signal $((_rc - 128))" >&2; return 1; fi
	return 0
}

# Poll a shell condition with bounded retries (never a fixed sleep):
#	wait_for 'test -s out' 50   # up to 50 x 0.1 s
wait_for() {
	_i=0
	while ! eval "$1"; do
		_i=$((_i + 1))
		[ $_i -ge "${2:-100}" ] && { echo "wait_for: timed out: $1" >&2; return 1; }
		sleep 0.1
	done
}

# end_live PID: ends a flamepipe live session as a user does and returns
# its exit code: Ctrl-C, and with a web view (whose first Ctrl-C ends the
# capture only, docs/live.md "Stopping") Ctrl-C again once only the web
# server is left.
end_live() {
	kill -INT "$1" 2>/dev/null
	wait_for "! kill -0 $1 2>/dev/null || ! ps -o comm= --ppid $1 | grep -v fp-watchdog | grep -qv fp-serve" 600
	kill -INT "$1" 2>/dev/null
	wait "$1"
}

# An independent sample count over raw perf script text (plain or gzip):
# a sample header is a non-empty line that is not indented and not '#'.
awk_count_samples() {
	# (custom -F lists right-align the comm, so event lines may start with
	# spaces; frame lines always start with a TAB)
	zcat -f "$1" | tr -d '\r' | awk '!/^\t/ && !/^#/ && !/^[ ]*$/ && !/PERF_RECORD_/ { n++ } END { print n+0 }'
}

test_done() {
	say "1..$test_count"
	say "# $test_name: $((test_count - test_failed)) passed, $test_failed failed, $test_skipped skipped"
	if [ $test_failed -eq 0 ]; then
		cd / && rm -rf "$TRASH"
		exit 0
	fi
	exit 1
}
