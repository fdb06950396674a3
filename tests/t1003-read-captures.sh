#!/bin/sh
test_description='fp-read on every bundled capture: sample and per-second counts equal an independent awk count'
. "$(dirname "$0")/test-lib.sh"

# Per-second sample counts straight from the perf script text: on each
# sample header line (not indented, not #, not PERF_RECORD_), the first
# "digits.digits:" token is the time; its integer part is the second.
awk_per_second() {
	zcat -f "$1" | tr -d '\r' | awk '
		/^\t/ || /^#/ || /^[ ]*$/ || /PERF_RECORD_/ { next }
		{
			for (i = 1; i <= NF; i++)
				if ($i ~ /^[0-9]+\.[0-9]+:$/) { split($i, t, "."); n[t[1] + 0]++; break }
		}
		END { for (s in n) print s, n[s] }' | sort -n
}

# The same from fp-read S records (time_ns / 1e9, integer division).
read_per_second() {
	awk -F '\t' '$1 == "S" { n[substr($2, 1, length($2) - 9) + 0]++ }
		END { for (s in n) print s, n[s] }' "$1" | sort -n
}

for f in "$EXAMPLES"/*.perf.gz; do
	ex=$(basename "$f" .perf.gz)
	test_expect_success "$ex: samples read = sample header lines (awk)" "
		fp-read \"$f\" >s &&
		n=\$(grep -c '^S	' s) && raw=\$(awk_count_samples \"$f\") &&
		echo \"fp-read: \$n, awk: \$raw\" &&
		test \$n -gt 0 && test \$n = \$raw &&
		grep -q '^I	read	lines=[0-9]*	samples='\$n'	.*	bad_lines=0	' s
	"
	test_expect_success "$ex: samples per second = awk over the raw text" "
		fp-read \"$f\" >s &&
		awk_per_second \"$f\" >expect &&
		read_per_second s >got &&
		test \$(wc -l <expect) -gt 1 &&
		test_cmp expect got
	"
	test_expect_success "$ex: heatmap columns (--keep-idle) = awk per-second counts" "
		fp-read \"$f\" | fp-bucket --keep-idle >h &&
		awk_per_second \"$f\" >expect &&
		awk -F '\t' '\$1 == \"G\" { base = \$3; delete cell }
			\$1 == \"H\" { cell[\$2 \" \" \$3] = \$4 }
			END { for (k in cell) { split(k, a, \" \"); col[a[1] + base] += cell[k] }
			      for (s in col) print s, col[s] }' h | sort -n >got &&
		test_cmp expect got
	"
done

test_expect_success 'the no-callgraph capture: one frame per sample, from the event line' '
	fp-read "$EXAMPLES/multiproc-nocallgraph.perf.gz" >s &&
	n=$(grep -c "^S	" s) &&
	test $(grep "^S	" s | cut -f 9 | grep -cx "[kujix]") = $n
'

test_done
