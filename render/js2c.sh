#!/bin/sh
# render/js2c.sh: turns a .js file into a C string literal (.inc) so the
# renderers can embed their script. Run after editing a .js file:
#	sh render/js2c.sh render/flamegraph.js flame_js >render/flamegraph_js.inc
# (tests/t5000-render-svg.sh checks that the .inc files are up to date).
set -eu
printf '/* Generated from %s by render/js2c.sh: do not edit. */\n' "$(basename "$1")"
printf 'static const char %s[] =\n' "$2"
sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/\t"/' -e 's/$/\\n"/' "$1"
printf ';\n'
