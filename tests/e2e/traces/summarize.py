"""Prints the figures that README.md quotes for each trace here. Standard library only; any python3.

Usage: python3 tests/e2e/traces/summarize.py [TRACE...]   (default: every *.pt.trace.json[.gz] here)

For each trace: size, event count by category, the ProfilerStep durations, the share of each step spent
in the DataLoader iterator, the ops under Optimizer.zero_grad, aten::item events and the line of the
training script they come from, GEMM shapes (Input Dims), and which lines of the script appear as
CallFrom. Kineto traces (a JSON object with traceEvents) and legacy traces (a bare JSON list) both work;
legacy traces have no args, so only names and times are summarized.
"""
import collections
import glob
import gzip
import json
import os
import sys


def load(path):
    with (gzip.open if path.endswith(".gz") else open)(path, "rt") as f:
        data = json.load(f)
    return data if isinstance(data, list) else data["traceEvents"], isinstance(data, list)


def inside(event, outer):
    """True when event lies within outer's [ts, ts + dur] on the same thread."""
    return (event["pid"] == outer["pid"] and event["tid"] == outer["tid"] and outer["ts"] <= event["ts"]
            and event["ts"] + event.get("dur", 0) <= outer["ts"] + outer["dur"] + 1e-3)


def user_frame(op, frames, by_id, script):
    """The innermost python_function around op, walked up to the first frame called from script.

    Returns (CallFrom of that frame or None, CallFrom of the innermost frame)."""
    around = [f for f in frames if inside(op, f)]
    if not around:
        return None, None
    frame = max(around, key=lambda f: f["ts"])
    innermost = frame["args"].get("CallFrom")
    while frame is not None:
        call_from = frame["args"].get("CallFrom", "")
        if call_from.startswith(script + ":"):
            return call_from, innermost
        frame = by_id.get(frame["args"].get("Python parent id"))
    return None, innermost


def summarize(path):
    events, legacy = load(path)
    script = os.path.basename(path).split(".")[0] + ".py"
    cats = collections.Counter(e.get("cat", "<none>") for e in events)
    print(f"== {os.path.relpath(path)}: {os.path.getsize(path) / 1e6:.2f} MB, {len(events)} events"
          + ("" if legacy else f", {dict(cats.most_common())}"))
    steps = sorted((e for e in events if e.get("name", "").startswith("ProfilerStep#")), key=lambda e: e["ts"])
    loaders = [e for e in events if e.get("name", "").startswith("enumerate(DataLoader)#")]
    ops = [e for e in events if legacy or e.get("cat") == "cpu_op"]
    for step in steps:
        waits = [e for e in loaders if inside(e, step)]
        share = sum(e["dur"] for e in waits) / step["dur"]
        kinds = sorted({e["name"].split("#")[1] for e in waits})
        print(f"  {step['name']}: {step['dur'] / 1000:.2f} ms; DataLoader {share:.1%} {' '.join(kinds)}")
    for zero_grad in (e for e in events if e.get("name", "").startswith("Optimizer.zero_grad#")):
        under = collections.Counter(e["name"] for e in ops if e is not zero_grad and inside(e, zero_grad))
        print(f"  {zero_grad['name']}: {zero_grad['dur']:.1f} us, ops {dict(under)}")
    items = [e for e in events if e.get("name") == "aten::item"]
    if legacy:
        print(f"  aten::item: {len(items)}")
    else:
        frames = [e for e in events if e.get("cat") == "python_function"]
        by_id = {f["args"]["Python id"]: f for f in frames}
        lines = collections.Counter(user_frame(op, frames, by_id, script) for op in items)
        print(f"  aten::item: {len(items)}; (script line, innermost CallFrom): {dict(lines)}")
        shapes = collections.Counter((e["name"], json.dumps(e["args"].get("Input Dims"))) for e in ops
                                     if e["name"] in ("aten::addmm", "aten::mm", "aten::conv2d"))
        for (name, dims), n in sorted(shapes.items()):
            print(f"  {name} {dims} x{n}")
        called = collections.Counter(f["args"]["CallFrom"] for f in frames
                                     if f["args"].get("CallFrom", "").startswith(script + ":"))
        print(f"  CallFrom lines of {script}: "
              + ", ".join(f"{k.split(':')[1]}x{v}" for k, v in sorted(called.items(), key=lambda kv: int(kv[0].split(':')[1]))))
        sleeps = collections.Counter(f["args"].get("CallFrom") for f in frames if f["name"] == "<built-in function sleep>")
        if sleeps:
            print(f"  time.sleep frames: {dict(sleeps)}")
        print(f"  [memory] events: {sum(1 for e in events if e.get('name') == '[memory]')}")


def main(paths):
    here = os.path.dirname(os.path.abspath(__file__))
    if not paths:
        paths = sorted(glob.glob(os.path.join(here, "*.pt.trace.json*")) +
                       glob.glob(os.path.join(here, "*", "*.pt.trace.json*")))
    for path in paths:
        summarize(path)


if __name__ == "__main__":
    main(sys.argv[1:])
