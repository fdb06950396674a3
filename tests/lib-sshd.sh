# shellcheck shell=sh
# tests/lib-sshd.sh: a throwaway sshd on 127.0.0.1 for the remote-capture
# tests (sourced after test-lib.sh). Everything lives in $TRASH/sshd: a
# host key, a client key, authorized_keys, sshd_config, known_hosts.
#
#	start_sshd        sets $SSHD_PID, $SSHD_PORT and $SSH_OPTS (the
#	                  --ssh-arg words for fp-ssh / flamepipe live --ssh)
#	sshd_tree [-p]    the command lines below the daemon, one a line
#	                  (-p: each after its pid)
#	sshd_perf_pids    the pids of its sessions' perf record processes
#	pids_gone PID...  none of them runs any more
#	sshd_logins       how many logins it accepted
# The daemon is killed by an EXIT trap. It listens on 127.0.0.1 only, on
# the first free port from 22300 up.

SSHD_DIR=$TRASH/sshd
SSHD_PIDS=${TMPDIR:-/tmp}/fp-sshd-pids.$$
: >"$SSHD_PIDS"
trap 'while read -r _p; do kill "$_p" 2>/dev/null; done <"$SSHD_PIDS"; rm -f "$SSHD_PIDS"' EXIT

start_sshd() {
	mkdir -p "$SSHD_DIR" /run/sshd &&
	ssh-keygen -q -t ed25519 -N "" -C fp-test-host -f "$SSHD_DIR/host_key" &&
	ssh-keygen -q -t ed25519 -N "" -C fp-test-user -f "$SSHD_DIR/user_key" &&
	cp "$SSHD_DIR/user_key.pub" "$SSHD_DIR/authorized_keys" || return 1
	for SSHD_PORT in $(seq 22300 22399); do
		cat >"$SSHD_DIR/sshd_config" <<EOF_CONF
Port $SSHD_PORT
ListenAddress 127.0.0.1
HostKey $SSHD_DIR/host_key
PidFile $SSHD_DIR/sshd.pid
AuthorizedKeysFile $SSHD_DIR/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PrintMotd no
EOF_CONF
		rm -f "$SSHD_DIR/log"
		/usr/sbin/sshd -D -e -f "$SSHD_DIR/sshd_config" 2>"$SSHD_DIR/log" &
		SSHD_PID=$!
		echo "$SSHD_PID" >>"$SSHD_PIDS"
		wait_for "grep -qs 'Server listening' '$SSHD_DIR/log' || ! kill -0 $SSHD_PID 2>/dev/null" 100
		if grep -q 'Server listening' "$SSHD_DIR/log"; then
			SSH_OPTS="--ssh-arg -i --ssh-arg $SSHD_DIR/user_key --ssh-arg -p --ssh-arg $SSHD_PORT
				--ssh-arg -o --ssh-arg UserKnownHostsFile=$SSHD_DIR/known_hosts
				--ssh-arg -o --ssh-arg StrictHostKeyChecking=accept-new"
			return 0
		fi
		kill "$SSHD_PID" 2>/dev/null
	done
	cat "$SSHD_DIR/log" >&2
	return 1
}

# The processes the daemon started for sessions (their sshd, the shell, perf ...).
sshd_sessions() { pgrep -P "$SSHD_PID"; }

# The command lines of every process below the daemon (its sessions'
# sshd, shells, perf ...), one a line; with -p, "PID ARGS".
sshd_tree() {
	ps -e -o pid=,ppid=,args= | awk -v root="$SSHD_PID" -v with_pid="${1:-}" '
		{ pid[NR] = $1; ppid[NR] = $2; $1 = $2 = ""; args[NR] = substr($0, 3) }
		END {
			in_tree[root] = 1
			do {
				grew = 0
				for (i = 1; i <= NR; i++)
					if (in_tree[ppid[i]] && !in_tree[pid[i]]) { in_tree[pid[i]] = 1; grew = 1 }
			} while (grew)
			for (i = 1; i <= NR; i++)
				if (in_tree[pid[i]] && pid[i] != root)
					print (with_pid == "-p" ? pid[i] " " : "") args[i]
		}'
}

# The pids of this daemon's `perf record` processes. (pgrep -f would also
# see another test's: the shell and ASan runs of a test run at once.)
sshd_perf_pids() { sshd_tree -p | awk '$2 == "perf" && $3 == "record" { print $1 }'; }

# pids_gone PID...: none of them is running.
pids_gone() {
	for _p; do kill -0 "$_p" 2>/dev/null && return 1; done
	return 0
}

# The ssh logins the daemon accepted so far (a multiplexed session is none).
sshd_logins() { grep -c 'Accepted publickey' "$SSHD_DIR/log"; }
