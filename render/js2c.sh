#!/bin/sh
# render/js2c.sh: turns a .js file into a C string literal (.inc) so the
# renderers can embed their script. The Makefile runs it for every
# render/NAME.js (the .inc is generated, never committed), as:
#	sh render/js2c.sh render/flamegraph.js flamegraph_js >build/gen/flamegraph_js.inc
# (the variable is NAME_js).
set -eu
printf '/* Generated from %s by render/js2c.sh: do not edit. */\n' "$(basename "$1")"
printf 'static const char %s[] =\n' "$2"
sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/\t"/' -e 's/$/\\n"/' "$1"
printf ';\n'
