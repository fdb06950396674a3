# shellcheck shell=sh
# bench/env.sh: sourced first by the bench scripts. Sets $here (bench/),
# $root (the checkout) and puts FP_BIN (the binaries; default bin/, a
# relative path is taken from the checkout) first on PATH, exported.
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
FP_BIN=${FP_BIN:-$root/bin}
case $FP_BIN in /*) ;; *) FP_BIN=$root/$FP_BIN ;; esac
PATH=$FP_BIN:$PATH
export PATH
