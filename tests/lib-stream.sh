# shellcheck shell=sh
# tests/lib-stream.sh: hand-made record streams and a stage fed through a
# FIFO, for the fp-bucket and fp-range tests (t2xxx, t3xxx). Source after
# test-lib.sh.
#
#	s TIME [PID [COMM]]   one S record at TIME ns: pid = tid = PID (1),
#	                      COMM (app), cpu-clock:ppp, one user frame main
#	cells                 stdin is fp-bucket output: the heatmap a consumer
#	                      that follows fifo/PROTOCOL.md ends with (a G drops
#	                      the cells before it), "column row count" lines
#	start_range [OPTS]    fp-range --control ctl OPTS reading in.fifo (held
#	                      open on fd 9), writing out and err; sets $pid
#	stop_range            closes fd 9 and waits for fp-range

s() { printf 'S\t%s\t%s\t%s\t0\t1\tcpu-clock:ppp\t%s\tu\tmain\n' "$1" "${2:-1}" "${2:-1}" "${3:-app}"; }

cells() {
	awk -F '\t' '$1 == "G" { delete c } $1 == "H" { c[$2 " " $3] = $4 } END { for (k in c) print k, c[k] }' |
		sort -n -k1,1 -k2,2
}

start_range() {
	rm -f in.fifo out err && mkfifo in.fifo || return 1
	fp-range --control ctl "$@" <in.fifo >out 2>err &
	pid=$!
	exec 9>in.fifo
	wait_for "test -p ctl" 50
}
stop_range() { exec 9>&-; wait $pid; }
