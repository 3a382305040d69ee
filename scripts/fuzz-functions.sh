#!/usr/bin/env bash
# Summarises libFuzzer's -print_coverage output (TARGET.coverage, written by
# scripts/fuzz-coverage.sh) as functions reached per source folder of this project:
#   FOLDER covered/total
# usage: bash scripts/fuzz-functions.sh .build-fuzz-corpus/TARGET.coverage [FOLDER-PREFIX...]
set -euo pipefail
file=$1; shift
root="$(cd "$(dirname "$0")/.." && pwd)/Sources/"
grep -a -E '^(COVERED|UNCOVERED)_FUNC' "$file" | awk -v root="$root" '
  {
    path = $NF; sub(/:[0-9]+$/, "", path)
    if (index(path, root) != 1) next
    rel = substr(path, length(root) + 1)
    n = split(rel, parts, "/")
    folder = (n > 2) ? parts[1] "/" parts[2] : parts[1]
    key = folder SUBSEP $6
    if (seen[key]++) next
    total[folder]++
    if ($1 == "COVERED_FUNC:") covered[folder]++
  }
  END { for (f in total) printf "%s %d/%d\n", f, covered[f], total[f] }' | sort | {
  if [ $# -eq 0 ]; then cat; else grep -E "^($(IFS='|'; echo "$*"))" || true; fi
}
