#!/bin/sh
# soak.sh: the live chain over time (issue 22; `make bench` runs it after
# bench/run.sh, `make soak` alone). docs/bench.md explains it.
#
# flamepipe live runs its own chain (recorder, bucket, range, fold with its
# --max-stacks bound, the report renderer and the web view) on a source
# that writes SOAK_RATE samples/s of real time for SOAK_S seconds with new
# stacks all the time (bench/soakgen.c: every 4th sample a stack never seen
# before). Every SOAK_EVERY seconds the RSS of every process of the
# session (each stage, the runner) is read from /proc. The results: a
# table per process (RSS after the warm-up, at the end, the peak, and the
# least-squares slope after the warm-up in KiB/min), a figure (SVG) and the
# raw samples, in bench/results/soak.{md,svg,tsv}.
#
# Environment:
#   SOAK_RATE    samples/s (default 10000)
#   SOAK_S       seconds of capture (default 660: 1 min warm-up + 10 min)
#   SOAK_WARMUP  seconds left out of the slope (default 60)
#   SOAK_EVERY   seconds between RSS samples (default 10)
#   SOAK_OUT     results prefix (default bench/results/soak)
#   FP_BIN       the binaries (default bin/)
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
bin=${FP_BIN:-$root/bin}
SOAK_RATE=${SOAK_RATE:-10000}
SOAK_S=${SOAK_S:-660}
SOAK_WARMUP=${SOAK_WARMUP:-60}
SOAK_EVERY=${SOAK_EVERY:-10}
out=${SOAK_OUT:-$here/results/soak}
PATH=$bin:$PATH
export PATH

work=$(mktemp -d "${TMPDIR:-/tmp}/fp-soak.XXXXXX")
live=
trap '[ -z "$live" ] || kill "$live" 2>/dev/null || :; rm -rf "$work"' EXIT
cc -O2 -o "$work/soakgen" "$here/soakgen.c"

# live's own chain after the source (examples/live-perfdata.pipeline),
# with the generator as the stage named read
{
	echo "read $work/soakgen $SOAK_RATE $SOAK_S"
	sed -n '/^recorder /,$p' "$root/examples/live-perfdata.pipeline" | grep -v '^#'
} >"$work/soak.pipeline"

flamepipe live --pipeline "$work/soak.pipeline" -o "$work/out" --http 127.0.0.1:0 \
	--exit-at-end --no-term --name soak --dir-file "$work/dirf" \
	>"$work/live.out" 2>"$work/live.err" &
live=$!
t0=$(date +%s)
tsv=$work/rss.tsv
printf 't_s\tprocess\trss_kib\n' >"$tsv"

