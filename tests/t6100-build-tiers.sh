#!/bin/sh
test_description='the build: make builds the programs only, a missing package is named in one line, make test installs nothing'
. "$(dirname "$0")/test-lib.sh"

# A machine without some packages, made up: a compiler that cannot see the
# headers named in $HIDE, and a pkg-config that knows only zlib. `make -n`
# into a fresh build dir shows what would be built without building it.
cat >cc <<'EOF'
#!/bin/sh
case " $* " in *" -E "*)
	src=$(cat)
	for h in $HIDE; do case $src in *"<$h>"*) exit 1 ;; esac; done
	printf '%s\n' "$src" | exec cc "$@" ;;
esac
exec cc "$@"
EOF
chmod +x cc
mkdir pc && cp "$(pkg-config --variable pcfiledir zlib)/zlib.pc" pc/
dry() { # HIDE GOAL...: make -n as on a machine without HIDE's headers
	_hide=$1; shift
	# (not the jobserver of a make check that runs this test)
	HIDE=$_hide PKG_CONFIG_LIBDIR=$TRASH/pc env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -n -C "$TOP" \
		CC="$TRASH/cc" BUILD="$TRASH/b" BIN="$TRASH/bin" "$@"
}
# Whether the make -n output PLAN builds every stage of stages/ and flamepipe.
builds_the_stages() { # PLAN
	for s in "$TOP"/stages/*.c; do
		grep -q -- "-o $TRASH/bin/$(basename "$s" .c) " "$1" || { echo "no $s"; return 1; }
	done &&
	grep -q -- "-o $TRASH/bin/flamepipe " "$1"
}

test_expect_success 'make builds every stage, flamepipe and fp-serve, and no test program' '
	dry "" all >plan 2>err &&
	builds_the_stages plan &&
	grep -q -- "-o $TRASH/bin/fp-serve " plan &&
	! grep -- "-o $TRASH/b/tests/" plan &&
	! grep -- "-lcmocka" plan
'

test_expect_success 'without libev-dev: one line naming the package and make deps' '
	test_must_fail dry "ev.h" all >plan 2>err &&
	test "$(wc -l <err)" = 1 &&
	grep "libev not found: apt-get install libev-dev, or run make deps" err &&
	! grep -- "-c -o" plan
'

test_expect_success 'without cmocka and libmicrohttpd: make builds the stages and says fp-serve is skipped' '
	dry "cmocka.h microhttpd.h" all >plan 2>err &&
	builds_the_stages plan &&
	! grep -- "bin/fp-serve" plan &&
	grep -q "libmicrohttpd not found: fp-serve not built (apt-get install libmicrohttpd-dev, or run make deps)" plan
'

test_expect_success 'without cmocka: the test build names libcmocka-dev in one line' '
	test_must_fail dry "cmocka.h" tests >plan 2>err &&
	test "$(wc -l <err)" = 1 &&
	grep "cmocka not found: apt-get install libcmocka-dev, or run make deps" err
'

test_expect_success 'make deps needs no probe (it is what installs the packages)' '
	dry "ev.h cmocka.h microhttpd.h" deps >plan 2>err &&
	grep -q "install-deps.sh" plan
'

test_expect_success 'make test and make check install nothing; make deps test does, first' '
	dry "" test >plan 2>err &&
	! grep "install-deps\|apt-get" plan &&
	dry "" check >plan 2>err &&
	! grep "install-deps\|apt-get" plan &&
	dry "" deps test >plan 2>err &&
	head -n 1 plan | grep -q "install-deps.sh"
'

test_expect_success 'CI runs the README test command' '
	grep -q "^    make deps test " "$TOP/README.md" &&
	grep -qx "make deps test" "$TOP/.ci/run"
'

test_expect_success 'the embedded scripts are generated from render/*.js by make' '
	dry "" all >plan 2>err &&
	for js in "$TOP"/render/*.js; do
		n=$(basename "$js" .js) &&
		grep -q "^sh render/js2c.sh render/$n.js ${n}_js >$TRASH/b/gen/${n}_js.inc.tmp" plan ||
			{ echo "no rule for $js"; exit 1; }
	done
'

test_expect_success 'FP_SKIP=perf skips a script tagged perf whole, in one skip line' '
	FP_SKIP=slow,perf sh "$TOP/tests/t1005-read-perf.sh" >out &&
	grep "^ok 1 - t1005-read-perf # skip tagged perf: FP_SKIP=slow,perf" out &&
	grep -qx "1..1" out
'

test_done
