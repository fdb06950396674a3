#!/bin/sh
# tests/fuzz/run.sh: build the libFuzzer targets and run each for a bounded
# time; replay every saved crash input first. docs/fuzzing.md has the details.
#
#	tests/fuzz/run.sh [TARGET]...        (default: every tests/fuzz/fuzz-*.c)
#
# Environment:
#	FP_FUZZ_SECONDS   seconds of fuzzing per target (default 45; 0 = only
#	                  build and replay the corpus and the regression inputs)
#	FP_FUZZ_BUILD     build directory (default build-fuzz)
#	CLANG             compiler (default clang)
#
# Per target: build-fuzz/NAME from tests/fuzz/NAME.c plus the sources named
# on its `fuzz-sources:` line (default: the shared folders but perf/data, $SHARED), `fuzz-libs:` and
# `fuzz-cflags:` lines; inputs up to `fuzz-max-len:` bytes;
# seeds from tests/fuzz/corpus/NAME/, new corpus entries in
# build-fuzz/corpus/NAME/, crash inputs in build-fuzz/crashes/NAME/.
# One line per target: "pass NAME (...)", "FAIL NAME: ...", or "skip NAME: ...".
# Exit 0 if every target passed or was skipped, 1 if any crashed or failed
# to build.
cd "$(dirname "$0")/../.." || exit 111
TOP=$(pwd)
SECONDS_EACH=${FP_FUZZ_SECONDS:-45}
B=${FP_FUZZ_BUILD:-build-fuzz}
CLANG=${CLANG:-clang}
# Inputs longer than this are not tried (bytes): long enough for several
# perf samples or a pipeline file, short enough to keep runs fast.
MAX_LEN_DEFAULT=8192
FUZZ_FLAGS="-g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined"
WARN="-std=c11 -D_GNU_SOURCE -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers"
# the Makefile's SHARED_DIRS, lowest first
SHARED_DIRS="lib recording fifo fold perf/script perf/data render"
SHARED="lib/*.c fifo/*.c recording/*.c fold/*.c perf/script/*.c"
INCLUDES="$(for d in $SHARED_DIRS; do printf -- '-I%s ' "$d"; done)-Ibuild/gen -Irunner -Iweb"	# build/gen: the generated *_js.inc (make all)
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

if ! command -v "$CLANG" >/dev/null 2>&1; then
	echo "skip fuzz: $CLANG not found (apt-get install clang libclang-rt-14-dev)"
	exit 0
fi
# libFuzzer ships in clang's runtime package; a clang without it cannot link.
probe=$(mktemp -d) || exit 111
trap 'rm -rf "$probe"' EXIT
printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { return 0; }\n' >"$probe/p.c"
if ! "$CLANG" -fsanitize=fuzzer "$probe/p.c" -o "$probe/p" >"$probe/log" 2>&1; then
	echo "skip fuzz: $CLANG cannot link libFuzzer (apt-get install libclang-rt-14-dev):"
	sed 's/^/  /' "$probe/log" | head -n 5
	exit 0
fi

if [ $# -gt 0 ]; then
	targets=$*
else
	targets=$(for f in tests/fuzz/fuzz-*.c; do [ -f "$f" ] && basename "$f" .c; done)
fi

# A `key: words` line in the target's leading comment, or the default.
directive() { # file key default
	v=$(sed -n "s/^[ *]*$2:[ 	]*//p" "$1" | head -n 1)
	echo "${v:-$3}"
}

build() { # name -> 0 if build-fuzz/name is up to date or was built
	src=tests/fuzz/$1.c
	srcs=$(directive "$src" fuzz-sources "$SHARED")
	libs=$(directive "$src" fuzz-libs "-lev -lz -lm -lpcre2-8 -ldeflate -lxxhash")
	cflags=$(directive "$src" fuzz-cflags "")
	# shellcheck disable=SC2086  # word splitting and globbing wanted
	srcs=$(ls $srcs 2>/dev/null)
	# fp-perfdata's modules in perf/data/ read ELF files and demangle.
	case " $(echo $srcs) " in *" perf/data/pd_"*) libs="$libs -ldw -lelf -liberty -ldebuginfod -lpthread -lzstd" ;; esac
	out=$B/$1
	newer=
	for f in "$src" $srcs lib/*.h fifo/*.h recording/*.h fold/*.h perf/*/*.h runner/*.h web/*.h stages/*.c stages/*/*.c; do
		[ -f "$f" ] && [ -n "$(find "$f" -newer "$out" 2>/dev/null)" ] && newer=1
	done
	[ -x "$out" ] && [ -z "$newer" ] && return 0
	# shellcheck disable=SC2086
	"$CLANG" $WARN $INCLUDES $FUZZ_FLAGS $cflags -o "$out" "$src" $srcs $libs >"$B/$1.build.log" 2>&1
}

mkdir -p "$B" || exit 111
failed=0
for t in $targets; do
	if [ ! -f "tests/fuzz/$t.c" ]; then
		echo "FAIL $t: no tests/fuzz/$t.c"; failed=1; continue
	fi
	if ! build "$t"; then
		echo "FAIL $t: does not build:"; tail -n 20 "$B/$t.build.log" | sed 's/^/  /'
		failed=1; continue
	fi
	maxlen=$(directive "tests/fuzz/$t.c" fuzz-max-len "$MAX_LEN_DEFAULT")
	corpus=$B/corpus/$t crashes=$B/crashes/$t
	mkdir -p "$corpus" "$crashes"
	log=$B/$t.log
	: >"$log"
	# 1. Every saved crash input and seed, once (fast, deterministic).
	replay=
	for d in "tests/fuzz/regress/$t" "tests/fuzz/corpus/$t"; do
		[ -d "$d" ] && [ -n "$(ls -A "$d")" ] && replay="$replay $d"
	done
	if [ -n "$replay" ]; then
		# shellcheck disable=SC2086
		if ! "$B/$t" -runs=0 -close_fd_mask=3 -max_len="$maxlen" \
			-artifact_prefix="$crashes/" $replay >>"$log" 2>&1; then
			echo "FAIL $t: a regression or seed input fails (replay); see $log:"
			grep -m 5 'ERROR\|SUMMARY\|runtime error' "$log" | sed 's/^/  /'
			failed=1; continue
		fi
	fi
	[ "$SECONDS_EACH" -gt 0 ] 2>/dev/null || { echo "pass $t (replay only)"; continue; }
	# 2. Bounded fuzzing from the seeds.
	start=$(date +%s)
	# shellcheck disable=SC2086
	"$B/$t" -max_total_time="$SECONDS_EACH" -max_len="$maxlen" -timeout=10 \
		-rss_limit_mb=2048 -close_fd_mask=3 -print_final_stats=1 \
		-artifact_prefix="$crashes/" "$corpus" $replay >>"$log" 2>&1
	rc=$?
	secs=$(( $(date +%s) - start ))
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	if [ $rc -ne 0 ]; then
		echo "FAIL $t after ${secs} s: crash input in $crashes/ (copy it to tests/fuzz/regress/$t/):"
		grep -m 8 'ERROR\|SUMMARY\|runtime error\|Assertion\|Test unit written' "$log" | sed 's/^/  /'
		failed=1
	else
		echo "pass $t (${secs} s, ${runs:-?} runs, corpus $(ls "$corpus" | wc -l))"
	fi
done
exit $failed
