#!/bin/sh
test_description='fp-serve: a heatmap whose chain fails after fp-bucket listed its events frees that list (no leak under LeakSanitizer, or valgrind on a plain build)'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-serve.sh"

# Two samples 5e9 s apart: fp-bucket writes its cells and its I
# bucket-event record, then fp-serve refuses the column past 2^32 s: the
# failing-heatmap path, with an event list already built (issue 23).
mkdir prof &&
printf "a 1 [000] 1.000000: 1 cpu-clock: \n\t1 f (/x)\n\nb 1 [000] 5000000000.000000: 1 cpu-clock: \n\t1 g (/x)\n\n" \
	>prof/far.perf || exit 1

if grep -q __asan_init "$FP_BIN/fp-serve" 2>/dev/null; then
	how=asan
	run() { ASAN_OPTIONS=detect_leaks=1:exitcode=99 exec "$FP_BIN/fp-serve" "$@"; }
elif command -v valgrind >/dev/null 2>&1; then
	how=valgrind
	run() { exec valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
		--show-leak-kinds=definite "$FP_BIN/fp-serve" "$@"; }
else
	test_skip "$test_name" 'neither a sanitizer build nor valgrind'
	test_done
fi

test_expect_success "failing heatmaps (whole and filtered), then SIGTERM: exit 0, no leak ($how)" '
	user=; [ "$(id -u)" != 0 ] || user="--user root" &&
	{ run --dir prof --listen 127.0.0.1:0 $user >serve.out 2>serve.err & } &&
	pid=$! && register_pid $pid &&
	wait_for "grep -qs \"listening on\" serve.out" 300 &&
	URL=http://127.0.0.1:$(sed -n "s|.*:\([0-9]*\)/\$|\1|p" serve.out) &&
	for rows in 10 20 50; do
		test "$(get "/heatmap/?filename=far.perf&rows=$rows")" = 422 &&
		jq -e ".error | test(\"heatmap column past\")" body &&
		test "$(get "/heatmap/?filename=far.perf&rows=$rows&comm=a")" = 422 || return 1
	done &&
	kill -TERM $pid && { wait $pid; rc=$?; } &&
	cat serve.err &&
	test $rc = 0 &&
	! grep -q "LeakSanitizer\|definitely lost" serve.err
'

test_done
