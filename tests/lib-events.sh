# shellcheck shell=sh
# tests/lib-events.sh: independent per-event counts of a real multi-event
# capture, for the event tests (t7500, t7701). Source after test-lib.sh.
#
#	count_events TEXT   writes ./events.awk: "EVENT COUNT" per event of the
#	                    perf script TEXT, in the order the events first
#	                    appear (an event line is a non-empty line that does
#	                    not start with a TAB or '#'; its event is the word
#	                    after "TIME: PERIOD", without its colon)
#	count_of EVENT      the count of EVENT in ./events.awk
#	heat_total JSON     the sum of a FlameScope heatmap's cells
#	folded_total FILE   the sum of a folded file's counts
count_events() {
	awk '/^[^\t#]/ && NF { for (i = 1; i < NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) {
		e = $(i + 2); sub(/:$/, "", e); if (!(e in n)) order[k++] = e; n[e]++; break } }
		END { for (j = 0; j < k; j++) print order[j], n[order[j]] }' "$1" >events.awk
}
count_of() { awk -v e="$1" '$1 == e { print $2 }' events.awk; }
heat_total() { jq '[.values[][]] | add // 0' "$1"; }
folded_total() { awk '{ t += $NF } END { print t + 0 }' "$1"; }
