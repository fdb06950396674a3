# shellcheck shell=sh
# tests/lib-render.sh: helpers for the renderer tests (tests/t5*.sh).
# Source after test-lib.sh.

# A folded file merged: identical stacks summed, zero counts dropped,
# sorted bytewise (LC_ALL=C), `stack count` lines.
folded_merge() {
	awk '{ n = $NF; sub(/ [0-9]+$/, ""); s[$0] += n }
	     END { for (k in s) if (s[k] > 0) print k " " s[k] }' "$1" | LC_ALL=C sort
}

# Sum of the counts of a folded file.
folded_total() {
	awk '{ t += $NF } END { print t + 0 }' "$1"
}

# Turns an fp-flamegraph/fp-render flame graph SVG back into folded text:
# each frame's fp:w minus its children's is its self count; its stack is the
# names of the frames above it (found by depth, from the rect's y). With
# `--minwidth 0` every frame is drawn, so the result equals folded_merge of
# the input (names with _[k]-style annotations excepted: titles drop them).
# Usage: svg_to_folded FILE [FRAME_HEIGHT] [inverted]
svg_to_folded() {
	awk -v fh="${2:-16}" -v inverted="${3:-}" '
	function attr(s, name,   m) {
		if (!match(s, name "=\"[^\"]*\"")) return ""
		m = substr(s, RSTART + length(name) + 2, RLENGTH - length(name) - 3)
		return m
	}
	function unescape(s) {
		gsub(/&lt;/, "<", s); gsub(/&gt;/, ">", s); gsub(/&quot;/, "\"", s)
		gsub(/&#39;/, "\047", s); gsub(/&amp;/, "\\&", s)
		return s
	}
	/^<g fp:x=/ {
		n++
		x[n] = attr($0, "fp:x") + 0; w[n] = attr($0, "fp:w") + 0
		y[n] = attr($0, "y") + 0
		t = $0; sub(/.*<title>/, "", t); sub(/<\/title>.*/, "", t)
		sub(/ \([0-9,]+ [^()]*\)$/, "", t)
		name[n] = unescape(t)
	}
	END {
		if (n == 0) exit
		for (i = 1; i <= n; i++) {
			d = inverted ? (y[i] - y[1]) / fh : (y[1] - y[i]) / fh
			depth[i] = d
			path[d] = (d == 0 ? "" : (d == 1 ? name[i] : path[d - 1] ";" name[i]))
			full[i] = path[d]
			if (d > 0) child[open[d - 1]] += w[i]
			open[d] = i
		}
		for (i = 2; i <= n; i++)
			if (w[i] - child[i] > 0) print full[i] " " (w[i] - child[i])
	}' "$1" | LC_ALL=C sort
}

# The fp:w of the root frame ("all").
svg_root_width() {
	awk 'match($0, /^<g fp:x="0" fp:w="[0-9]+"><title>all /) {
		s = $0; sub(/^<g fp:x="0" fp:w="/, "", s); sub(/".*/, "", s); print s; exit }' "$1"
}

# Fails unless FILE is well-formed XML (xmllint). HTML pages are XHTML.
xml_ok() {
	xmllint --noout --nonet "$1"
}

# index.html is ui/'s page (HTML, not XML): a whole document that holds
# the page's entry (its modules and boot script, render/views.h).
page_ok() {
	head -n 1 "$1" | grep -qx "<!DOCTYPE html>" &&
	tail -n 1 "$1" | grep -qx "</html>" &&
	grep -q "data-fp-module=\"app.js\"" "$1" &&
	grep -q "<script type=\"application/json\" id=\"fp_heatmap\">" "$1"
}

# Runs a command and fails unless it exits with exactly WANT:
#	expect_exit 100 fp-render --nosuch
expect_exit() {
	_want=$1; shift
	"$@"; _rc=$?
	[ "$_rc" = "$_want" ] && return 0
	echo "expect_exit: '$*' exited $_rc, expected $_want" >&2
	return 1
}
