# shellcheck shell=sh
# tests/lib-export.sh: helpers for the export tests (pprof, speedscope).

# The stacks of a pprof profile, as folded lines `comm;root;...;leaf count`
# sorted bytewise like stacks.folded: `go tool pprof -traces` with the comm
# label as root frame (-tagroot), summed per stack. Extra arguments go to
# pprof (-tagfocus=..., -sample_index=...). pprof marks a frame inlined
# into its caller with " (inline)": that mark is removed.
pprof_folded() { # profile [pprof args...]
	f=$1; shift
	go tool pprof -traces -tagroot=comm "$@" "$f" 2>pprof.err |
	awk '
	function flush() { if (n) { for (i = 1; i <= n; i++) sub(/ \(inline\)$/, "", st[i]); s = st[n]; for (i = n - 1; i >= 1; i--) s = s ";" st[i]; sum[s] += cnt } n = 0 }
	/^-----------\+/ { flush(); next }
	substr($0, 11, 1) == ":" { next }			# a label line: "      comm:  x"
	/^ *[0-9]+   / && substr($0, 1, 10) ~ /[0-9]/ {	# "     count   leaf"
		flush(); cnt = $1; sub(/^ *[0-9]+   /, ""); st[++n] = $0; next }
	/^             [^ ]/ && n { sub(/^             /, ""); st[++n] = $0 }
	END { flush(); for (s in sum) print s, sum[s] }' | LC_ALL=C sort
}

# Whether go tool pprof runs here (golang-go).
have_pprof() { command -v go >/dev/null 2>&1 && go tool pprof -h >/dev/null 2>&1; }
