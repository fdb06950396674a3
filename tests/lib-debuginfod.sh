# shellcheck shell=sh
# tests/lib-debuginfod.sh: captures "from another host" and a real
# debuginfod server, for fp-perfdata's build-id tests (t1191). Debian's
# debuginfod listens on every address of its network namespace, so the
# script runs in a namespace of its own whose only address is 127.0.0.1.
#
#	di_own_network "$0" "$@"   first thing in the script, before
#	                     test-lib.sh: re-runs it in a private network
#	                     namespace (root and unshare -n), loopback up;
#	                     di_need_network (after test-lib.sh) skips the
#	                     script where that could not be done
#	di_start DIR         debuginfod -F serving the ELF files under DIR on
#	                     127.0.0.1:$DI_PORT ($DI_URL), database ./di.sqlite
#	di_serves ID KIND    the server answers buildid/ID/KIND (executable,
#	                     debuginfo): wait_for it after di_start
#	di_stop              ends it (test_when_finished)
#	pd_build_id_of FILE        the build-id of an ELF file (its note)
#	pd_build_id DATA NAME      the build-id perf recorded for NAME
#	pd_set_build_id DATA NAME HEX   rewrites that build-id in DATA (a
#	                     capture of another kernel, vdso, build)
#	pd_forget_cache DIR ID     removes perf's build-id cache entry of ID
#	                     from DIR (as if the capture came without it)

di_own_network() {
	if [ -z "${FP_DI_NETNS:-}" ] && [ "$(id -u)" = 0 ] && command -v ip >/dev/null 2>&1 &&
	   unshare -n true 2>/dev/null; then
		FP_DI_NETNS=1 exec unshare -n sh "$@"
	fi
}

di_need_network() {
	[ -n "${FP_DI_NETNS:-}" ] ||
		skip_all 'debuginfod on 127.0.0.1' 'needs root and unshare -n (a network namespace of its own)'
	ip link set lo up || skip_all 'debuginfod on 127.0.0.1' 'cannot bring up lo'
	command -v debuginfod >/dev/null 2>&1 ||
		skip_all 'a real debuginfod server' 'debuginfod is not installed (tools/install-deps.sh)'
}

DI_PORT=8002
DI_URL=http://127.0.0.1:$DI_PORT

di_start() { # dir
	debuginfod -F -d "$PWD/di.sqlite" -p "$DI_PORT" -t 0 -g 0 "$1" >di.log 2>&1 &
	DI_PID=$!
}

di_serves() { # id kind
	curl -sf -o /dev/null "$DI_URL/buildid/$1/$2"
}

# (a server stopped with connections waiting may not end on SIGTERM)
di_stop() {
	[ -n "${DI_PID:-}" ] || return 0
	kill -CONT "$DI_PID" 2>/dev/null
	kill "$DI_PID" 2>/dev/null
	wait_for "! kill -0 $DI_PID 2>/dev/null || ! grep -q \"^State:.*[RS]\" /proc/$DI_PID/status" 10 ||
		kill -9 "$DI_PID" 2>/dev/null
	wait "$DI_PID" 2>/dev/null
	DI_PID=
}

# The build-id of an ELF file (its GNU build-id note).
pd_build_id_of() { # file
	readelf -n "$1" | awk "/Build ID:/ { print \$3; exit }"
}

pd_build_id() { # data name
	perf buildid-list -i "$1" 2>/dev/null | awk -v n="$2" '$2 == n { print $1; exit }'
}

# The build-id feature's entry: header (8), pid (4), 24 bytes of build-id,
# then the NUL-terminated name (perf's struct perf_record_header_build_id).
pd_set_build_id() { # data name hex
	perl -e '
		my ($path, $name, $hex) = @ARGV;
		open(my $f, "+<:raw", $path) or die "$path: $!";
		local $/; my $d = <$f>;
		my $at = rindex($d, "$name\0");
		die "no build-id entry of $name\n" if $at < 36;
		substr($d, $at - 24, length($hex) / 2) = pack("H*", $hex);
		seek($f, 0, 0); print $f $d; close($f) or die "$path: $!";
	' "$@"
}

pd_forget_cache() { # dir id
	_l=$1/.build-id/$(echo "$2" | cut -c1-2)/$(echo "$2" | cut -c3-)
	_t=$(readlink -f "$_l") && rm -rf "$_l" "$_t"
}
