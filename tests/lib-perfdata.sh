# shellcheck shell=sh
# tests/lib-perfdata.sh: real perf captures compared two ways, for the
# fp-perfdata tests (t11xx). Source it after test-lib.sh.
#
#	pd_need_perf                 skip the whole script unless perf can sample
#	pd_record OUT PERF-ARGS...   perf record -o OUT PERF-ARGS (quietly)
#	pd_record_dwarf OUT CMD...   pd_record OUT with $PD_DWARF (--call-graph
#	                             dwarf at 499 Hz) of CMD
#	pd_record_system OUT CPU_MS WALL_MS [HZ]
#	                             a system-wide -g capture (-F HZ, default 999)
#	                             while $BUSY spins CPU_MS ms of CPU within
#	                             at most WALL_MS ms (its times in ./times)
#	pd_record_kernel OUT         a system-wide -g capture of a syscall loop:
#	                             kernel frames whatever the machine does
#	pd_c_program FILE CALL       FILE (C): <time.h>, a volatile sink, the
#	                             functions on stdin, and a main that runs
#	                             CALL until it has used $PD_RUN_MS ms of
#	                             CPU (at most 10 s of wall time)
#	pd_inline_program FILE       FILE (C, pd_c_program): main calls the
#	                             noinline outer, into which middle and
#	                             inner (always_inline) are inlined
#	pd_cxx_program FILE MS [CALL]  FILE (C++): a template method
#	                             ns::Box<double>::spin (its loop calls the
#	                             inline Box::step) under work(), the code on
#	                             stdin, and a main that calls work (and CALL)
#	                             until it has used MS ms of CPU
#	pd_build SOURCE [FLAGS...]   SOURCE (.c: cc, .cc: g++) -O2 -g FLAGS into
#	                             SOURCE without its extension
#	pd_record_pipe PERF-ARGS...  perf record PERF-ARGS in pipe format
#	                             (pipe.data), and the same as a file
#	                             (file.data, perf inject)
#	pd_pipe_equals_file MIN      fp-perfdata reading pipe.data from a pipe
#	                             gives the S records of file.data, more
#	                             than MIN of them (in ./a)
#	pd_compare_streams [MIN]     pd_compare's checks of ./want.s (perf
#	                             script | fp-read) against ./got.s (fp-perfdata
#	                             as a test ran it: live, fed in parts)
#	pd_compare DATA [MIN]        fp-perfdata DATA | fp-fold against
#	                             perf script -i DATA --no-inline | fp-read | fp-fold:
#	                             same sample count, same per-second counts,
#	                             folded agreement >= MIN (default 0.999), and
#	                             every differing stack matched by a pattern of
#	                             tests/data/perfdata/differences (the golden
#	                             list of explained differences)
#	pd_in_mount_ns DIR PROG ARG...  PROG as in a container: a private mount
#	                             namespace, a copy on a tmpfs over DIR only
#	                             it sees (in background: $!)
#	pd_pipe_first_round_end FILE  offset after the first FINISHED_ROUND of
#	                             a pipe-format stream
#
# Folded agreement: sum over stacks of min(count by perf script, count by
# fp-perfdata) over the number of samples; at least MIN, or at most
# PD_AGREEMENT_FLOOR samples apart: a capture of under a thousand samples
# (a workload given little CPU on a loaded machine) cannot meet 0.999 with
# one sample in an explained difference (a PLT entry). The golden list
# below still has to explain every stack that differs.
#
# PD_OWN_PIDS (a system-wide capture: the test's workload): the stacks
# compared (agreement and the golden list) are those of these pids and
# those with kernel frames only (idle, kernel threads, any process in the
# kernel: one symbol table for all); every process's samples are still
# counted on both sides, per thread. A system-wide capture also catches the
# processes of whatever else runs: binaries rebuilt or deleted while perf
# script reads them, tools of other tests (a parallel perf script
# --inline's addr2line), each a difference of its own nobody can list.
#
# PD_SCRIPT_OPTS (default --no-inline, what fp-perfdata matches without
# options and what flamepipe's perf-script chain runs) and PD_PERFDATA_OPTS
# (default none) are the options of the two sides: --inline for both
# compares inlined frames.
# $BUSY: the CPU-bound workload, tests/helper/busy.c (BUSY CPU_MS TIMES_FILE [WALL_MS]).
PD_DIFFERENCES=$DATA/perfdata/differences
PD_AGREEMENT_FLOOR=2
BUSY=$TOP/build/tests/busy
# perf record's own options here. perf 6.1 starts a side-band thread for
# BPF program events that polls with a 1 s timeout and is only joined when
# that poll ends: every perf record outlives its workload by up to 1 s
# (perf record -- true: 1.1 s; with --no-bpf-event 0.2 s). Without it
# perf records no BPF program events: the system-wide captures
# (pd_record_system), where BPF programs of other processes come and go,
# keep the default, and with it the records of a user's perf.data.
PD_RECORD_OPTS=--no-bpf-event

