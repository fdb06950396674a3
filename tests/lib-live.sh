# shellcheck shell=sh
# tests/lib-live.sh: what the flamepipe live tests (t71xx) share. Source
# after test-lib.sh.
#
#	$SPIN, $TARGET        the workload (tests/helper/live-spin.c) and the
#	                      function it spends its time in
#	report_complete DIR   DIR holds every report file, index.html whole
#	                      and heatmap.json valid JSON
#	no_temp_files DIR     no temporary file of an interrupted write is left
SPIN=$TOP/build/tests/live-spin
TARGET=flamepipe_live_spin_target

report_complete() { # DIR
	for f in index.html heatmap.svg flame.svg heatmap.tsv heatmap.json stacks.folded; do
		test -s "$1/$f" || { echo "missing $1/$f"; return 1; }
	done
	tail -c 200 "$1/index.html" | grep -q "</html>" &&
	python3 -m json.tool "$1/heatmap.json" >/dev/null
}

no_temp_files() { # DIR
	! find "$1" -mindepth 1 -maxdepth 1 -name ".*" | grep -q .
}
