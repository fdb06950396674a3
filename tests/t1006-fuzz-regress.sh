#!/bin/sh
test_description='fuzz crash inputs and seeds, replayed through the real programs'
. "$(dirname "$0")/test-lib.sh"
# Every input libFuzzer ever crashed on is kept in tests/fuzz/regress/TARGET/
# (tests/fuzz/run.sh replays them through the fuzz targets on every run).
# This test feeds them, and the seeds, to the installed programs too, so a
# regression also shows in the ordinary (and the ASan) shell suite, where
# no clang is needed. docs/fuzzing.md.
F=$TOP/tests/fuzz

inputs() { # target: regression inputs first, then seeds
	for d in "$F/regress/$1" "$F/corpus/$1"; do
		[ -d "$d" ] && find "$d" -type f | sort
	done
}

# Exit status of a program on a bad input: 0 or its documented error code,
# never a signal (a crash, an abort from a sanitizer).
exit_ok() { # status allowed...
	_rc=$1; shift
	for _ok in "$@"; do [ "$_rc" = "$_ok" ] && return 0; done
	echo "exit status $_rc" >&2
	return 1
}

# fuzz-read inputs: the first byte chooses how the fuzzer fed the rest
# (tests/fuzz/fuzz-read.c); here the rest goes in as a file and, as the
# fuzzer's gzip mode does, compressed. The stream must be well formed.
test_expect_success 'fuzz-read inputs: fp-read exits 0 or 1, S records = samples=, gzip = plain' '
	inputs fuzz-read >list && test -s list &&
	while read -r f; do
		tail -c +2 "$f" >in.perf &&
		{ fp-read -q <in.perf >plain.out; exit_ok $? 0 1; } &&
		n=$(grep -c "^S	" plain.out; :) &&
		grep -q "^I	read	.*	samples=$n	" plain.out &&
		if [ "$(head -c 2 in.perf | od -An -tx1 | tr -d " ")" != 1f8b ]; then
			gzip -c in.perf >in.gz &&
			{ fp-read -q <in.gz >gz.out; exit_ok $? 0 1; } &&
			test_cmp plain.out gz.out
		fi || { echo "input: $f"; exit 1; }
	done <list
'

test_expect_success 'fuzz-record inputs: fp-fold and fp-range never crash on them' '
	inputs fuzz-record >list && test -s list &&
	while read -r f; do
		{ fp-fold <"$f" >/dev/null 2>&1; exit_ok $? 0 1; } &&
		{ fp-range <"$f" >/dev/null 2>&1; exit_ok $? 0 1; } ||
		{ echo "input: $f"; exit 1; }
	done <list
'

test_expect_success 'fuzz-pipeline inputs: flamepipe check accepts or refuses, never crashes' '
	inputs fuzz-pipeline >list && test -s list &&
	while read -r f; do
		{ flamepipe check "$f" -D INPUT=x.perf --outdir out >/dev/null 2>&1; exit_ok $? 0 100; } ||
		{ echo "input: $f"; exit 1; }
	done <list
'

test_expect_success 'fuzz-perfdata inputs: fp-perfdata (and --inline) exits 0 or 1, S records = samples= (off-CPU: - offcpu_sched_samples + offcpu_samples)' '
	inputs fuzz-perfdata >list && test -s list &&
	while read -r f; do
		for opt in "" --inline; do
			{ fp-perfdata -q $opt --kallsyms /dev/null "$f" >pd.out; exit_ok $? 0 1; } &&
			n=$(grep -c "^S	" pd.out; :) &&
			want=$(grep "^I	read	" pd.out | tail -n 1 | tr "\t" "\n" | awk -F = "
				\$1 == \"samples\" || \$1 == \"offcpu_samples\" { w += \$2 }
				\$1 == \"offcpu_sched_samples\" { w -= \$2 } END { print w + 0 }") &&
			test "$n" = "$want" || { echo "input: $f $opt: $n S records, want $want"; exit 1; }
		done
	done <list
'

test_done