pd_need_perf() {
	if ! command -v perf >/dev/null 2>&1; then
		test_skip 'real perf captures' 'perf is not installed'
		test_done
	fi
	if ! perf record -q $PD_RECORD_OPTS -o probe.data -F 99 -g -- true >probe.err 2>&1; then
		test_skip 'real perf captures' "perf record fails here: $(head -n 1 probe.err)"
		test_done
	fi
}

pd_record() { # out args...
	pd_record_opts "$PD_RECORD_OPTS" "$@"
}
# perf 6.1 aborts now and then at its end, while it writes the build-id
# table ("assertion failed at util/build-id.c:1010", "stack smashing
# detected"), when several perf records run at once: such a run is
# recorded again, at most twice; any other failure is the test's.
pd_record_opts() { # opts out args...
	_opts=$1 _out=$2; shift 2
	for _try in 1 2 3; do
		perf record -q $_opts -o "$_out" "$@" >"$_out.record.log" 2>&1 && return 0
		grep -q "util/build-id.c\|stack smashing detected" "$_out.record.log" || break
		echo "# perf record aborted in its build-id code (try $_try): again" >&2
	done
	cat "$_out.record.log" >&2
	return 1
}

# The dwarf captures' options: 499 Hz keeps perf's 8 KiB stack copies at a
# rate perf writes without losing samples on a loaded machine.
PD_DWARF="--call-graph dwarf -F 499"
# The C workloads' CPU time: about 250 samples at 499 Hz, as many on a
# loaded machine as on an idle one (a wall-time loop got fewer, and took
# 1-2 s on an idle one).
PD_RUN_MS=500

pd_record_dwarf() { # out cmd...
	_out=$1; shift
	pd_record "$_out" $PD_DWARF -- "$@"
}

pd_record_system() { # out cpu_ms wall_ms [hz]
	pd_record_opts "" "$1" -a -g -F "${4:-999}" -- "$BUSY" "$2" times "$3"
}

# A spinner runs in user space: the kernel frames of its system-wide
# capture are whatever else the machine did (none, some runs). dd of
# 64-byte blocks makes 2 M syscalls (~0.35 s): kernel stacks always.
pd_record_kernel() { # out
	pd_record_opts "" "$1" -a -g -F 999 -- dd if=/dev/zero of=/dev/null bs=64 count=1000000
}

# A whole frame named by the extended regex NAMES in FILE's stacks: the
# kernel's own names hold the tests' words too (__ext4_new_inode, when a
# program "new" is sampled creating a file).
pd_has_frame() { grep -Eq "(	|;)($2)(;|\$)" "$1"; } # file names

pd_build() { # source flags...
	_src=$1; shift
	case $_src in *.cc) _cc=g++ ;; *) _cc=cc ;; esac
	$_cc -O2 -g -o "${_src%.*}" "$_src" "$@"
}

pd_inline_program() { # file
	pd_c_program "$1" 'outer()' <<-\CC
	static inline __attribute__((always_inline)) void inner(int n) { for (int i = 0; i < n; i++) sink += i; }
	static inline __attribute__((always_inline)) void middle(int n) { inner(n); sink++; }
	__attribute__((noinline)) void outer(void) { middle(100000); }
	CC
}

pd_cxx_program() { # file ms [call]
	{
		cat <<-\CXX
		#include <cstdio>
		#include <ctime>
		namespace ns {
		template <class T> struct Box {
			T v;
			inline T step(int i) const { return v * i; }
			__attribute__((noinline)) T spin(int n) { volatile T s = 0; for (int i = 0; i < n; i++) s += step(i); return s; }
		};
		}
		__attribute__((noinline)) double work(int n) { ns::Box<double> b{1.5}; return b.spin(n); }
		CXX
		cat
		printf 'int main() {\n'
		printf '\tstd::clock_t end = std::clock() + %s * (CLOCKS_PER_SEC / 1000);\n' "$2"
		printf '\tdouble s = 0;\n'
		printf '\twhile (std::clock() < end) { s += work(100000); %s; }\n' "${3:-}"
		printf '\tstd::printf("%%g\\n", s);\n}\n'
	} >"$1"
}

