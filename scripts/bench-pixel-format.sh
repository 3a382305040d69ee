#!/bin/sh
# The 8-bit resize, thumbnail, orientation and crop paths before and after a change to
# WebImageCore (default: origin/main against the working tree), CPU ms per op, the two
# binaries run interleaved ROUNDS times; each line is one round's median of ITERATIONS.
# Both are compiled the same way: WebImageCore's sources and Benchmarks/pixel-format/main.swift
# as one optimised module (swiftc -O -wmo).
#
# Usage (from the project root): sh scripts/bench-pixel-format.sh [base-ref] [rounds] [iterations]
set -eu
BASE=${1:-origin/main}
ROUNDS=${2:-5}
ITERATIONS=${3:-7}
WORK=${TMPDIR:-/tmp}/webimage-bench-pixel-format
rm -rf "$WORK" && mkdir -p "$WORK/base"
git archive "$BASE" Sources/WebImageCore | tar -x -C "$WORK/base"
build() { # $1: sources root, $2: output
    # shellcheck disable=SC2046 # one argument per source file (no spaces in the tree)
    swiftc -O -wmo -swift-version 6 -package-name swift_web_image -module-name PixelFormatBench -o "$2" \
        $(find "$1/Sources/WebImageCore" -name '*.swift') Benchmarks/pixel-format/main.swift
}
build "$WORK/base" "$WORK/before"
build . "$WORK/after"
for round in $(seq "$ROUNDS"); do
    echo "== round $round"
    "$WORK/before" "$ITERATIONS" | sed 's/^/before /'
    "$WORK/after" "$ITERATIONS" | sed 's/^/after  /'
done
