#!/bin/sh
# tests/run-all.sh: runs every suite and ends with "N passed, N failed, N skipped".
#
# Suites (FP_SUITES, comma-separated; default all that apply):
#   unit   C unit tests (cmocka), build/tests/u-*
#   shell  tests/t[0-9]*.sh against bin/
#   asan   the shell and unit tests again against bin-asan/ (if built)
#   browser  tests/browser/*.mjs in headless chromium (if node + chromium)
#   fuzz   bounded libFuzzer runs (tests/fuzz/run.sh) if clang is present
# FP_JOBS=N runs N unit/shell/asan tests at a time (default 1; `make check`
# and `make test` use 2; tests tagged bpftrace still run one at a time);
# browser and fuzz always run one at a time. Every test has its own
# trash directory and asks for free ports, so they cannot collide.
# FP_SKIP=root,perf,bpftrace,browser,slow skips the tests tagged so
# (test_tags in tests/test-lib.sh; `browser` also skips the browser suite).
# Per-test output goes to tests/out/<suite>/<name>.log; failures are printed.
cd "$(dirname "$0")/.." || exit 1
TOP=$(pwd)
outdir=$TOP/tests/out

# ---- one test (also the xargs worker: run-all.sh --one SUITE KIND PATH BINDIR)
run_one() { # suite kind path bindir
	suite=$1; kind=$2; path=$3; bindir=$4
	if [ "$kind" = lane ]; then	# SUITE=TEST=BINDIR,... one after the other
		for _item in $(echo "$path" | tr , ' '); do
			_s=${_item%%=*}; _rest=${_item#*=}; _p=${_rest%%=*}; _b=${_rest#*=}
			run_one "$_s" shell "$_p" "$_b"
		done
		return
	fi
	case $kind in
	unit) name=$(basename "$path") ;;
	shell) name=$(basename "$path" .sh) ;;
	browser) name=$(basename "$path" .test.mjs) ;;
	*) name=$kind ;;
	esac
	mkdir -p "$outdir/$suite"; log=$outdir/$suite/$name.log
	start=$(date +%s%N)
	case $kind in
	unit) env CMOCKA_MESSAGE_OUTPUT=TAP "$path" ;;
	shell) if [ "$suite" = asan ]; then env FP_ASAN=1 FP_BIN="$bindir" sh "$path"
	       else env FP_BIN="$bindir" sh "$path"; fi ;;
	browser) node "$path" ;;
	*) "$path" ;;
	esac >"$log" 2>&1
	rc=$?
	ms=$((($(date +%s%N) - start) / 1000000))
	took="$((ms / 1000)).$((ms % 1000 / 100)) s"
	# exit code, whole seconds, milliseconds (the times file's source)
	echo "$rc $((ms / 1000)) $ms" >"$log.rc"
	if [ $rc -ne 0 ] || grep '^not ok ' "$log" | grep -qv '# TODO'; then
		# one write, so parallel jobs do not interleave their reports
		{ echo "FAIL $suite/$name ($took, rc=$rc):"; grep -v '^ok ' "$log" | tail -n 60; } |
			cat
	else
		echo "pass $suite/$name ($took)"
	fi
}

if [ "${1:-}" = --one ]; then
	shift
	run_one "$@"
	exit 0
fi

suites=${FP_SUITES:-unit,shell,asan,browser,fuzz}
jobs=${FP_JOBS:-1}
case $jobs in ''|*[!0-9]*|0) echo "run-all.sh: FP_JOBS=$jobs: expected a positive number" >&2; exit 100 ;; esac
# tests/out/times: "SUITE/NAME MS" of each test's latest run, kept across
# runs (of any suites) to start the longest jobs first.
times=$outdir/times
kept_times=$(cat "$times" 2>/dev/null)
rm -rf "$outdir"; mkdir -p "$outdir"
[ -n "$kept_times" ] && printf '%s\n' "$kept_times" >"$times"
passed=0; failed=0; skipped=0
joblist=$outdir/jobs

has_suite() { case ",$suites," in *",$1,"*) return 0;; esac; return 1; }
skipped_tag() { case ",${FP_SKIP:-}," in *",$1,"*) return 0;; esac; return 1; }

