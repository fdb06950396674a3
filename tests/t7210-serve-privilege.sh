#!/bin/sh
test_description='fp-serve started as root serves as an unprivileged user (--user, default nobody): its chains too; a file that user cannot read is neither listed nor served; uploads never get this host'"'"'s kernel symbols'
. "$(dirname "$0")/test-lib.sh"
test_tags root
. "$TOP/tests/lib-serve.sh"

getent passwd nobody >/dev/null || { test_skip "$test_name" 'no user nobody'; test_done; }
NOBODY=$(id -u nobody)
# the checkout must be reachable by nobody (fp-serve refuses to start else)
setpriv --reuid=nobody --regid=nogroup --clear-groups test -x "$FP_BIN/fp-read" 2>/dev/null || {
	test_skip "$test_name" "user nobody cannot run $FP_BIN/fp-read (a checkout below a 0700 directory)"
	test_done
}
F=demo-clockloop.perf.gz

mkdir prof && chmod 755 prof && cp "$EXAMPLES/$F" prof/ &&
cp "$EXAMPLES/$F" prof/secret.perf.gz && chmod 600 prof/secret.perf.gz &&
# a capture whose chain runs for seconds (1 GB of zeros after real samples)
zcat "$EXAMPLES/$F" | head -n 50 | gzip >prof/slow.perf.gz &&
head -c 100M /dev/zero | gzip -9 >zeros.gz &&
i=0 && while [ $i -lt 10 ]; do cat zeros.gz; i=$((i + 1)); done >>prof/slow.perf.gz &&
rm zeros.gz || exit 1

fresh() { # start_server's options: the previous test's server stopped first
	while read -r _p; do kill "$_p" 2>/dev/null; done <"$SERVE_PIDS"
	rm -rf prof/uploads
	start_server prof "$@"
}
code_is() { # CODE COMMAND...: runs it, checks the exit code
	want=$1; shift
	"$@"; rc=$?
	test $rc = $want || { echo "exit code $rc, expected $want"; return 1; }
}
ids_of() { # PID: "Uid Gid" lines of /proc/PID/status, effective ids
	awk '/^Uid:/ { u = $3 } /^Gid:/ { g = $3 } END { print u, g }' "/proc/$1/status"
}

test_expect_success 'started as root without --user: serves as nobody (uid, gid, no groups, no new privileges)' '
	serve_default_user=1 fresh &&
	grep -q "^Uid:[[:space:]]*$NOBODY[[:space:]]*$NOBODY[[:space:]]*$NOBODY[[:space:]]*$NOBODY\$" /proc/$serve_pid/status &&
	grep -q "^Groups:[[:space:]]*\$" /proc/$serve_pid/status &&
	grep -q "^NoNewPrivs:[[:space:]]*1" /proc/$serve_pid/status &&
	test "$(get /profile/)" = 200
'

test_expect_success 'a 0600 root file in DIR is neither listed nor served (default and --user nobody)' '
	for how in default nobody; do
		if [ $how = default ]; then serve_default_user=1 fresh; else fresh --user nobody; fi &&
		test "$(get /profile/)" = 200 &&
		jq -e "map(.filename) == [\"$F\", \"slow.perf.gz\"]" body &&
		test "$(get "/heatmap/?filename=secret.perf.gz")" = 403 && json_error_ok 403 &&
		test "$(get "/folded?filename=secret.perf.gz")" = 403 && json_error_ok 403 &&
		test "$(get "/heatmap/?filename=$F")" = 200 || return 1
	done &&
	# the same file is served by a root server (--user root): the rule is the user
	fresh --user root && test "$(get "/folded?filename=secret.perf.gz")" = 200
'

test_expect_success 'chains run as the serving user (their /proc status, while they run)' '
	fresh --user nobody --max-inflate 0 --max-time 60 &&
	{ curl -sS -o /dev/null "$URL/heatmap/?filename=slow.perf.gz" & } &&
	wait_for "pgrep -P $serve_pid -x fp-read >/dev/null" 300 &&
	kids=$(pgrep -P $serve_pid) && test -n "$kids" &&
	for k in $kids; do
		echo "child $k: $(cat /proc/$k/comm) $(ids_of $k)" &&
		test "$(ids_of $k)" = "$NOBODY $(id -g nobody)" || return 1
	done
