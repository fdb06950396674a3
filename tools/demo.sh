#!/bin/sh
# tools/demo.sh: `make demo`: the default pipeline on the bundled demo capture.
# Writes out/demo/{index.html,flame.svg,heatmap.svg,heatmap.tsv,stacks.folded,...}
# and shows the heatmap in the terminal.
set -eu
cd "$(dirname "$0")/.."
capture=${1:-examples/demo-clockloop.perf.gz}
out=${2:-out/demo}
rm -rf "$out"
echo "flamepipe demo: $capture -> $out/"
bin/flamepipe report "$capture" -o "$out"
echo
if [ -x bin/fp-read ] && [ -x bin/fp-bucket ] && [ -x bin/fp-render ]; then
	# The same chain as a plain shell pipeline, drawn as a terminal heatmap.
	bin/fp-read "$capture" | bin/fp-bucket --rows 20 | bin/fp-render --term --term-size 140x24 2>/dev/null ||
		bin/fp-read "$capture" | bin/fp-bucket --rows 20 | bin/fp-render --term || true
fi
echo
echo "Top stacks (samples):"
sort -t' ' -k2,2nr "$out/stacks.folded" 2>/dev/null | head -n 5 | cut -c1-160 || true
echo
echo "Open $out/index.html in a browser: click a start cell and an end cell of the heatmap"
echo "to see the flame graph of that time range."
