# shellcheck shell=sh
# tests/lib-baseline.sh: what the baseline tests (t711x) share. Source
# after test-lib.sh.
#
#	$SWITCH, $OLD, $NEW      the workload (tests/helper/switch-phases.c)
#	                         and its functions before and after the switch
#	bl_chain ARGS...         fp-perfdata cap.data | fp-bucket | fp-fold
#	                         --pass-samples | fp-baseline ARGS (stdout
#	                         dropped; stderr: the lines it prints)
#	bl_row SECTION KEY FILE  the summary row of KEY under "grew:" or
#	                         "shrank:": "POINTS SHARE_AFTER SHARE_BASE"
SWITCH=$HELPERS/switch-phases
OLD=fp_baseline_test_old
NEW=fp_baseline_test_new

bl_chain() {
	fp-perfdata -q cap.data | fp-bucket | fp-fold --pass-samples | fp-baseline "$@" >/dev/null
}

bl_row() { # SECTION KEY FILE
	awk -v sec="$1:" -v key="$2" '
		/^  (grew|shrank):/ { in_sec = ($1 == sec) ; next }
		in_sec && $NF == key { sub(/%/, "", $2); sub(/%/, "", $3); print $1, $2, $3; exit }
	' "$3"
}

# bl_grew FILE: the summary says NEW grew by more than 25 points from 0 %
# of the baseline, and OLD shrank by more than 25 points. Each phase of
# the capture is 3 s of wall time, so NEW's share of the whole is about
# 50 % when the machine is idle; on a loaded one the program gets less CPU
# in one phase than in the other (35 % was seen beside make check).
bl_grew() {
	new=$(bl_row grew "$NEW" "$1") && old=$(bl_row shrank "$OLD" "$1") &&
	echo "grew: $new; shrank: $old" &&
	echo "$new" | awk '{ exit !($1 > 25 && $3 == 0) }' &&
	echo "$old" | awk '{ exit !($1 < -25 && $3 > 90) }'
}

# bl_live_alert ARGS...: `flamepipe live -g ARGS -- $SWITCH 4 4 mark` in
# the background, its stderr watched every 20 ms for the alert line: the
# wall clock (ns) when the line appeared goes to `seen`, the run's stderr
# to `err`. The delay after the switch: bl_delay.
bl_live_alert() {
	rm -f err seen mark &&
	{ flamepipe live -g -F 199 "$@" -- "$SWITCH" 4 4 "$PWD/mark" >/dev/null 2>err &
	  pid=$!; } &&
	while kill -0 "$pid" 2>/dev/null; do
		if [ ! -e seen ] && grep -qs "alert:" err; then date +%s%N >seen; fi
		sleep 0.02
	done &&
	{ wait "$pid" || { echo "# flamepipe live exited $?; its stderr:"; cat err; false; }; } &&
	if [ ! -e seen ] && grep -qs "alert:" err; then date +%s%N >seen; fi
}

# bl_delay: seconds from the workload's switch (its mark) to the alert
# line's appearance (seen), to the millisecond.
bl_delay() {
	test -s mark && test -s seen &&
	awk 'NR == FNR { sw = $2; next } { printf "%.3f\n", ($1 - sw) / 1e9 }' mark seen
}
