#!/bin/sh
test_description='fp-serve makes a capture'"'"'s /flamegraph/ tree (and /threads/, /flamechart/) once per selection for every viewer: the others wait for it and get the same bytes (Server-Timing says who made it), a client without gzip gets it inflated, a changed capture gets a new tree, a failure reaches every viewer and the next request tries again'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-serve.sh"

# 60,000 samples of 5,000 stacks: a tree that takes a while to make, so
# viewers asking at once overlap its making
mkdir prof &&
sh "$TOP/tests/mk-long-capture.sh" 300 200 5000 >prof/cap.perf &&
printf 'this is not perf script text\n' >prof/bad.perf &&
start_server prof || exit 1
TREE="/flamegraph/?filename=cap.perf&start=3&end=250"

# viewers N PATH [ACCEPT-ENCODING]: N requests at once; bodies in v.K,
# headers in h.K, statuses in s.K
viewers() {
	_n=$1 _path=$2 _ae=${3:-gzip}
	_k=1
	while [ $_k -le "$_n" ]; do
		{ curl -sS --globoff --max-time 60 -H "Accept-Encoding: $_ae" -D h.$_k -o v.$_k \
			-w '%{http_code}' "$URL$_path" >s.$_k & }
		_k=$((_k + 1))
	done
	wait
}
timing() { tr -d '\r' <"$1" | sed -n 's/^[Ss]erver-[Tt]iming: //p'; }
made_count() { for h in h.*; do timing "$h"; done | grep -c 'desc="made"'; }

test_expect_success 'eight viewers asking one selection at once: one makes the tree, seven wait for it; the same bytes' '
	rm -f v.* h.* s.* &&
	viewers 8 "$TREE" &&
	test "$(cat s.* | tr -d "\n")" = 200200200200200200200200 &&
	test "$(made_count)" = 1 &&
	for h in h.*; do timing "$h"; done | grep -c "desc=\"shared\"" >shared &&
	echo 7 >expect && test_cmp expect shared &&
	timing "$(grep -l "desc=\"made\"" h.*)" | grep -Eq "^tree;desc=\"made\";dur=[0-9]+$" &&
	for k in 2 3 4 5 6 7 8; do cmp v.1 v.$k || return 1; done &&
	gzip -dc v.1 >tree.json && cp tree.json body && test "$(tree_total)" -gt 0
'

test_expect_success 'the next viewer gets it made; a client without gzip gets the same tree inflated' '
	test "$(curl -sS --globoff -H "Accept-Encoding: gzip" -D h.next -o v.next -w "%{http_code}" "$URL$TREE")" = 200 &&
	test "$(timing h.next)" = "tree;desc=\"shared\"" &&
	cmp v.1 v.next &&
	test "$(get "$TREE")" = 200 &&
	cmp body tree.json
'

test_expect_success 'another selection is another tree, made once' '
	rm -f h.* v.* s.* &&
	viewers 4 "/flamegraph/?filename=cap.perf&start=10&end=20" &&
	test "$(made_count)" = 1 &&
	gzip -dc v.1 >other.json && ! cmp -s other.json tree.json
'

test_expect_success 'a changed capture gets a new tree' '
	sh "$TOP/tests/mk-long-capture.sh" 300 100 5000 >prof/cap.new &&
	mv prof/cap.new prof/cap.perf &&
	rm -f h.* v.* s.* &&
	viewers 3 "$TREE" &&
	test "$(made_count)" = 1 &&
	gzip -dc v.1 >new.json && ! cmp -s new.json tree.json &&
	cp new.json body && test "$(tree_total)" -lt "$(cp tree.json body && tree_total)"
'

test_expect_success 'a selection that fails gives every viewer its error; the next request tries again' '
	rm -f h.* v.* s.* &&
	viewers 4 "/flamegraph/?filename=bad.perf" &&
	test "$(cat s.* | tr -d "\n")" = 422422422422 &&
	for k in 1 2 3 4; do cp v.$k body && json_error_ok 422 || return 1; done &&
	test "$(get "/flamegraph/?filename=bad.perf")" = 422 &&
	json_error_ok 422
'

test_expect_success '/threads/ and /flamechart/ are made once per selection too, named so in Server-Timing' '
	for p in "/threads/?filename=cap.perf" "/flamechart/?filename=cap.perf&start=5&end=6"; do
		rm -f h.* v.* s.* &&
		viewers 4 "$p" identity &&
		test "$(cat s.* | tr -d "\n")" = 200200200200 &&
		test "$(made_count)" = 1 &&
		w=${p#/} && w=${w%%/*} && w=${w%%\?*} &&
		for h in h.*; do timing "$h"; done | grep -c "^$w;desc=" >named &&
		echo 4 >expect && test_cmp expect named &&
		for k in 2 3 4; do cmp v.1 v.$k || return 1; done &&
		jq -e ".total > 0" v.1 >/dev/null || { echo "# $p" >&2; return 1; }
	done
'

test_expect_success 'the server is still alive, with no sanitizer report' '
	kill -0 $serve_pid &&
	! grep -i "sanitizer\|runtime error\|leak" serve.err
'

test_done
