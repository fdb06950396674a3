#!/bin/sh
test_description='flamepipe security: private 0700 FIFO dir, 0600 FIFOs, refusing symlinks and foreign or pre-existing paths, --user for the analysis stages'
. "$(dirname "$0")/test-lib.sh"

T=20
. "$TOP/tests/lib-runner.sh"

write_live_pipeline
stage_pid() { flamepipe ctl dirf status | sed -n "s/^stage	name=$1	.*pid=\([0-9]*\).*/\1/p"; }
uid_of() { awk "/^Uid:/ { print \$2 }" /proc/$1/status; }

test_expect_success 'the FIFO dir is a fresh mkdtemp dir, 0700, ours; FIFOs 0600' '
	start_live live.pipeline &&
	wait_for "test -p \"\$(cat dirf 2>/dev/null)/range.ctl\"" 100 &&
	dir=$(cat dirf) &&
	case $dir in "$TMPDIR"/flamepipe.??????) ;; *) echo "dir $dir"; exit 1 ;; esac &&
	test "$(stat -c "%a %u %F" "$dir")" = "700 $(id -u) directory" &&
	for f in src.out range.out fold.out runner.ctl; do
		test "$(stat -c "%a %u %F" "$dir/$f")" = "600 $(id -u) fifo" || { stat "$dir/$f"; exit 1; }
	done &&
	finish && test $rc = 0 && no_fifo_dir_left
'

test_expect_success '--fifo-dir that does not exist: made 0700, removed at the end' '
	timeout $T flamepipe run live.pipeline --fifo-dir "$TRASH/mine" </dev/null >out 2>err; rc=$?; cat err;
	test $rc = 0 && test ! -e "$TRASH/mine"
'

test_expect_success '--fifo-dir that is a symlink (even to a dir of ours): refused, nothing touched' '
	mkdir -m 700 target && ln -s target link &&
	test_must_fail timeout $T flamepipe run live.pipeline --fifo-dir link </dev/null 2>err && cat err &&
	grep "^flamepipe: fifo dir link: exists and is not a directory of ours with mode 0700 (refusing to use it)" err &&
	test -L link && test -z "$(ls -A target)"
'

test_expect_success '--fifo-dir owned by someone else: refused' '
	mkdir -m 700 theirs && chown nobody theirs &&
	test_must_fail timeout $T flamepipe run live.pipeline --fifo-dir theirs </dev/null 2>err && cat err &&
	grep "fifo dir theirs: exists and is not a directory of ours" err && test -z "$(ls -A theirs)"
'

test_expect_success '--fifo-dir others can write to (0777, even sticky): refused' '
	mkdir -m 1777 shared &&
	test_must_fail timeout $T flamepipe run live.pipeline --fifo-dir shared </dev/null 2>err && cat err &&
	grep "fifo dir shared: exists and is not a directory of ours with mode 0700" err
'

for what in file symlink fifo; do
	test_expect_success "a pre-existing $what at a FIFO path is refused, not followed or reused; our own FIFOs go" '
		rm -rf own && mkdir -m 700 own && echo precious >victim &&
		case $what in
		file) echo x >own/range.out ;;
		symlink) ln -s ../victim own/range.out ;;
		fifo) mkfifo -m 600 own/range.out ;;
		esac &&
		timeout $T flamepipe run live.pipeline --fifo-dir own </dev/null >out 2>err; rc=$?; cat err;
		test $rc = 100 &&
		grep "^flamepipe: own/range.out: exists already (refusing to use it" err &&
		test "$(cat victim)" = precious &&
		# the dir was not made by us: it stays, with only what was there
		test "$(ls -A own)" = range.out
	'
done

test_expect_success 'a control reply name with a slash is refused (no path outside the dir)' '
	start_live live.pipeline &&
	wait_for "test -p \"\$(cat dirf 2>/dev/null)/runner.ctl\"" 100 &&
	: >outside &&
	printf "@../../outside\tstatus\n" >"$(cat dirf)/runner.ctl" &&
	# answered in order: once this reply is here, the line above was seen
	flamepipe ctl dirf status >/dev/null &&
	finish && test $rc = 0 &&
	test -f outside && ! test -s outside
'

if ! test_have root; then
	test_skip '--user runs the analysis stages unprivileged' "tagged root: $(_tag_missing root)"
else
	test_expect_success '--user nobody: every stage but the source runs as nobody, the source keeps root' '
		start_live live.pipeline --user nobody &&
		wait_for "test -n \"\$(stage_pid sink)\"" 100 &&
		nobody=$(id -u nobody) &&
		test "$(uid_of $(stage_pid src))" = 0 &&
		for s in range fold sink; do
			test "$(uid_of $(stage_pid $s))" = $nobody || { grep Uid /proc/$(stage_pid $s)/status; exit 1; }
		done &&
		grep "^Groups:	*$(id -g nobody) *\$" /proc/$(stage_pid fold)/status &&
		dir=$(cat dirf) &&
		test "$(stat -c "%a %U" "$dir")" = "700 nobody" &&
		test "$(stat -c "%a %U" "$dir/runner.ctl")" = "600 root" &&
		test "$(stat -c "%U" "$dir/range.ctl")" = nobody &&
		fp-read "$EXAMPLES/multiproc.perf.gz" >&7 &&
		finish && test $rc = 0 &&
		grep "^C	end	fold	[0-9]*	2390\$" live.out && no_fifo_dir_left
	'

	test_expect_success 'report --user nobody writes its outputs as nobody' '
		timeout $T flamepipe report "$EXAMPLES/multiproc.perf.gz" -o userout -q --user nobody 2>err; rc=$?; cat err;
		test $rc = 0 &&
		test "$(stat -c %U userout/stacks.folded)" = nobody &&
		test $(awk "{ s += \$NF } END { print s }" userout/stacks.folded) = 2390 &&
		no_fifo_dir_left
	'

	test_expect_success '--user: an unknown user is refused (100); root as root is a no-op' '
		flamepipe run live.pipeline --user no-such-user </dev/null 2>err; rc=$?; cat err;
		test $rc = 100 && grep "^flamepipe: --user: no user .no-such-user." err &&
		flamepipe run -q live.pipeline --user root </dev/null >out
	'

	test_expect_success '--user with an existing --fifo-dir: refused (the stages could not use it)' '
		mkdir -m 700 given &&
		flamepipe run live.pipeline --user nobody --fifo-dir given </dev/null 2>err; rc=$?; cat err;
		test $rc = 100 && grep "needs a fifo dir the runner makes" err &&
		test -d given && test -z "$(ls -A given)"
	'

	test_expect_success '--user when not root: refused with a message (100)' '
		chmod 755 "$TRASH" &&
		setpriv --reuid=nobody --regid=nogroup --clear-groups \
			"$FP_BIN/flamepipe" run "$TRASH/live.pipeline" --user daemon </dev/null 2>err; rc=$?; cat err;
		test $rc = 100 && grep "only root can run stages as another user" err
	'
fi
test_done