'

# A perf.data with kernel addresses: dd spends its time in read(2) and write(2).
# Its frames of kind k may only be dso names the upload itself carries:
# [kernel.kallsyms], and [vdso] (kind k as stackcollapse-perf.pl has it),
# seen when dd's clock_gettime page-faulted in the vdso (a fresh-clone run).
if test_have perf && perf record -q -g -e cpu-clock -o k.data -- \
	dd if=/dev/zero of=/dev/null bs=64k count=100000 2>/dev/null &&
	fp-perfdata -q k.data | fp-fold --plain | grep -q "do_syscall_64"; then
	chmod 644 k.data
	test_expect_success 'an uploaded perf.data with kernel addresses yields no kernel names (default, nobody, and root)' '
		for how in default nobody root; do
			case $how in
			default) serve_default_user=1 fresh ;;
			*) fresh --user $how ;;
			esac &&
			test "$(post "/upload?filename=k.data" --data-binary @k.data)" = 201 &&
			test "$(get "/folded?filename=uploads/k.data")" = 200 &&
			grep -q "_\[k\]" body &&
			! grep -q "do_syscall_64\|entry_SYSCALL\|vfs_read\|ksys_" body &&
			! sed "s/ [0-9]*\$//" body | tr ";" "\n" | grep "_\[k\]\$" |
				grep -v "^\[kernel.kallsyms\]_\[k\]\$" | grep -v "^\[vdso\]_\[k\]\$" || return 1
		done
	'
	test_expect_success 'the operator may allow host symbols for uploads (--upload-host-symbols): then they are named' '
		fresh --user root --upload-host-symbols &&
		test "$(post "/upload?filename=k.data" --data-binary @k.data)" = 201 &&
		test "$(get "/folded?filename=uploads/k.data")" = 200 &&
		grep -q "do_syscall_64" body
	'
else
	test_skip 'an uploaded perf.data with kernel addresses yields no kernel names' 'perf cannot record kernel stacks here'
	test_skip 'the operator may allow host symbols for uploads' 'perf cannot record kernel stacks here'
fi

test_expect_success '--live without --user keeps the user the runner started it as; with --user it serves as that user' '
	mkfifo in.fifo &&
	{ fp-serve --dir prof --listen 127.0.0.1:0 --live cap <in.fifo >live.out 2>live.err & } &&
	p1=$! && register_pid $p1 && exec 8>in.fifo &&
	wait_for "grep -qs \"listening on\" live.out" 100 &&
	grep -q "^Uid:[[:space:]]*0[[:space:]]" /proc/$p1/status &&
	mkfifo in2.fifo &&
	{ fp-serve --dir prof --listen 127.0.0.1:0 --live cap --user nobody <in2.fifo >live2.out 2>live2.err & } &&
	p2=$! && register_pid $p2 && exec 7>in2.fifo &&
	wait_for "grep -qs \"listening on\" live2.out" 100 &&
	grep -q "^Uid:[[:space:]]*$NOBODY[[:space:]]" /proc/$p2/status &&
	exec 8>&- 7>&-
'

test_expect_success 'the default refuses to start when nobody cannot read DIR, saying so (exit 111)' '
	mkdir closed && chmod 700 closed && cp "$EXAMPLES/$F" closed/ &&
	code_is 111 fp-serve --dir closed --listen 127.0.0.1:0 >out 2>err &&
	grep -q "as user nobody (the default when started as root), cannot read the profile directory closed" err
'

test_expect_success 'not root: --user naming another user is a usage error (exit 100)' '
	code_is 100 setpriv --reuid=nobody --regid=nogroup --clear-groups \
		fp-serve --dir prof --listen 127.0.0.1:0 --user root >out 2>err &&
	grep -q "only root can change user" err
'

test_done
