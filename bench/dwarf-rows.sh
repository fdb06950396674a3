# shellcheck shell=sh
# bench/dwarf-rows.sh: the --call-graph dwarf rows of bench/run.sh (issue
# 10), sourced by it (its measure/row/note helpers and variables).
#
# One dwarf capture is made once and cached ($corpus_dir/dwarf.data): perf
# record --call-graph dwarf of a fixed workload: bench/loads/load.c (20-60-frame
# stacks, 3 processes x 2 threads, system calls), then gzip -6 and fp-read |
# fp-fold passes over a DWARF_SLICE-byte slice of the corpus (a stripped
# binary with .eh_frame only, programs with debug info calling libc, zlib).
# The same file then goes through perf script and fp-perfdata, without and
# with --inline, and through hotspot-perfparser (elfutils' unwinder too),
# in the same run; medians of BENCH_RUNS.
DWARF_SLICE=32000000	# bytes of the corpus the recorded workload reads
DWARF_FREQ=999		# perf record -F of the dwarf capture
DWARF_CHAIN_RUNS="1 2 3 4 5 6 7 8"	# fp-read | fp-fold passes over the slice
DWARF_LOAD_S=2		# seconds of bench/loads/load.c (deep stacks, 6 threads, syscalls)

dwarf_data=$corpus_dir/dwarf.data
if [ ! -s "$dwarf_data" ] && have perf fp-read fp-fold; then
	head -c "$DWARF_SLICE" "$corpus" > "$corpus_dir/dwarf-slice.perf"
	if perf record -q --call-graph dwarf -F "$DWARF_FREQ" -o "$dwarf_data.tmp" -- \
		sh -c "'$corpus_dir/bin/load' $DWARF_LOAD_S && gzip -6 -c '$corpus_dir/dwarf-slice.perf' > /dev/null &&
		       for i in $DWARF_CHAIN_RUNS; do
		       fp-read '$corpus_dir/dwarf-slice.perf' | fp-fold --plain > /dev/null; done" \
		> "$corpus_dir/dwarf.record.log" 2>&1; then
		mv "$dwarf_data.tmp" "$dwarf_data"
	else
		rm -f "$dwarf_data.tmp"
		echo "run.sh: perf record --call-graph dwarf failed: $(head -n 1 "$corpus_dir/dwarf.record.log")" >&2
	fi
	rm -f "$corpus_dir/dwarf-slice.perf"
fi
if [ -s "$dwarf_data" ] && have perf fp-perfdata; then
	dw_bytes=$(stat -c %s "$dwarf_data")
	fp-perfdata "$dwarf_data" 2>/dev/null | grep '^I	' | tr '\t' '\n' > "$tmp/dwarf.info"
	dw_samples=$(sed -n 's/^samples=//p' "$tmp/dwarf.info")
	dw_what="dwarf perf.data"
	measure perf-script-dwarf "perf script -i '$dwarf_data' --no-inline > /dev/null 2>&1"
	dw_script_wall=$m_wall
	row "perf script --no-inline (--call-graph dwarf)" "$dw_what" "$dw_bytes" "$dw_samples" "" "" ""
	if [ -x "$HOTSPOT_PARSER" ]; then
		measure hotspot-dwarf "'$HOTSPOT_PARSER' --input '$dwarf_data' --output '$tmp/hotspot-dwarf.out' > /dev/null 2>&1"
		dw_hotspot_wall=$m_wall
		row "hotspot-perfparser (--call-graph dwarf, comparison)" "$dw_what" "$dw_bytes" "$dw_samples" "" "" ""
	else
		dw_hotspot_wall=
	fi
	measure fp-perfdata-dwarf "fp-perfdata '$dwarf_data' > /dev/null 2>&1"
	detail=$(printf '%.2f x perf script speed' "$(calc "$dw_script_wall / $m_wall")")
	[ -z "$dw_hotspot_wall" ] ||
		detail="$detail, $(printf '%.2f x hotspot-perfparser' "$(calc "$dw_hotspot_wall / $m_wall")")"
	row "fp-perfdata (--call-graph dwarf: libdwfl unwinding)" "$dw_what" "$dw_bytes" "$dw_samples" "$detail" "" ""
	note "dwarf capture: $(fmtn "$dw_samples") samples, $(fmtn "$dw_bytes") bytes, $(sed -n 's/^unwound=//p' "$tmp/dwarf.info") unwound, $(sed -n 's/^unwind_incomplete=//p' "$tmp/dwarf.info") of them stopped before the outermost frame (8 KiB stack copies); fp-perfdata peak RSS $(calc "$m_rss_kib / 1024") MiB"
	measure perf-script-dwarf-inline "perf script -i '$dwarf_data' --inline > /dev/null 2>&1"
	dw_inline_wall=$m_wall
	row "perf script --inline (--call-graph dwarf)" "$dw_what" "$dw_bytes" "$dw_samples" "" "" ""
	measure fp-perfdata-dwarf-inline "fp-perfdata --inline '$dwarf_data' > /dev/null 2>&1"
	row "fp-perfdata --inline (--call-graph dwarf: libdw inlined frames)" "$dw_what" "$dw_bytes" "$dw_samples" \
		"$(printf '%.2f x perf script --inline speed' "$(calc "$dw_inline_wall / $m_wall")")" "" ""
else
	row_missing "fp-perfdata (--call-graph dwarf)" "dwarf perf.data" "" \
		"$(missing_of perf fp-perfdata) or no dwarf capture"
fi