pd_c_program() { # file call
	{
		printf '#include <time.h>\nstatic volatile unsigned long sink;\n'
		cat
		printf 'int main(void) {\n'
		printf '\tclock_t end = clock() + %s * (CLOCKS_PER_SEC / 1000);\n' "$PD_RUN_MS"
		printf '\ttime_t wall_end = time(0) + 10;\n'
		printf '\twhile (clock() < end && time(0) <= wall_end) %s;\n' "$2"
		printf '\treturn 0;\n}\n'
	} >"$1"
}

pd_record_pipe() { # perf record args...
	perf record -q $PD_RECORD_OPTS -o - "$@" >pipe.data 2>record.err &&
	perf inject -i - -o file.data <pipe.data 2>inject.err &&
	test -s pipe.data && test -s file.data
}

pd_pipe_equals_file() { # min
	cat pipe.data | fp-perfdata >from-pipe.s 2>err1 &&
	fp-perfdata file.data >from-file.s 2>err2 &&
	grep "^S	" from-pipe.s >a && grep "^S	" from-file.s >b &&
	test "$(wc -l <a)" -gt "$1" &&
	test_cmp b a
}

# Folded table of a stream, every event: "stack TAB count", sorted.
pd_folded() { # stream-file
	fp-fold --all-events <"$1" | awk -F '\t' '$1 == "F" { print $3 "\t" $2 }' | LC_ALL=C sort
}

# Samples per whole second of perf time.
pd_per_second() { # stream-file
	awk -F '\t' '$1 == "S" { n[int($2 / 1000000000)]++ } END { for (s in n) print s, n[s] }' "$1" |
		sort -n
}

# Samples per tid (perf script shows the tid alone, fp-read takes it for the pid too).
pd_per_tid() { # stream-file
	awk -F '\t' '$1 == "S" { n[$4]++ } END { for (t in n) print t, n[t] }' "$1" | sort -n
}

# The stream with only the S records of $PD_OWN_PIDS or of kernel frames alone.
pd_own() { # stream-file
	awk -F '\t' -v pids="$PD_OWN_PIDS" 'BEGIN { n = split(pids, p, " "); for (i = 1; i <= n; i++) own[p[i]] = 1 }
		$1 != "S" || ($3 in own) || ($4 in own) || $9 ~ /^k*$/' "$1"
}

# For a failed comparison: the counts of each unexplained stack, and the
# samples whose stacks differ there (matched by tid and microsecond: the
# time's text cut, as mawk's %d stops at 2^31), side by side, so a rare
# difference can be diagnosed from the log alone. want.s and got.s are
# kept as want.fail.s and got.fail.s (later tests reuse the names).
pd_count_of() { # folded-stack file: its count there, 0 if absent
	awk -F '\t' -v k="$1" '$1 == k { n = $2 } END { print n + 0 }' "$2"
}
pd_show_unexplained() {
	cp want.s want.fail.s && cp got.s got.fail.s
	LC_ALL=C sort -u unexplained | head -n 6 | while IFS= read -r k; do
		printf '  %s: perf script %s, fp-perfdata %s\n' "$k" \
			"$(pd_count_of "$k" want.fold)" "$(pd_count_of "$k" got.fold)"
	done
	awk -F '\t' 'FILENAME == "unexplained" { odd[$0] = 1; next }
		$1 == "S" { us = substr($2, 1, length($2) - 3); k = us " " $4; s = $8 ";" $10 }
		FILENAME == "want.s" && $1 == "S" { want[k] = s; next }
		$1 == "S" && (k in want) && want[k] != s && (want[k] in odd || s in odd) && shown++ < 6 {
			printf "  sample at %s us, tid %s:\n    perf script: %s\n    fp-perfdata: %s\n",
				us, $4, want[k], s }' unexplained want.s got.s
}

pd_compare() { # data [min]
	perf script -i "$1" ${PD_SCRIPT_OPTS---no-inline} 2>script.err | fp-read -q >want.s || return 1
	fp-perfdata $PD_PERFDATA_OPTS "$1" >got.s 2>perfdata.err || { cat perfdata.err >&2; return 1; }
	pd_compare_streams "${2:-0.999}"
}

