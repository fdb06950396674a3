#!/bin/sh
test_description='the shell scripts pass shellcheck (.shellcheckrc), the C files clang-format (.clang-format)'
. "$(dirname "$0")/test-lib.sh"

# Every shell script of the tree but installed packages and build output.
shell_scripts() {
	(cd "$TOP" && find . \( -path ./tests/browser/node_modules -o -path './build*' \
		-o -path './bin*' -o -path ./.git -o -path ./tests/out \) -prune -o \
		-name '*.sh' -type f -print | LC_ALL=C sort)
}

test_expect_success 'shellcheck finds a warning (it can fail)' '
	printf "#!/bin/sh\nx=\$(ls)\ntest \$(echo \$x) = 1\n" >bad.sh &&
	test_must_fail shellcheck -S warning bad.sh >out &&
	grep -q SC2046 out
'

test_expect_success 'every shell script passes shellcheck at warning level' '
	shell_scripts >list &&
	test "$(wc -l <list)" -gt 100 &&
	(cd "$TOP" && xargs shellcheck -S warning) <list
'

# Every C file of the tree, as the formatter sees it.
c_sources() {
	(cd "$TOP" && find . \( -path ./tests/browser/node_modules -o -path './build*' \
		-o -path './bin*' -o -path ./.git -o -path ./tests/out -o -path ./bench/cache \
		-o -path ./tests/cache -o -path ./tests/pyroscope/node_modules \) -prune -o \
		\( -name '*.c' -o -name '*.h' -o -name '*.cc' \) -type f -print | LC_ALL=C sort)
}

test_expect_success 'clang-format finds a badly formatted file (it can fail)' '
	printf "int  main( void ){return 0;}\n" >bad.c &&
	cp "$TOP/.clang-format" . &&
	test_must_fail clang-format --dry-run -Werror bad.c 2>err
'

test_expect_success 'every C file is formatted as .clang-format says' '
	c_sources >list &&
	test "$(wc -l <list)" -gt 100 &&
	(cd "$TOP" && xargs clang-format --dry-run -Werror) <list
'

test_done
