#!/bin/sh
# tools/mkdeb.sh: the Debian package from an installed tree (`make deb`).
#
#	tools/mkdeb.sh VERSION ROOT OUTDIR    # ROOT: make install DESTDIR=ROOT PREFIX=/usr
#
# Writes OUTDIR/flamepipe_VERSION_ARCH.deb with dpkg-deb under fakeroot
# (files owned by root without being root). Depends is what dpkg-shlibdeps
# finds the programs linked against: runtime libraries only, never a -dev
# package or a compiler (checked here: the package is for hosts that have
# neither). Recommends linux-perf (the live captures' perf); bpftrace and
# ssh are only for `live --source bpftrace` and `live --ssh`.
set -eu
version=$1 root=$2 out=$3
arch=$(dpkg --print-architecture)
root=$(cd "$root" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for f in "$root"/usr/bin/*; do
	strip --strip-unneeded "$f"
done
install -d "$root/usr/share/doc/flamepipe"
install -m 0644 README.md "$root/usr/share/doc/flamepipe/README.md"
gzip -9n "$root"/usr/share/man/man1/*.1

# dpkg-shlibdeps wants a debian/control to read; it names each library's
# package (libcurl4, libev4, ...) with the version the binaries need.
mkdir -p "$tmp/debian"
printf 'Source: flamepipe\n\nPackage: flamepipe\nArchitecture: any\n' >"$tmp/debian/control"
deps=$(cd "$tmp" && dpkg-shlibdeps -O "$root"/usr/bin/* 2>"$tmp/shlibdeps.err" |
	sed -n 's/^shlibs:Depends=//p') || { cat "$tmp/shlibdeps.err" >&2; exit 1; }
[ -n "$deps" ] || { echo "mkdeb.sh: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
if echo "$deps" | tr ',' '\n' | grep -E -- '-dev( |$)|^ *(gcc|cc|clang|build-essential)( |$)' >&2; then
	echo "mkdeb.sh: a build dependency in Depends" >&2
	exit 1
fi

mkdir -p "$root/DEBIAN"
cat >"$root/DEBIAN/control" <<CONTROL
Package: flamepipe
Version: $version
Architecture: $arch
Maintainer: flamepipe developers <flamepipe@localhost>
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Depends: $deps
Recommends: linux-perf
Suggests: bpftrace, openssh-client
Section: devel
Priority: optional
Description: CPU time of a Linux machine while the workload runs
 A streaming pipeline of small programs over FIFOs: perf (or bpftrace)
 samples become a subsecond-offset heatmap, a time range of it a flame
 graph, live in the terminal or a web page, or a report of a finished
 capture (flamepipe report, live, serve, push).
CONTROL
deb="$out/flamepipe_${version}_$arch.deb"
fakeroot dpkg-deb --build -Zxz "$root" "$deb" >/dev/null
echo "$deb"
