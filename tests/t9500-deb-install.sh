#!/bin/sh
test_description='make deb: the package installs with apt into a fresh Debian 12 root with no compiler and no -dev packages, and its flamepipe works there'
. "$(dirname "$0")/test-lib.sh"
test_tags slow

# The fresh root: Debian 12 minbase made by mmdebstrap from the Debian
# mirror /etc/apt names, cached as a tarball (and apt's downloaded .debs)
# under FP_DEB_CACHE, so a run pays for it once; every test extracts it
# anew. Needs root (chroot, mounts), mmdebstrap and the mirror.
CACHE=${FP_DEB_CACHE:-$TOP/tests/cache/deb}	# not under build/: make reads *.d there
[ "$(id -u)" = 0 ] || skip_all 'deb install' 'needs root (chroot)'
for c in mmdebstrap dpkg-deb fakeroot unshare chroot flock; do
	command -v $c >/dev/null 2>&1 || skip_all 'deb install' "$c is not installed (tools/install-deps.sh)"
done

# The Debian mirror of /etc/apt (deb822 or one-line sources), else Debian's.
mirror() {
	{ sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/*.sources 2>/dev/null
	  sed -n 's/^deb  *\(\[[^]]*\] *\)\{0,1\}\([^ ]*\) .*/\2/p' /etc/apt/sources.list 2>/dev/null; } |
		tr ' ' '\n' | grep -E '/debian/?$' | head -n 1 | grep . || echo http://deb.debian.org/debian
}

mkdir -p "$CACHE/archives/partial" || skip_all 'deb install' "cannot create $CACHE"
if ! flock "$CACHE/lock" sh -c '
	test -s "$1/bookworm-minbase.tar" && exit 0
	mmdebstrap --quiet --variant=minbase --format=tar bookworm "$1/bookworm-minbase.tmp.tar" "$2" \
		>"$1/mmdebstrap.log" 2>&1 &&
		mv "$1/bookworm-minbase.tmp.tar" "$1/bookworm-minbase.tar"' sh "$CACHE" "$(mirror)"; then
	tail -n 5 "$CACHE/mmdebstrap.log" >&2
	skip_all 'deb install' "mmdebstrap could not make a Debian 12 root from $(mirror)"
fi

make -s -C "$TOP" deb >deb.path 2>make.err || { cat make.err >&2; skip_all 'deb install' 'make deb failed'; }
DEB=$TOP/$(tail -n 1 deb.path)

# in_root SCRIPT: runs SCRIPT (sh) chrooted in ./root, in a mount namespace
# of its own: /proc, /sys, /dev and apt's download cache mounted there for
# the script's time only
in_root() {
	unshare -m --propagation private sh -c '
		mount -t proc proc root/proc && mount -t sysfs sys root/sys &&
		mount --rbind /dev root/dev && mount --bind "$1" root/var/cache/apt/archives &&
		chroot root /bin/sh -c "$2"' sh "$CACHE/archives" "$1"
}

test_expect_success 'make deb: flamepipe_VERSION_ARCH.deb, libraries in Depends, no -dev package, no compiler' '
	version=$(sed -n "s/^#define FP_VERSION \"\(.*\)\"/\1/p" "$TOP/runner/commands.h") &&
	test "$(basename "$DEB")" = "flamepipe_${version}_$(dpkg --print-architecture).deb" &&
	dpkg-deb -f "$DEB" Depends >depends && cat depends &&
	grep -q "libcurl4" depends && grep -q "libev4" depends && grep -q "libc6" depends &&
	! tr "," "\n" <depends | grep -E -- "-dev |-dev\$|gcc|clang|build-essential" &&
	test "$(dpkg-deb -f "$DEB" Recommends)" = linux-perf &&
	dpkg-deb -c "$DEB" >files &&
	grep -q " ./usr/bin/flamepipe\$" files && grep -q " ./usr/bin/fp-push\$" files &&
	grep -q " ./usr/share/man/man1/fp-push.1.gz\$" files &&
	grep -q " ./usr/share/flamepipe/default.pipeline\$" files &&
	grep -q " ./usr/share/flamepipe/examples/demo-clockloop.perf.gz\$" files
'

test_expect_success 'apt-get install ./flamepipe_*.deb into a fresh Debian 12 root: its dependencies come from the mirror' '
	mkdir root && tar -xf "$CACHE/bookworm-minbase.tar" -C root &&
	cp /etc/resolv.conf root/etc/resolv.conf &&
	cp "$DEB" root/tmp/ &&
	! chroot root sh -c "command -v cc || command -v gcc || command -v clang" &&
	in_root "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ./tmp/$(basename "$DEB")" \
		>apt.out 2>apt.err || { tail -n 20 apt.out apt.err; return 1; }
	chroot root dpkg-query -W -f "\${Status}\n" flamepipe | grep -q "install ok installed" &&
	! chroot root sh -c "command -v cc || command -v gcc || command -v clang" &&
	! chroot root dpkg-query -W -f "\${Package}\n" | grep -E -- "-dev\$|^gcc|^cpp|^build-essential" &&
	chroot root man -w fp-push >/dev/null 2>&1 || chroot root test -f /usr/share/man/man1/fp-push.1.gz
'

test_expect_success 'the installed flamepipe report on the bundled example writes the report' '
	test -x root/usr/bin/flamepipe || return 1
	in_root "flamepipe report /usr/share/flamepipe/examples/demo-clockloop.perf.gz -o /tmp/rep" \
		>rep.out 2>rep.err || { cat rep.err; return 1; }
	for f in index.html flame.svg heatmap.svg heatmap.json stacks.folded; do
		test -s "root/tmp/rep/$f" || { echo "no $f"; return 1; }
	done &&
	flamepipe report "$EXAMPLES/demo-clockloop.perf.gz" -o here 2>/dev/null &&
	for f in stacks.folded heatmap.json heatmap.tsv; do	# the build tree'"'"'s report, byte for byte
		cmp "here/$f" "root/tmp/rep/$f" || return 1
	done
'

test_expect_success 'the installed flamepipe live --duration 3 runs with the root'"'"'s own perf (linux-perf)' '
	test -x root/usr/bin/flamepipe || return 1
	chroot root sh -c "command -v perf" || { echo "linux-perf not installed in the root"; return 1; }
	in_root "perf record -F 99 -a -o /dev/null -- true" >probe.out 2>&1 ||
		{ echo "perf cannot sample here: skipped"; cat probe.out; return 0; }
	in_root "flamepipe live -F 99 -a -g --duration 3 --no-term -o /tmp/live" >live.out 2>live.err ||
		{ cat live.err; return 1; }
	cat live.err &&
	read=$(sed -n "s/.*: \([0-9]*\) samples read,.*/\1/p" live.err) &&
	test "$read" -gt 0 &&
	test -s root/tmp/live/index.html
'

test_done