# `make all` builds the programs only: the unit tests and the helpers the
# shell tests run come from `make tests` (make check and make test do it).
missing_builds() { # builddir
	for src in tests/unit/u-*.c tests/helper/*.c; do
		[ -f "$src" ] || continue
		[ -x "$1/tests/$(basename "$src" .c)" ] || echo "$1/tests/$(basename "$src" .c)"
	done
}
if has_suite unit || has_suite shell; then
	m=$(missing_builds build | head -n 1)
	if [ -n "$m" ]; then
		echo "run-all.sh: $m is not built: run make tests first (make check does both)" >&2
		exit 100
	fi
fi

# The job list: SUITE KIND PATH BINDIR per line (paths have no spaces).
: >"$joblist"
add_units() { # suite builddir
	for u in "$2"/tests/u-*; do
		[ -x "$u" ] && echo "$1 unit $u -" >>"$joblist"
	done
}
# Tests that run bpftrace (tagged bpftrace) run one at a time, in one lane
# beside the others: two bpftrace -c runs at once break each other (a
# profile ends before its workload). perf captures run in parallel.
# One lane for every suite: the shell and the ASan run of the same bpftrace
# test at once see each other's workload (t8201 counted 4 servers of 3).
samples_machine() { grep -Eq '^test_tags.*\<bpftrace\>|test_have .*\<bpftrace\>' "$1"; }
lane=
add_shell() { # suite bindir
	for t in tests/t[0-9]*.sh; do
		[ -f "$t" ] || continue
		if [ "$jobs" -gt 1 ] && samples_machine "$t"; then lane=$lane${lane:+,}$1=$t=$2
		else echo "$1 shell $t $2" >>"$joblist"; fi
	done
}
has_suite unit && add_units unit build
has_suite shell && add_shell shell bin
if has_suite asan && [ -d bin-asan ]; then
	add_units asan build-asan
	add_shell asan bin-asan
fi
[ -n "$lane" ] && echo "- lane $lane -" >>"$joblist"
# Longest first (by tests/out/times; the lane by the sum of its tests), so
# that no long test starts last and runs on alone: a test with no time
# yet (new, or the first run here) first of all, in the list's order.
order_longest_first() { # joblist times
	awk 'FILENAME == ARGV[1] { t[$1] = $2; next }
		function key(suite, path,    n) {
			n = path; sub(/.*\//, "", n); sub(/\.sh$/, "", n)
			return suite "/" n
		}
		{
			ms = 0; unknown = 0
			if ($2 == "lane") {
				n = split($3, item, ",")
				for (i = 1; i <= n; i++) {
					split(item[i], f, "=")
					if ((k = key(f[1], f[2])) in t) ms += t[k]; else unknown = 1
				}
			} else if ((k = key($1, $3)) in t) ms = t[k]; else unknown = 1
			printf "%d\t%d\t%d\t%s\n", unknown, ms, FNR, $0
		}' "$2" "$1" | sort -t "$(printf '\t')" -k1,1nr -k2,2nr -k3,3n | cut -f 4-
}
[ -f "$times" ] || : >"$times"
# How many results the job list must leave (a lane's tests each leave one):
# a run that leaves fewer fails, so a broken list can never pass as "0 failed".
results_due() { awk '$2 == "lane" { n += split($3, x, ","); next } { n++ } END { print n + 0 }' "$1"; }
due=$(results_due "$joblist")
order_longest_first "$joblist" "$times" >"$joblist.new" && mv "$joblist.new" "$joblist"
if [ "$(results_due "$joblist")" -ne "$due" ]; then
	echo "run-all.sh: ordering the job list lost jobs ($(results_due "$joblist") of $due)" >&2
	exit 100
fi

# Adds the counts from a TAP log: "ok" lines pass, "not ok" lines fail.
count_tap() {
	p=$(grep -c '^ok ' "$1"); s=$(grep -c '^ok .*# skip' "$1")
	f=$(grep '^not ok ' "$1" | grep -vc '# TODO')
	passed=$((passed + p - s)); skipped=$((skipped + s)); failed=$((failed + f))
}

# A script that printed no TAP counts as one test by its exit code; one that
# died mid-way (rc != 0) with no "not ok" still fails.
count_log() { # log
	rc=$(cut -d' ' -f1 "$1.rc" 2>/dev/null || echo 1)
	if grep -q '^ok \|^not ok ' "$1"; then
		count_tap "$1"
		if [ "$rc" -ne 0 ] && ! grep -q '^not ok ' "$1"; then failed=$((failed + 1)); fi
	elif [ "$rc" -eq 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
}

# shellcheck disable=SC2086
xargs -r -n 4 -P "$jobs" sh "$TOP/tests/run-all.sh" --one <"$joblist"
left=$(find "$outdir" -mindepth 2 -name '*.log.rc' | wc -l)
if [ "$left" -lt "$due" ]; then
	echo "FAIL run-all.sh: $left of $due unit/shell jobs left a result" >&2
	failed=$((failed + 1))
fi

if has_suite browser && ! skipped_tag browser && [ -d tests/browser ] &&
   command -v node >/dev/null && command -v chromium >/dev/null; then
	for b in tests/browser/*.test.mjs; do
		[ -f "$b" ] && run_one browser browser "$b" -
	done
fi
if has_suite fuzz && [ -x tests/fuzz/run.sh ]; then
	run_one fuzz fuzz tests/fuzz/run.sh -
fi

for log in "$outdir"/*/*.log; do
	[ -f "$log" ] && count_log "$log"
done
# this run's times replace the kept ones of the same tests
for rc in "$outdir"/*/*.log.rc; do
	[ -f "$rc" ] || continue
	k=${rc#"$outdir"/}; echo "${k%.log.rc} $(cut -d' ' -f3 "$rc")"
done >"$times.new"
awk 'FILENAME == ARGV[1] { seen[$1] = 1; print; next } !($1 in seen)' "$times.new" "$times" >"$times.all" &&
	mv "$times.all" "$times"
rm -f "$times.new"
echo "$passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