pd_compare_streams() { # [min]: want.s (perf script | fp-read) against got.s
	_min=${1:-0.999}
	if [ -f script.err ] && grep -q "failed to process type" script.err; then
		# perf 6.1 stops at a record it cannot process (a KSYMBOL of a
		# newer kernel: "Bad address"); fp-perfdata reads on. Compare
		# the samples perf script got to, by its (microsecond) time.
		echo "perf script stopped early: $(grep -m 1 "failed to process" script.err)"
		last=$(awk -F '\t' '$1 == "S" && $2 + 0 > m { m = $2 + 0 } END { printf "%.0f\n", m }' want.s)
		awk -F '\t' -v last="$last" '$1 != "S" || int($2 / 1000) <= last / 1000' got.s >got.cut &&
			mv got.cut got.s
	fi
	_want=$(grep -c '^S	' want.s) _got=$(grep -c '^S	' got.s)
	echo "samples: perf script $_want, fp-perfdata $_got"
	[ "$_want" -gt 0 ] && [ "$_want" = "$_got" ] || return 1
	pd_per_second want.s >want.sec && pd_per_second got.s >got.sec &&
	test_cmp want.sec got.sec || return 1
	if [ -n "${PD_OWN_PIDS:-}" ]; then
		pd_per_tid want.s >want.tid && pd_per_tid got.s >got.tid &&
		test_cmp want.tid got.tid || return 1
		pd_own want.s >want.own && pd_own got.s >got.own || return 1
		_want=$(grep -c '^S	' want.own)
		echo "stacks compared: $_want samples of pids $PD_OWN_PIDS or of the kernel alone"
		[ "$_want" -gt 0 ] || return 1
		pd_folded want.own >want.fold && pd_folded got.own >got.fold || return 1
	else
		pd_folded want.s >want.fold && pd_folded got.s >got.fold || return 1
	fi
	awk -F '\t' -v min="$_min" -v total="$_want" -v floor_n="$PD_AGREEMENT_FLOOR" '
		NR == FNR { a[$1] = $2; next }
		{ b[$1] = $2 }
		END {
			for (k in a) same += (k in b) ? (a[k] < b[k] ? a[k] : b[k]) : 0
			printf "folded agreement %.5f (minimum %s, or %d samples apart)\n", same / total, min, floor_n
			if (same / total >= min || total - same <= floor_n) exit 0
			for (k in a) if (a[k] != b[k] && shown++ < 6) printf "  perf script %d, fp-perfdata %d: %s\n", a[k], b[k], k
			for (k in b) if (!(k in a) && shown++ < 12) printf "  perf script 0, fp-perfdata %d: %s\n", b[k], k
			exit 1
		}' want.fold got.fold || return 1
	# Every stack that differs must be explained in the golden list.
	LC_ALL=C comm -3 want.fold got.fold | sed 's/^\t//' | cut -f 1 >differing
	if [ -s differing ]; then
		grep -v '^#' "$PD_DIFFERENCES" | grep -v '^$' | cut -f 1 >patterns
		if grep -v -E -f patterns differing >unexplained; then
			echo "differences not explained in $PD_DIFFERENCES:"
			head -n 20 unexplained
			pd_show_unexplained
			return 1
		fi
	fi
	return 0
}

# pd_in_mount_ns DIR PROGRAM ARG...: PROGRAM run as a container runs it,
# in background ($! its pid): in a private mount namespace (unshare -m),
# copied into a tmpfs mounted over DIR there; the host's DIR stays as it
# is (empty), so its path names nothing outside. Root only.
pd_in_mount_ns() { # dir program args...
	_dir=$1 _prog=$2; shift 2
	unshare -m --propagation private sh -c '
		mount -t tmpfs fp-ns "$1" && cp "$2" "$1/" && p=$1/${2##*/} && shift 2 &&
		exec "$p" "$@"' sh "$_dir" "$_prog" "$@" &
}

# The stream offset just after the first FINISHED_ROUND record of a
# pipe-format perf.data file: what perf record had written by then.
pd_pipe_first_round_end() { # file
	# its bytes in decimal, the records walked by their headers (type:
	# u32 at 0, size: u16 at 6) from the pipe header's end (16)
	od -A n -v -t u1 "$1" | awk '
		BEGIN { rec = 16 }
		{
			for (i = 1; i <= NF; i++) {
				if (pos >= rec && pos < rec + 8) {
					h[pos - rec] = $i + 0
					if (pos - rec == 7) {
						size = h[6] + 256 * h[7]
						if (size < 8) exit
						if (h[0] + 256 * h[1] + 65536 * h[2] == 68) { found = rec + size; exit }
						rec += size
					}
				}
				pos++
			}
		}
		END { if (!found) exit 1; print found }'
}

# pd_expect_rc CODE CMD...: CMD exits with exactly CODE (not by a signal).
pd_expect_rc() {
	_code=$1; shift
	"$@"
	_rc=$?
	[ "$_rc" = "$_code" ] || { echo "pd_expect_rc: '$*' exited $_rc, want $_code" >&2; return 1; }
}
