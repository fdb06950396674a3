#!/bin/sh
test_description='fp-serve is valgrind-clean over a tour of its routes (no invalid access, no definite leak)'
. "$(dirname "$0")/test-lib.sh"
test_tags slow valgrind
. "$TOP/tests/lib-serve.sh"

VG_ERROR=99
F=multiproc.perf.gz

if ! command -v valgrind >/dev/null 2>&1; then
	test_skip 'fp-serve under valgrind' 'valgrind is not installed'
	test_done
fi
if [ -n "${FP_ASAN:-}" ] || grep -q __asan_init "$FP_BIN/fp-serve" 2>/dev/null; then
	test_skip 'fp-serve under valgrind' 'sanitizer build: valgrind runs against bin/ only'
	test_done
fi

mkdir prof && cp "$EXAMPLES/$F" prof/ && mkfifo in.fifo

test_expect_success 'a tour of the routes, live input included, then SIGTERM: exit 0, valgrind silent' '
	{ timeout -k 5 120 valgrind -q --error-exitcode=$VG_ERROR --leak-check=full \
		--errors-for-leak-kinds=definite --show-leak-kinds=definite --log-file=vg.log \
		"$FP_BIN/fp-serve" --dir prof --listen 127.0.0.1:0 --live cap <in.fifo >serve.out 2>serve.err & } &&
	vg_pid=$! && register_pid $vg_pid &&
	exec 9>in.fifo &&
	wait_for "grep -qs \"listening on\" serve.out" 300 &&
	URL=http://127.0.0.1:$(sed -n "s|.*:\([0-9]*\)/\$|\1|p" serve.out) &&
	printf "G\t50\t100\nH\t0\t3\t5\nC\tbegin\tfold\nF\t3\ta;b\nC\tend\tfold\t1\t3\n" >&9 &&
	{ curl -sSN --max-time 60 "$URL/live/events?name=cap" >sse 9>&- & } &&
	test "$(get /profile/)" = 200 &&
	test "$(get "/heatmap/?filename=$F&rows=25")" = 200 &&
	test "$(get "/heatmap/?filename=$F&rows=25&comm=worker2&include=a")" = 200 &&
	jq -e ".filtered == true" body &&
	test "$(get "/flamegraph/?filename=$F&start=1&end=3&comm=mp-crc32")" = 200 &&
	test "$(get "/differential/?filename=$F&end=3&compareFilename=$F&compareStart=3")" = 200 &&
	test "$(get "/elided/?filename=$F&end=3&compareFilename=$F&compareStart=3")" = 200 &&
	test "$(get "/svg/flamegraph?filename=$F&end=3&compareFilename=$F&compareStart=3&diff=1")" = 200 &&
	test "$(get "/svg/heatmap?filename=$F")" = 200 &&
	test "$(get "/folded?filename=$F")" = 200 &&
	test "$(get "/heatmap/?filename=cap")" = 200 &&
	test "$(get "/live/flamegraph?name=cap")" = 200 &&
	test "$(get "/heatmap/?filename=../x")" = 400 &&
	test "$(get "/flamegraph/?filename=$F&include=(")" = 400 &&
	test "$(get /)" = 200 &&
	test "$(post "/upload?filename=u.gz" --data-binary "@$EXAMPLES/$F")" = 201 &&
	test "$(post /upload -F "file=@$EXAMPLES/$F")" = 201 &&
	wait_for "grep -qs \"^event: fold\" sse" 300 &&
	exec 9>&- &&
	wait_for "grep -qs \"^event: end\" sse" 300 &&
	kill -TERM $vg_pid &&
	wait $vg_pid &&
	# valgrind 3.19 does not know openat2 (syscall 437) and says so once;
	# fp-serve then opens files with its O_NOFOLLOW walk (web/safepath.c)
	! grep -v -e "unhandled amd64-linux syscall: 437" -e "write your own handler" \
		-e "README_MISSING_SYSCALL_OR_IOCTL" -e "Nevertheless we consider this a bug" \
		-e "valgrind.org/support/bug_reports" vg.log
'

test_done
