#!/bin/sh
test_description='fp-render: heatmap TSV, JSON (FlameScope shape) and SVG'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-render.sh"
D=$DATA/render

# small.heat: rows=4 (250 ms slices), base 100 s; cells (0,0)=2 (0,3)=1 (2,1)=5.
test_expect_success 'golden TSV: a header, then every cell, zeros too' '
	fp-render --outdir out <"$D/small.heat" &&
	test_cmp "$D/small-heat.tsv" out/heatmap.tsv
'

test_expect_success 'golden JSON: FlameScope /heatmap shape, rows from the end of the second' '
	test_cmp "$D/small-heat.json" out/heatmap.json
'

test_expect_success 'golden SVG (up to the script): cells, axes, legend' '
	sed "/<script/,\$d" out/heatmap.svg >head &&
	test_cmp "$D/small-heat.svg-head" head &&
	xml_ok out/heatmap.svg && page_ok out/index.html
'

test_expect_success 'a second G record drops the cells held so far' '
	{ cat "$D/small.heat" && printf "G\\t4\\t99\\nH\\t1\\t2\\t7\\n"; } | fp-render --outdir g &&
	awk -F "\\t" "NR > 1 && \$3 > 0" g/heatmap.tsv >nz &&
	printf "1\\t500\\t7\\n" >expect &&
	test_cmp expect nz &&
	grep -q "\"base_sec\":99" g/heatmap.json
'

test_expect_success 'H holds the absolute value: the last one wins' '
	printf "G\\t2\\t5\\nH\\t0\\t1\\t3\\nH\\t0\\t1\\t4\\n" | fp-render --outdir abs &&
	grep -qx "0	500	4" abs/heatmap.tsv
'

test_expect_success 'rows=49: slice starts with up to 3 decimals, no trailing zeros' '
	printf "G\\t49\\t0\\nH\\t0\\t1\\t1\\nH\\t0\\t48\\t1\\n" | fp-render --outdir r49 &&
	grep -qx "0	20.408	1" r49/heatmap.tsv &&
	grep -qx "0	979.591	1" r49/heatmap.tsv &&
	grep -q "\"rows\":\[979.591,959.183," r49/heatmap.json
'

test_expect_success 'bad G and H records are warned about and skipped, not fatal' '
	printf "G\\t0\\t1\\nG\\tx\\t1\\nG\\t4\\t1\\nH\\t0\\t4\\t1\\nH\\t0\\t1\\nH\\t0\\t1\\t2\\n" |
		fp-render --outdir bad 2>err &&
	test "$(grep -c "warning" err)" = 4 &&
	grep -q "stdin:1: malformed G record" err &&
	grep -q "stdin:4: H record skipped" err &&
	grep -qx "0	250	2" bad/heatmap.tsv &&
	grep -c "class=\"warn\"" bad/index.html >n && test "$(cat n)" = 4
'

# Whole chain on the demo capture with --keep-idle: every sample is a cell.
test_expect_success 'TSV total = samples in the capture (independent awk count)' '
	flamepipe report -q --keep-idle "$EXAMPLES/demo-clockloop.perf.gz" -o demo &&
	n=$(awk_count_samples "$EXAMPLES/demo-clockloop.perf.gz") &&
	test "$(awk -F "\\t" "NR > 1 { t += \$3 } END { print t }" demo/heatmap.tsv)" = "$n" &&
	test "$(folded_total demo/stacks.folded)" = "$n"
'

test_expect_success 'TSV: header, then (columns x rows) lines in second/row order' '
	head -n 1 demo/heatmap.tsv >h && printf "second\\trow_start_ms\\tcount\\n" >expect &&
	test_cmp expect h &&
	awk -F "\\t" "NR > 1 { if (\$1 < ls || (\$1 == ls && \$2 + 0 <= lr + 0 && NR > 2)) bad = 1; ls = \$1; lr = \$2; n++ }
		END { exit bad || n % 50 }" demo/heatmap.tsv
'

test_expect_success 'JSON shape: columns, rows, values[col][row], maxvalue; totals agree' '
	node -e "
		const fs = require(\"fs\");
		const j = JSON.parse(fs.readFileSync(\"demo/heatmap.json\", \"utf8\"));
		const need = [\"columns\", \"rows\", \"values\", \"maxvalue\"];
		for (const k of need) if (!(k in j)) throw new Error(\"missing \" + k);
		if (j.rows.length !== 50 || j.rows[0] !== 980 || j.rows[49] !== 0) throw new Error(\"rows\");
		if (j.values.length !== j.columns.length) throw new Error(\"values vs columns\");
		let total = 0, max = 0;
		j.columns.forEach((c, i) => { if (c !== i) throw new Error(\"column \" + i); });
		for (const col of j.values) {
			if (col.length !== j.rows.length) throw new Error(\"column length\");
			for (const v of col) { total += v; if (v > max) max = v; }
		}
		if (max !== j.maxvalue) throw new Error(\"maxvalue \" + j.maxvalue + \" != \" + max);
		const tsv = fs.readFileSync(\"demo/heatmap.tsv\", \"utf8\").trim().split(\"\\n\").slice(1);
		const t2 = tsv.reduce((a, l) => a + Number(l.split(\"\\t\")[2]), 0);
		if (total !== t2) throw new Error(\"json total \" + total + \" != tsv \" + t2);
		const cell = tsv.find(l => Number(l.split(\"\\t\")[2]) > 0).split(\"\\t\");
		const row = j.rows.indexOf(Number(cell[1]));
		if (j.values[Number(cell[0])][row] !== Number(cell[2])) throw new Error(\"cell mismatch\");
	"
'

test_expect_success 'SVG cells carry their counts; the sum equals the TSV total' '
	grep -o "data-c=\"[0-9]*\"" demo/heatmap.svg | tr -dc "0-9\\n" |
		awk "{ t += \$1 } END { print t }" >svgtotal &&
	test "$(cat svgtotal)" = "$(awk -F "\\t" "NR > 1 { t += \$3 } END { print t }" demo/heatmap.tsv)"
'

test_expect_success 'the largest cell is pure red, the scale is linear from white' '
	max=$(node -e "console.log(JSON.parse(require(\"fs\").readFileSync(\"demo/heatmap.json\")).maxvalue)") &&
	grep -q "fill=\"rgb(255,0,0)\" data-c=\"$max\"" demo/heatmap.svg
'

test_expect_success 'a range from the chain is drawn as the initial selection' '
	flamepipe report -q "$EXAMPLES/demo-clockloop.perf.gz" --from 10 --to 20.5 -o ranged &&
	grep -q "sel_from: 500, sel_to: 1024" ranged/heatmap.svg &&
	grep -q "range \[10, 20.5) s" ranged/flame.svg &&
	grep -q "This page holds only the samples of range \[10, 20.5) s" ranged/index.html
'

test_done
