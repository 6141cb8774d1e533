#!/usr/bin/env bash
# Regenerates the traces in tests/e2e/traces/ by running each training script of tests/e2e/scripts/
# under a real PyTorch, through scripts/torch-env.sh (a Debian chroot; see that script).
#
#   tests/e2e/regen.sh [--install] [--legacy] [NAME...]
#     --install  run `scripts/torch-env.sh install` first (root, and the Debian mirror, needed; about
#                2 to 5 minutes the first time, 2 seconds after that)
#     --legacy   use Debian 12's torch 1.13 (TORCHLINT_TORCH_SUITE=bookworm) and write its legacy traces
#                to tests/e2e/traces/torch1.13-legacy/; without it, sid's torch 2.14 writes Kineto traces
#                to tests/e2e/traces/
#     NAME       script names without .py (default: every script in tests/e2e/scripts/)
#
# Each script writes NAME.pt.trace.json into the output folder, which is then gzipped (gzip -n: no name
# or time stamp inside) to NAME.pt.trace.json.gz. The scripts run from the repository root with a
# relative output folder, so the trace's traceName holds no path of this machine.
# Then `python3 tests/e2e/traces/summarize.py` prints the figures quoted in tests/e2e/traces/README.md.
#
# Exit status: 0 done; 77 no PyTorch here (it prints "skipped: ..."); 1 a script failed.
set -euo pipefail
cd "$(dirname "$0")/../.."

install=0
legacy=0
names=()
for arg in "$@"; do
  case "$arg" in
    --install) install=1 ;;
    --legacy) legacy=1 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "regen: unknown option $arg" >&2; exit 2 ;;
    *) names+=("$arg") ;;
  esac
done

env_sh=scripts/torch-env.sh
out=tests/e2e/traces
if [ "$legacy" = 1 ]; then
  export TORCHLINT_TORCH_SUITE=bookworm
  out=tests/e2e/traces/torch1.13-legacy
fi
# Only the chroot: a torch found on the host is not the one this folder's README describes.
export TORCHLINT_TORCH_BACKEND=chroot
# One intra-op thread: with two, on a busy 2-CPU machine, each op waits at OpenMP barriers for a thread
# that is not running, and steps stretch tenfold (a 0.1 ms zero_grad measured 95 ms at load 8).
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}

rc=0
if [ "$install" = 1 ]; then
  "$env_sh" install || rc=$?
else
  "$env_sh" status >/dev/null || rc=$?
fi
if [ "$rc" = 77 ]; then
  echo "skipped: no PyTorch chroot for ${TORCHLINT_TORCH_SUITE:-sid} (scripts/torch-env.sh install)"
  exit 77
elif [ "$rc" != 0 ]; then
  exit 1
fi
echo "regen: $("$env_sh" status)"
# Step times, and so the DataLoader shares, stretch when other work competes for the CPUs: say how busy.
echo "regen: load average $(cut -d' ' -f1-3 /proc/loadavg) on $(getconf _NPROCESSORS_ONLN) CPUs; OMP_NUM_THREADS=$OMP_NUM_THREADS"

if [ ${#names[@]} -eq 0 ]; then
  for script in tests/e2e/scripts/*.py; do
    names+=("$(basename "$script" .py)")
  done
fi

mkdir -p "$out"
failed=()
for name in "${names[@]}"; do
  script=tests/e2e/scripts/$name.py
  [ -f "$script" ] || { echo "regen: no such script: $script" >&2; failed+=("$name"); continue; }
  rm -f "$out/$name.pt.trace.json" "$out/$name.pt.trace.json.gz"
  log=$(mktemp)
  start=$(date +%s%N)
  if "$env_sh" run . -- python3 "$script" "$out" >"$log" 2>&1 && [ -f "$out/$name.pt.trace.json" ]; then
    gzip -n -9 "$out/$name.pt.trace.json"
    ms=$((($(date +%s%N) - start) / 1000000))
    printf 'regen: %-18s %3d.%d s  %s bytes gzipped (%s bytes of JSON)\n' "$name" $((ms / 1000)) $((ms % 1000 / 100)) \
      "$(stat -c %s "$out/$name.pt.trace.json.gz")" \
      "$(gzip -l "$out/$name.pt.trace.json.gz" | awk 'NR == 2 { print $2 }')"
  else
    echo "regen: $name failed; its output:" >&2
    tail -n 20 "$log" >&2
    failed+=("$name")
  fi
  rm -f "$log"
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "regen: failed: ${failed[*]}" >&2
  exit 1
fi