rss_of() { sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$1/status" 2>/dev/null; }
sample() {
	t=$(( $(date +%s) - t0 ))
	r=$(rss_of "$live") && [ -n "$r" ] && printf '%s\trunner\t%s\n' "$t" "$r" >>"$tsv"
	flamepipe ctl --timeout 5 "$work/dirf" status 2>/dev/null |
	sed -n 's/^stage	name=\([^	]*\)	state=running	pid=\([0-9]*\).*/\1 \2/p' |
	while read -r name pid; do
		r=$(rss_of "$pid") && [ -n "$r" ] && printf '%s\t%s\t%s\n' "$t" "$name" "$r" >>"$tsv"
	done
}
while kill -0 "$live" 2>/dev/null; do
	[ -s "$work/dirf" ] && sample
	i=0
	while [ $i -lt "$SOAK_EVERY" ] && kill -0 "$live" 2>/dev/null; do
		sleep 1
		i=$((i + 1))
	done
done
wait "$live" && rc=0 || rc=$?
elapsed=$(( $(date +%s) - t0 ))
mkdir -p "$(dirname "$out")"
cp "$tsv" "$out.tsv"

# the table: per process, RSS at the warm-up's end, at the end, the peak,
# and the slopes of least-squares lines through the samples after it and
# through those of the second half of the run (what is left once the
# allocators and buffers have settled)
table=$(awk -F '\t' -v w="$SOAK_WARMUP" -v half="$((SOAK_S / 2))" '
function fit(p, k,   d) {
	d = n[k, p] * sxx[k, p] - sx[k, p] * sx[k, p]
	return d > 0 ? (n[k, p] * sxy[k, p] - sx[k, p] * sy[k, p]) / d * 60 : 0	# KiB/min
}
function add(k, p, t, r) {
	n[k, p]++; sx[k, p] += t; sy[k, p] += r; sxx[k, p] += t * t; sxy[k, p] += t * r
}
NR > 1 {
	p = $2; t = $1; r = $3
	if (!(p in seen)) { seen[p] = 1; order[++np] = p }
	last[p] = r; if (r > peak[p]) peak[p] = r
	if (t >= w) {
		if (!(p in first)) first[p] = r
		add(1, p, t, r)
		if (!(p in t0)) t0[p] = t
		t1[p] = t
	}
	if (t >= half) add(2, p, t, r)
}
END {
	for (i = 1; i <= np; i++) {
		p = order[i]
		s1 = fit(p, 1); s2 = fit(p, 2)
		grow = s1 * (t1[p] - t0[p]) / 60
		late = s2 * (t1[p] - t0[p]) / 60	# the late slope over the whole time
		flat = late <= 2048 || late <= 0.05 * first[p]
		printf "| %s | %.1f | %.1f | %.1f | %+.1f | %+.1f | %+.1f | %s |\n", p, first[p] / 1024,
			last[p] / 1024, peak[p] / 1024, s1, grow / 1024, s2, flat ? "flat" : "GROWS"
	}
}' "$tsv")

# the figure: RSS (MiB) over time, one line per process
awk -F '\t' -v w="$SOAK_WARMUP" 'NR > 1 {
	p = $2; if (!(p in seen)) { seen[p] = 1; order[++np] = p }
	pts[p] = pts[p] " " $1 "," $3; if ($1 > tmax) tmax = $1; if ($3 > rmax) rmax = $3
}
END {
	W = 760; H = 420; L = 60; B = 40; T = 20; R = 150
	split("#d62728 #1f77b4 #2ca02c #ff7f0e #9467bd #8c564b #e377c2 #7f7f7f #17becf", col, " ")
	if (tmax == 0) tmax = 1
	ymax = rmax / 1024; if (ymax < 1) ymax = 1
	printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" font-size=\"11\">\n", W, H
	printf "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
	printf "<text x=\"%d\" y=\"14\">RSS of each process of a live session (MiB) over time (s); warm-up ends at %d s</text>\n", L, w
	pw = W - L - R; ph = H - T - B
	printf "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n", L, T + ph, L + pw, T + ph
	printf "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n", L, T, L, T + ph
	wx = L + pw * w / tmax
	printf "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#999\" stroke-dasharray=\"4 3\"/>\n", wx, T, wx, T + ph
	for (k = 0; k <= 4; k++) {
		printf "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.0f</text>\n", L - 4, T + ph - ph * k / 4 + 4, ymax * k / 4
		printf "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%.0f</text>\n", L + pw * k / 4, T + ph + 16, tmax * k / 4
	}
	for (i = 1; i <= np; i++) {
		p = order[i]; c = col[(i - 1) % 9 + 1]
		n = split(pts[p], a, " "); line = ""
		for (j = 1; j <= n; j++) {
			if (a[j] == "") continue
			split(a[j], xy, ",")
			line = line sprintf("%.1f,%.1f ", L + pw * xy[1] / tmax, T + ph - ph * (xy[2] / 1024) / ymax)
		}
		printf "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"%s\"/>\n", c, line
		printf "<text x=\"%d\" y=\"%d\" fill=\"%s\">%s</text>\n", L + pw + 10, T + 14 * i, c, p
	}
	printf "</svg>\n"
}' "$tsv" >"$out.svg"

summary=$(grep "stopped after" "$work/live.err" || true)
{
	echo "# Soak: the live chain over time"
	echo
	echo "$(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) CPUs, load average at the end $(cut -d' ' -f1-3 /proc/loadavg);"
	echo "commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?'); \`bench/soak.sh\`."
	echo
	echo "Source: $SOAK_RATE samples/s for $SOAK_S s (bench/soakgen.c: every 4th sample a new stack,"
	echo "$((SOAK_RATE / 4)) new stacks/s); the chain of flamepipe live (examples/live-perfdata.pipeline"
	echo "after its source, fp-fold --max-stacks 100000, fp-render --outdir, fp-serve --live)."
	echo "RSS sampled every $SOAK_EVERY s. Slopes are least-squares lines: through the samples after"
	echo "the first $SOAK_WARMUP s, and through those of the second half of the run; \"flat\": the"
	echo "second half's slope, carried over the whole time after the warm-up, is under 2 MiB or 5 %."
	echo "flamepipe live exited $rc after $elapsed s."
	echo
	echo "| process | RSS at ${SOAK_WARMUP} s MiB | at the end MiB | peak MiB | slope after warm-up KiB/min | growth after warm-up MiB | slope of the second half KiB/min | verdict |"
	echo "|---|--:|--:|--:|--:|--:|--:|---|"
	echo "$table"
	echo
	echo "Summary line: \`${summary#flamepipe: }\`"
	echo
	echo "Figure: soak.svg; samples: soak.tsv."
} >"$out.md"
cat "$out.md"
exit "$rc"
