#!/usr/bin/env bash
# Trace-module figures for issue 3: `bench_trace` (ingest + every analysis) beside Python's
# `json.load` on the same file in the same run, on the decompressed 94 MB PyTorch 2.14 trace and on a
# generated 1 GB trace: wall and CPU seconds, MB/s, peak RSS, and the speedup on CPU and on wall time.
# Then a linearity line: our wall and CPU time and peak RSS on generated ~250 MB, ~500 MB and 1 GB traces (the
# generator writes whole copies of the source's steps, so they come out at about 320, 565 and 1050 MB).
# Large files go to $TL_BENCH_DIR (default /tmp/tl_bench), never the repository.
#
# The machine is shared, so each of our figures is the median of $TL_BENCH_RUNS runs (default 3), taken
# with one parsing thread and with the default (one per CPU, at most 8); CPU time (user + system) is
# printed beside the wall time, since other people's work disturbs it less and threads add to it.
# json.load runs once per file (it takes ~40 s on 1 GB). `uptime` is printed with the figures.
# usage: bench/trace.sh [BUILD_DIR]     (BUILD_DIR holds bench/bench_trace; default build)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
bench=$build/bench/bench_trace
shared=${TORCHLINT_SHARED_TRACES:-$here/../../shared/traces}
work=${TL_BENCH_DIR:-/tmp/tl_bench}
runs=${TL_BENCH_RUNS:-3}
src=$shared/cpu/torch2.14.1/h_big.active30.pt.trace.json.gz
[ -x "$bench" ] || { echo "build bench_trace first (cmake --build $build --target bench_trace)"; exit 2; }
[ -f "$src" ] || { echo "skipped: $src not found"; exit 0; }
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (Debian package: time)"; exit 2; }
mkdir -p "$work"
[ -f "$work/h_big.json" ] || gzip -dc "$src" > "$work/h_big.json"
for size in 250 500 1000; do
  name=big_${size}mb.json
  [ "$size" = 1000 ] && name=big_1gb.json
  [ -f "$work/$name" ] || python3 "$here/gen_big_trace.py" "$src" "$work/$name" "$size" >&2
done

timing=$(mktemp)
trap 'rm -f "$timing"' EXIT
# "wall user sys maxrss_kb" of a command, from GNU time.
measure() { /usr/bin/time -o "$timing" -f '%e %U %S %M' "$@" > /dev/null 2>&1; tail -1 "$timing"; }
# Median (by wall time) of $runs runs of bench_trace: "wall cpu rss_mb". Extra arguments go to bench_trace.
ours() {
  local f=$1
  shift
  for _ in $(seq "$runs"); do
    read -r w u s k < <(measure "$bench" "$f" "$@")
    python3 -c "print(f'{$w:.3f} {$u+$s:.3f} {$k/1024:.1f}')"
  done | sort -n -k1 | sed -n "$(( (runs + 1) / 2 ))p"
}
mb_of() { python3 -c "import os; print(f'{os.path.getsize(\"$1\")/1e6:.1f}')"; }

echo "# $(date -u '+%F %T UTC')  $(uptime | sed 's/.*load/load/')  $(nproc) CPUs"
echo "# ours = bench_trace (read + analyse), median of $runs, with 1 thread and with the default (one per CPU);"
echo "# json = python3 -c 'import json; json.load(open(F))', once. x = json's time over ours: wall, and CPU (user+sys)."
printf '%-14s %7s | %6s %6s | %6s %6s %7s %6s | %6s %6s %6s | %6s %6s %6s\n' \
  file MB 1t_s 1t_cpu Nt_s Nt_cpu MB/s rss_MB json_s j_cpu rss_MB x_1t x_Nt x_cpuNt
for f in "$work/h_big.json" "$work/big_1gb.json"; do
  mb=$(mb_of "$f")
  read -r sw sc _ < <(ours "$f" --threads 1)
  read -r ow oc orss < <(ours "$f")
  read -r pw pu ps pk < <(measure python3 -c "import json; json.load(open('$f'))")
  python3 - "$f" "$mb" "$sw" "$sc" "$ow" "$oc" "$orss" "$pw" "$pu" "$ps" "$pk" <<'EOF2'
import os, sys
f, mb, sw, sc, ow, oc, orss, pw, pu, ps, pk = sys.argv[1], *map(float, sys.argv[2:])
pc = pu + ps
print(f"{os.path.basename(f):<14} {mb:7.1f} | {sw:6.3f} {sc:6.3f} | {ow:6.3f} {oc:6.3f} {mb / ow:7.0f} {orss:6.1f} | "
      f"{pw:6.2f} {pc:6.2f} {pk / 1024:6.0f} | {pw / sw:5.1f}x {pw / ow:5.1f}x {pc / oc:5.1f}x")
EOF2
done

# Linearity: wall and CPU seconds per GB and peak RSS as the input grows; all should stay flat per MB,
# and the peak RSS below the file's size.
line="linearity (ours, default threads):"
for name in big_250mb.json big_500mb.json big_1gb.json; do
  f=$work/$name
  mb=$(mb_of "$f")
  read -r ow oc orss < <(ours "$f")
  line+=$(python3 -c "print(f'  {$mb:.0f} MB: {$ow:.2f} s wall ({$ow / $mb * 1000:.2f} s/GB), {$oc / $mb * 1000:.2f} s/GB CPU, rss {$orss:.0f} MB ({$orss / $mb * 100:.0f}% of file)')")
  line+=";"
done
echo "${line%;}"
