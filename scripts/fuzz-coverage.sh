#!/usr/bin/env bash
# Coverage-guided fuzzing with libFuzzer (`make fuzz-coverage`): builds webimage-fuzz with
# -sanitize=fuzzer,address into .build-fuzz and runs every target (or FUZZ_TARGETS) for
# FUZZ_SECONDS each, FUZZ_JOBS at a time, then prints one line per target:
#   fuzz: TARGET execs=N cov=N crashes=N leaks=N timeouts=N ooms=N
# Corpora grow in .build-fuzz-corpus/TARGET (git-ignored), so a later run starts where this one
# ended; image targets also read ../shared/corpus (never copied). Findings (crash-*, leak-*,
# timeout-*, oom-*) land in .build-fuzz-corpus/TARGET.findings; replay one with
#   swift run webimage-fuzz TARGET FILE
# Exits non-zero when any target has a finding. docs/FUZZING.md says what is covered.
set -euo pipefail
cd "$(dirname "$0")/.."

SWIFT=${SWIFT:-swift}
FUZZ_SECONDS=${FUZZ_SECONDS:-600}
FUZZ_JOBS=${FUZZ_JOBS:-2}
FUZZ_RSS_MB=${FUZZ_RSS_MB:-2048}
FUZZ_TIMEOUT=${FUZZ_TIMEOUT:-10}
CORPUS=${WEBIMAGE_CORPUS:-../shared/corpus}
WORK=.build-fuzz-corpus
BIN=.build-fuzz/debug/webimage-fuzz

# SwiftPM passes its sanitizers as separate `-sanitize=` flags in a per-process random order, and
# swiftc keeps only the last one: half the builds had coverage without ASan, half ASan without
# coverage. The trailing combined flag gives every Swift module both. `-O` (after the debug
# configuration's `-Onone`, so it wins; bounds and overflow checks stay) makes a whole-image
# decode take milliseconds instead of seconds, so a timeout means a slow input, not -Onone.
[ -n "${FUZZ_SKIP_BUILD:-}" ] || "$SWIFT" build --sanitize=fuzzer --sanitize=address --scratch-path .build-fuzz --product webimage-fuzz \
  -Xswiftc -DWEBIMAGE_LIBFUZZER -Xswiftc -use-ld=lld -Xswiftc -sanitize=fuzzer,address -Xswiftc -O
# The same sources without libFuzzer: lists the targets and writes their generated seeds.
[ -n "${FUZZ_SKIP_BUILD:-}" ] || "$SWIFT" build --product webimage-fuzz >/dev/null
REPLAY=$("$SWIFT" build --show-bin-path)/webimage-fuzz

TARGETS=${FUZZ_TARGETS:-$("$REPLAY" --list | cut -f1)}
mkdir -p "$WORK"

run_target() {
  local target=$1 max_len dict extra=()
  case $target in
    decode) max_len=1048576; dict=images.dict ;;
    header) max_len=65536; dict=images.dict ;;
    jpeg-scans | jpeg-eighth) max_len=262144; dict=images.dict ;;
    request-path) max_len=8192; dict=imgproxy.dict ;;
    source-url) max_len=4096; dict=urls.dict ;;
    svg-sanitizer) max_len=65536; dict=svg.dict ;;
    disk-index) max_len=65536; dict=disk-index.dict ;;
    *) max_len=65536; dict= ;;
  esac
  local grow=$WORK/$target seeds=$WORK/$target.seeds findings=$WORK/$target.findings
  mkdir -p "$grow" "$seeds" "$findings"
  "$REPLAY" --seeds "$target" "$seeds"
  case $target in decode | header | jpeg-scans | jpeg-eighth) [ -d "$CORPUS" ] && extra+=("$CORPUS") ;; esac
  [ -n "$dict" ] && dict="-dict=Fuzz/dictionaries/$dict"
  WEBIMAGE_FUZZ_TARGET=$target SWIFT_BACKTRACE=enable=no \
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1:detect_odr_violation=0 \
  LSAN_OPTIONS=suppressions=$PWD/Fuzz/lsan.supp \
    "$BIN" "$grow" "$seeds" "${extra[@]}" $dict -max_total_time="$FUZZ_SECONDS" -max_len="$max_len" \
      -rss_limit_mb="$FUZZ_RSS_MB" -malloc_limit_mb="$FUZZ_RSS_MB" -timeout="$FUZZ_TIMEOUT" \
      -print_final_stats=1 -artifact_prefix="$findings/" >"$WORK/$target.log" 2>&1 || true
  # Which of our functions the grown corpus reaches (replayed once, no mutation).
  WEBIMAGE_FUZZ_TARGET=$target ASAN_OPTIONS=detect_leaks=0:detect_odr_violation=0 \
    "$BIN" "$grow" -runs=0 -print_coverage=1 -max_len="$max_len" >"$WORK/$target.coverage" 2>&1 || true
}

summarise() {
  local target=$1 log=$WORK/$1.log findings=$WORK/$1.findings
  local execs cov
  execs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | tail -1 | awk '{print $2}')
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | awk '{print $2}')
  printf 'fuzz: %s execs=%s cov=%s crashes=%d leaks=%d timeouts=%d ooms=%d\n' "$target" "${execs:-0}" "${cov:-0}" \
    "$(find "$findings" -name 'crash-*' | wc -l)" "$(find "$findings" -name 'leak-*' | wc -l)" \
    "$(find "$findings" -name 'timeout-*' | wc -l)" "$(find "$findings" -name 'oom-*' | wc -l)"
}

running=0
for target in $TARGETS; do
  run_target "$target" &
  running=$((running + 1))
  if [ "$running" -ge "$FUZZ_JOBS" ]; then wait -n; running=$((running - 1)); fi
done
wait

status=0
for target in $TARGETS; do
  line=$(summarise "$target")
  echo "$line"
  case $line in *"crashes=0 leaks=0 timeouts=0 ooms=0"*) ;; *) status=1 ;; esac
  # A binary without coverage counters reaches nothing (seen once after an incremental rebuild
  # of .build-fuzz following a manifest change): say so rather than report an empty run.
  if grep -q "Is the code instrumented for coverage" "$WORK/$target.log"; then
    echo "fuzz: $target: the binary is not instrumented; rebuild after rm -rf .build-fuzz" >&2
    status=1
  fi
done
exit $status
