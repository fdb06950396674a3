#!/bin/sh
test_description='one page: ui/ holds the only page, the report and fp-serve load the same files'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-render.sh"
. "$TOP/tests/lib-serve.sh"

# The scripts of the two standalone pictures (flame.svg, heatmap.svg):
# the only page code outside ui/ (tests, docs, benches and examples aside).
SVG_SCRIPTS='render/flamegraph.js
render/heatmap.js'

# Module NAME's text as index.html embeds it.
module() { # index.html NAME
	awk -v open="<script type=\"text/plain\" data-fp-module=\"$2\">" '
		!on && index($0, open) { on = 1; $0 = substr($0, index($0, open) + length(open)) }
		on { if (i = index($0, "</script>")) { printf "%s", substr($0, 1, i - 1); exit } print }' "$1"
}

test_expect_success 'no page, script or style sheet outside ui/ but the two SVGs'"'"' scripts' '
	(cd "$TOP" && git ls-files -- "*.js" "*.mjs" "*.html" "*.htm" "*.css" |
		grep -v "^\(ui\|tests\|docs\|bench\|examples\)/") >found &&
	printf "%s\n" "$SVG_SCRIPTS" >expect &&
	test_cmp expect found
'

test_expect_success 'no C file writes an HTML page of its own (but fp-serve'"'"'s placeholder)' '
	(cd "$TOP" && grep -l "<html\|DOCTYPE html" render/*.c stages/*.c web/*.c runner/*.c fifo/*.c) >found &&
	echo web/ui.c >expect &&
	test_cmp expect found &&
	grep -q "The web page is not built into this fp-serve" "$TOP/web/ui.c"
'

test_expect_success 'render/ includes nothing from web/; the page comes from ui/' '
	! grep -n "include.*web/" "$TOP"/render/*.c "$TOP"/render/*.h &&
	grep -q "^#include \"ui_files.h\"" "$TOP/render/views.c" &&
	test -f "$TOP/ui/ui_files.h" && test -f "$TOP/ui/embed.sh"
'

test_expect_success 'the report embeds every ui/ module byte for byte, and app.css' '
	flamepipe report -q "$TOP/examples/multiproc.perf.gz" -o rep &&
	page_ok rep/index.html &&
	for f in "$TOP"/ui/*.js; do
		n=$(basename "$f") &&
		case $n in reportboot.js) continue ;; esac &&
		module rep/index.html "$n" >got &&
		test_cmp "$f" got || { echo "module $n differs"; return 1; }
	done &&
	grep -q "^/\* flamepipe web UI. System fonts only" rep/index.html &&
	grep -c "data-fp-module=" rep/index.html >n &&
	test "$(cat n)" = "$(ls "$TOP"/ui/*.js | grep -vc /reportboot.js)"
'

test_expect_success 'the report has one heatmap and one flame graph: ui/index.html'"'"'s' '
	test "$(grep -c "<canvas id=\"heatmap\"" rep/index.html)" = 1 &&
	test "$(grep -c "<svg id=\"flame\"" rep/index.html)" = 1 &&
	! grep -q "<svg id=\"heatmap\"\|<iframe\|hm_cfg" rep/index.html
'

test_expect_success 'fp-serve serves the same files: every ui/ file at /ui/NAME' '
	mkdir caps && start_server caps &&
	for f in "$TOP"/ui/*.js "$TOP"/ui/*.css "$TOP"/ui/*.html; do
		test "$(get "/ui/$(basename "$f")")" = 200 && cmp -s "$f" body ||
			{ echo "/ui/$(basename "$f") differs"; return 1; }
	done &&
	test "$(get /)" = 200 && cmp -s "$TOP/ui/index.html" body
'

test_done
