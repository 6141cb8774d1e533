#!/usr/bin/env bash
# The HTML report of a real trace, rendered by headless Chromium: the dumped DOM must hold the SVG
# charts (one stacked bar per step with one rect per role present, the top-kernel bars) and the section
# titles, and the page must refer to nothing outside itself. The screenshot is kept as a test artefact.
# Usage: html_report_chromium.sh TORCHLINT_EXE SOURCE_DIR ARTIFACT_DIR
set -euo pipefail
exe=$1 src=$2 artifacts=$3

if ! command -v chromium >/dev/null 2>&1; then
  echo "skipped: chromium not installed"
  exit 0
fi
traces=${TORCHLINT_SHARED_TRACES:-$src/../shared/traces}
trace=$traces/real/kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz
if [[ ! -f $trace ]]; then
  echo "skipped: no shared trace at $trace (set TORCHLINT_SHARED_TRACES)"
  exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$artifacts"
"$exe" trace "$trace" --format html -o "$work/report.html"
"$exe" trace "$trace" --format json >"$work/report.json"

fail() { echo "FAIL: $*" >&2; exit 1; }
grep -qiE '(src|href)="https?://' "$work/report.html" && fail "the page refers to an external resource"
grep -qi '<script' "$work/report.html" && fail "the page has a script"

chrome=(chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
  --disable-component-update --disable-sync)
timeout 120 "${chrome[@]}" --user-data-dir="$(mktemp -d -p "$work")" --dump-dom "file://$work/report.html" \
  >"$work/dom.html" 2>"$work/chromium.log" || { cat "$work/chromium.log" >&2; fail "chromium --dump-dom failed"; }
timeout 120 "${chrome[@]}" --user-data-dir="$(mktemp -d -p "$work")" --screenshot="$artifacts/html_report.png" \
  --window-size=1280,2000 "file://$work/report.html" >/dev/null 2>>"$work/chromium.log" ||
  { cat "$work/chromium.log" >&2; fail "chromium --screenshot failed"; }

count() { grep -o "$1" "$work/dom.html" | wc -l; }
steps=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["steps"]["count"])' "$work/report.json")
svgs=$(count '<svg')
segs=$(count 'class="seg"')
kernels=$(grep -o '<svg class="chart kernels".*' "$work/dom.html" | sed 's|</svg>.*||' | grep -o 'class="bar"' | wc -l)
echo "steps=$steps svg=$svgs segments=$segs kernel_bars=$kernels"
(( svgs >= 5 )) || fail "expected 5 charts (ops, busy, idle, kernels, steps), found $svgs"
(( steps > 0 && segs > 0 && segs % steps == 0 )) || fail "$segs step segments is not a multiple of $steps steps"
(( segs / steps >= 3 )) || fail "expected at least 3 roles per step, found $((segs / steps))"
(( kernels == 10 )) || fail "expected 10 top-kernel bars, found $kernels"
for title in "Environment" "Top 10 ops" "GPU utilisation" "Memory" "Bottleneck diagnosis" "Recommendations"; do
  grep -q "<h2>$title" "$work/dom.html" || fail "missing section $title"
done
[[ -s $artifacts/html_report.png ]] || fail "no screenshot"
echo "screenshot: $artifacts/html_report.png"

# The Chinese page of a trace with memory events (profile_memory=True on a T4): the memory-over-time
# chart is drawn, the titles are the guide's Chinese ones, and the page is rendered with a CJK font when
# one is installed (fonts-noto-cjk; without it Chromium draws boxes, which the screenshot would show).
memtrace=$traces/real/gpu-profiling-pytorch-lab/Level2_mixed_precision_profiling/fp32.pt.trace.json
if [[ ! -f $memtrace ]]; then
  echo "skipped: zh page: no shared trace at $memtrace"
  exit 0
fi
# With the shared memory snapshot beside it (--memory), its section is drawn too.
snapshot=$traces/memory/assignment2-systems_memory_snapshot.pickle
memory=()
[[ -f $snapshot ]] && memory=(--memory "$snapshot")
"$exe" trace "$memtrace" --format html --lang zh "${memory[@]}" -o "$work/zh.html"
timeout 120 "${chrome[@]}" --user-data-dir="$(mktemp -d -p "$work")" --dump-dom "file://$work/zh.html" \
  >"$work/zh-dom.html" 2>>"$work/chromium.log" || { cat "$work/chromium.log" >&2; fail "chromium --dump-dom (zh) failed"; }
timeout 120 "${chrome[@]}" --user-data-dir="$(mktemp -d -p "$work")" --screenshot="$artifacts/html_report_zh.png" \
  --window-size=1280,2600 "file://$work/zh.html" >/dev/null 2>>"$work/chromium.log" ||
  { cat "$work/chromium.log" >&2; fail "chromium --screenshot (zh) failed"; }
for title in "环境信息" "GPU 利用率概览" "显存分析" "瓶颈诊断" "优化建议"; do
  grep -q "<h2>$title" "$work/zh-dom.html" || fail "missing zh section $title"
done
memcharts=$(grep -o 'class="chart memtime"' "$work/zh-dom.html" | wc -l)
allocpaths=$(grep -o '<path class="alloc" d="M' "$work/zh-dom.html" | wc -l)
(( memcharts >= 1 && allocpaths == memcharts )) || fail "expected a memory-over-time chart, found $memcharts ($allocpaths lines)"
grep -q '峰值 ' "$work/zh-dom.html" || fail "the memory chart has no peak label"
if [[ -f $snapshot ]]; then
  snapbars=$(grep -o '<svg class="chart snapshot".*' "$work/zh-dom.html" | sed 's|</svg>.*||' | grep -o 'class="bar"' | wc -l)
  (( snapbars == 3 )) || fail "expected the snapshot's allocated, reserved and peak bars, found $snapbars"
  grep -q '<table class="sites">' "$work/zh-dom.html" || fail "no table of the snapshot's allocation sites"
  grep -q '设备 0 的快照' "$work/zh-dom.html" || fail "no snapshot heading"
else
  echo "skipped: the snapshot section: no shared snapshot at $snapshot"
fi
if command -v fc-list >/dev/null 2>&1 && [[ -n $(fc-list :lang=zh 2>/dev/null) ]]; then
  echo "zh: CJK font $(fc-list :lang=zh family | head -1)"
else
  echo "skipped: zh glyphs: no CJK font installed (fonts-noto-cjk)"
fi
[[ -s $artifacts/html_report_zh.png ]] || fail "no zh screenshot"
echo "zh memory charts=$memcharts screenshot: $artifacts/html_report_zh.png"
