#!/bin/sh
test_description='the shell scripts pass shellcheck (.shellcheckrc)'
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

test_done
