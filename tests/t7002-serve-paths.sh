#!/bin/sh
test_description='fp-serve: no request reads a file outside DIR'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-serve.sh"

F=multiproc.perf.gz
mkdir -p prof/sub outside &&
cp "$EXAMPLES/$F" prof/ &&
cp "$EXAMPLES/$F" outside/secret.perf.gz &&
cp "$EXAMPLES/$F" prof/.hidden.perf.gz &&
ln -s ../outside/secret.perf.gz prof/link-out.perf.gz &&
ln -s "$TRASH/outside" prof/dir-out &&
ln -s "$F" prof/link-in.perf.gz &&
start_server prof || exit 1

# refused PATH-AND-QUERY: 4xx with a JSON error
refused() {
	code=$(get "$1") &&
	json_error_ok "$code" || { echo "for $1" >&2; return 1; }
}

for route in heatmap flamegraph; do
test_expect_success "/$route/: ../ in every spelling is refused" '
	refused "/$route/?filename=../outside/secret.perf.gz" &&
	refused "/$route/?filename=sub/../../outside/secret.perf.gz" &&
	refused "/$route/?filename=%2e%2e/outside/secret.perf.gz" &&
	refused "/$route/?filename=%2E%2E%2Foutside%2Fsecret.perf.gz" &&
	refused "/$route/?filename=..%2foutside%2fsecret.perf.gz" &&
	refused "/$route/?filename=..%5coutside%5csecret.perf.gz" &&
	refused "/$route/?filename=sub/..%2f$F" &&
	refused "/$route/?filename=./$F" &&
	refused "/$route/?filename=sub//..//$F"
'
done

test_expect_success 'absolute paths are refused' '
	refused "/heatmap/?filename=/etc/passwd" &&
	refused "/heatmap/?filename=%2fetc%2fpasswd" &&
	refused "/heatmap/?filename=$TRASH/outside/secret.perf.gz" &&
	refused "/heatmap/?filename=$TRASH/prof/$F"
'

test_expect_success 'NUL and control characters are refused' '
	refused "/heatmap/?filename=$F%00.txt" &&
	refused "/heatmap/?filename=$F%0a" &&
	refused "/heatmap/?filename=%00"
'

test_expect_success 'a symlink out of DIR is refused and not listed' '
	refused "/heatmap/?filename=link-out.perf.gz" &&
	refused "/heatmap/?filename=dir-out/secret.perf.gz" &&
	test "$(get /profile/)" = 200 &&
	! grep -q secret body &&
	! grep -q link-out body
'

test_expect_success 'a symlink inside DIR is not followed either (race-free open: no symlink at all) and not listed' '
	refused "/heatmap/?filename=link-in.perf.gz" &&
	test "$(get /profile/)" = 200 &&
	! jq -e "any(.[]; .filename == \"link-in.perf.gz\")" body &&
	jq -e "any(.[]; .filename == \"$F\")" body
'

test_expect_success 'hidden files are neither listed nor opened' '
	refused "/heatmap/?filename=.hidden.perf.gz" &&
	test "$(get /profile/)" = 200 &&
	! grep -q hidden body
'

test_expect_success 'a directory is not a file' '
	refused "/heatmap/?filename=sub"
'

test_expect_success 'path tricks on the UI routes give 404, never a file' '
	code=$(get "/ui/../../../etc/passwd") && test "$code" = 404 &&
	code=$(get "/ui/%2e%2e/%2e%2e/etc/passwd") && test "$code" = 404 &&
	code=$(get "/../../etc/passwd") && ! grep -q "root:" body &&
	code=$(get "/%2e%2e/%2e%2e/etc/passwd") && ! grep -q "root:" body
'

test_expect_success 'no response ever contained the outside file' '
	test "$(get "/folded?filename=link-out.perf.gz")" != 200
'

test_done
