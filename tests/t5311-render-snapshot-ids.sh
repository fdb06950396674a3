#!/bin/sh
test_description='fp-render reads snapshots by id (E records of fp-fold --snapshot-ids): the files are those of the F records they stand for, byte for byte; a bad E record is warned about and counted'
. "$(dirname "$0")/test-lib.sh"
. "$TOP/tests/lib-perfdata.sh"
T=$(printf "\t")

# fp-render of one stream into DIR, every output
render() { # stream dir
	fp-render --outdir "$2" --format all --range-folded 0:1 "$1" 2>"$2.err"
}

# fold STREAM-IN PREFIX [FP-FOLD OPTIONS]: PREFIX.text (F records) and
# PREFIX.ids (E records) of the same input
fold_both() { # in prefix options...
	_in=$1 _p=$2; shift 2
	fp-fold --pass-samples --all-events "$@" <"$_in" >"$_p.text" &&
	fp-fold --pass-samples --all-events --snapshot-ids "$@" <"$_in" >"$_p.ids" &&
	grep -q "^F" "$_p.text" && grep -q "^E" "$_p.ids" && ! grep -q "^F" "$_p.ids"
}

# both streams rendered, and every file compared
same_files() { # prefix
	render "$1.text" "$1.text.d" && render "$1.ids" "$1.ids.d" &&
	test "$(ls "$1.text.d" | wc -l)" -ge 9 &&
	diff -r "$1.text.d" "$1.ids.d" &&
	! test -s "$1.ids.d.err"
}

test_expect_success 'a capture of several processes: every file the same as from F records' '
	fp-read -q "$EXAMPLES/multiproc.perf.gz" | fp-bucket --rows 50 >mp.S &&
	fold_both mp.S mp &&
	same_files mp
'

test_expect_success 'with kernel and inlined annotations and pid roots (fp-fold --all --pid)' '
	fold_both mp.S ann --all --pid &&
	same_files ann
'

# The table a delta snapshot updated: the stream up to the end of its
# second snapshot (a delta), so the files show the table it made.
test_expect_success 'a delta snapshot by id updates the table as a delta of F records does' '
	grep "^S" mp.S >s.S &&
	{ head -n 1000 s.S && echo "C${T}flush" && sed -n 1001,2000p s.S && echo "C${T}flush" &&
		tail -n +2001 s.S; } >flush.S &&
	fold_both flush.S dl --delta-snapshots &&
	for v in text ids; do
		awk -v T="$T" "{ print } \$0 == \"C\" T \"end\" T \"fold-delta\" || index(\$0, \"C\" T \"end\" T \"fold-delta\" T) == 1 { exit }" \
			dl.$v >cut.$v || return 1
	done &&
	grep -q "^E" cut.ids && tail -n 1 cut.ids | grep -q "^C${T}end${T}fold-delta" &&
	fold_both flush.S full &&
	awk -v T="$T" "{ print } index(\$0, \"C\" T \"end\" T \"fold\" T) == 1 && ++n == 2 { exit }" full.text >cut.full &&
	render cut.text cut.text.d && render cut.ids cut.ids.d && render cut.full cut.full.d &&
	LC_ALL=C sort cut.full.d/stacks.folded >full.sorted &&
	LC_ALL=C sort cut.ids.d/stacks.folded >ids.sorted &&
	test_cmp full.sorted ids.sorted &&
	test_cmp cut.full.d/flame.svg cut.ids.d/flame.svg &&
	diff -r cut.text.d cut.ids.d
'

# records after the first E record of the stream's full snapshot
inject() { # stream record...
	_s=$1; shift
	awk -v recs="$(printf "%s\n" "$@")" -v T="$T" '
	{ print }
	/^C\tbegin\tfold$/ { n++ }
	n && !done && /^E\t/ { print recs; done = 1 }' "$_s"
}

test_expect_success 'an E record of an id no D record defined: a warning, counted, the rest drawn' '
	inject mp.ids "E${T}5${T}999999" >undef.ids &&
	render undef.ids undef.d &&
	grep -q "E record of a stack no D record defined skipped" undef.d.err &&
	grep -q "bad_records=1" undef.d/index.html &&
	test_cmp mp.text.d/stacks.folded undef.d/stacks.folded &&
	test_cmp mp.text.d/flame.svg undef.d/flame.svg
'

test_expect_success 'malformed E records (count, id, fields): each warned about and counted, none used' '
	inject mp.ids "E${T}x${T}0" "E${T}3" "E${T}3${T}0${T}0" "E${T}3${T}-1" "E${T}3${T}4294967295" \
		"E" >bad.ids &&
	render bad.ids bad.d &&
	test "$(grep -c "malformed E record skipped: expected E TAB count TAB id" bad.d.err)" = 6 &&
	grep -q "bad_records=6" bad.d/index.html &&
	test_cmp mp.text.d/stacks.folded bad.d/stacks.folded
'

test_expect_success 'E records outside a snapshot add to the table, as F records do (hand-written input)' '
	printf "D${T}0${T}-u${T}a;f\nD${T}1${T}-uu${T}a;f;g\nE${T}2${T}0\nE${T}3${T}1\nE${T}1${T}0\n" >hand.ids &&
	printf "D${T}0${T}-u${T}a;f\nD${T}1${T}-uu${T}a;f;g\nF${T}2${T}a;f\nF${T}3${T}a;f;g\nF${T}1${T}a;f\n" >hand.text &&
	render hand.ids hand.ids.d && render hand.text hand.text.d &&
	test "$(cat hand.ids.d/stacks.folded)" = "$(printf "a;f 2\na;f;g 3\na;f 1")" &&
	test_cmp hand.text.d/stacks.folded hand.ids.d/stacks.folded &&
	test_cmp hand.text.d/flame.svg hand.ids.d/flame.svg
'

capture() {
	pd_record_system sys.data 500 3000 999 && fp-perfdata -q sys.data >sys.S 2>sys.err
}
if ! test_have root perf || ! test -x "$BUSY" || ! capture; then
	test_skip 'a real system-wide -g capture' "no capture here: $(head -n 1 sys.data.record.log 2>/dev/null)"
	test_done
fi

test_expect_success 'a real system-wide -g capture (fp-perfdata): every file the same as from F records' '
	fp-bucket --rows 50 <sys.S >sys.B &&
	fold_both sys.B sys &&
	# an E record for each F record (how many depends on the capture: a loaded
	# machine records fewer stacks in its 3 s)
	test "$(grep -c "^E" sys.ids)" = "$(grep -c "^F" sys.text)" &&
	test "$(grep -c "^E" sys.ids)" -gt 0 &&
	same_files sys
'

test_done
