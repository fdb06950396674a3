#!/bin/sh
# tests/run-all.sh: runs every suite and ends with "N passed, N failed".
#
# Suites (FP_SUITES, comma-separated; default all that apply):
#   unit   C unit tests (cmocka), build/tests/u-*
#   shell  tests/t[0-9]*.sh against bin/
#   asan   the shell and unit tests again against bin-asan/ (if built)
#   browser  tests/browser/*.mjs in headless chromium (if node + chromium)
#   fuzz   bounded libFuzzer runs (tests/fuzz/run.sh) if clang is present
# Per-test output goes to tests/out/<suite>/<name>.log; failures are printed.
cd "$(dirname "$0")/.." || exit 1
TOP=$(pwd)
suites=${FP_SUITES:-unit,shell,asan,browser,fuzz}
outdir=$TOP/tests/out
rm -rf "$outdir"; mkdir -p "$outdir"
passed=0; failed=0; skipped=0

has_suite() { case ",$suites," in *",$1,"*) return 0;; esac; return 1; }

# Adds the counts from a TAP log: "ok" lines pass, "not ok" lines fail.
count_tap() {
	p=$(grep -c '^ok ' "$1"); s=$(grep -c '^ok .*# skip' "$1")
	f=$(grep '^not ok ' "$1" | grep -vc '# TODO')
	passed=$((passed + p - s)); skipped=$((skipped + s)); failed=$((failed + f))
}

run_script() { # suite name command...
	suite=$1; name=$2; shift 2
	mkdir -p "$outdir/$suite"; log=$outdir/$suite/$name.log
	start=$(date +%s)
	"$@" >"$log" 2>&1; rc=$?
	end=$(date +%s)
	if grep -q '^ok \|^not ok ' "$log"; then
		count_tap "$log"
		# A script that died mid-way (rc != 0) with no "not ok" still fails.
		if [ $rc -ne 0 ] && ! grep -q '^not ok ' "$log"; then failed=$((failed + 1)); fi
	elif [ $rc -eq 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
	if [ $rc -ne 0 ] || grep '^not ok ' "$log" | grep -qv '# TODO'; then
		echo "FAIL $suite/$name ($((end - start)) s, rc=$rc):"; grep -v '^ok ' "$log" | tail -n 60
	else
		echo "pass $suite/$name ($((end - start)) s)"
	fi
}

run_units() { # suite builddir
	for u in "$2"/tests/u-*; do
		[ -x "$u" ] || continue
		run_script "$1" "$(basename "$u")" env CMOCKA_MESSAGE_OUTPUT=TAP "$u"
	done
}

run_shell() { # suite bindir
	for t in tests/t[0-9]*.sh; do
		[ -f "$t" ] || continue
		run_script "$1" "$(basename "$t" .sh)" env FP_BIN="$2" sh "$t"
	done
}

has_suite unit && run_units unit build
has_suite shell && run_shell shell bin
if has_suite asan && [ -d bin-asan ]; then
	run_units asan build-asan
	FP_ASAN=1 run_shell asan bin-asan
fi
if has_suite browser && [ -d tests/browser ] && command -v node >/dev/null && command -v chromium >/dev/null; then
	for b in tests/browser/*.test.mjs; do
		[ -f "$b" ] || continue
		run_script browser "$(basename "$b" .test.mjs)" node "$b"
	done
fi
if has_suite fuzz && [ -x tests/fuzz/run.sh ]; then
	run_script fuzz fuzz tests/fuzz/run.sh
fi

echo "$passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
