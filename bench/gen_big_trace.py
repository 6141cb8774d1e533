#!/usr/bin/env python3
"""Make a large Kineto trace for bench/trace.sh by repeating a real trace's profiled steps.

usage: gen_big_trace.py SOURCE(.json|.json.gz) OUT.json TARGET_MB

The source's events are written again and again, each copy shifted in time by the source's span and
its ProfilerStep numbers renumbered, until the output reaches TARGET_MB. Metadata events (ph "M") are
written once. The output is written as it goes; only the source is held in memory.
"""
import gzip
import json
import re
import sys


def main():
    src, out, target_mb = sys.argv[1], sys.argv[2], float(sys.argv[3])
    opener = gzip.open if src.endswith(".gz") else open
    with opener(src, "rt") as f:
        doc = json.load(f)
    events = doc.pop("traceEvents")
    meta = [e for e in events if e.get("ph") == "M"]
    body = [e for e in events if e.get("ph") != "M"]

    def ts_of(e):
        return float(e.get("ts", 0))

    t_min = min(ts_of(e) for e in body)
    t_max = max(ts_of(e) + float(e.get("dur", 0)) for e in body)
    span = t_max - t_min + 1000.0
    steps = [int(m.group(1)) for e in body if (m := re.match(r"ProfilerStep#(\d+)$", e.get("name", "")))]
    step_count = (max(steps) - min(steps) + 1) if steps else 0
    # Serialise once; each copy only rewrites ts and step names.
    encoded = [(ts_of(e), json.dumps(e, separators=(", ", ": "))) for e in body]
    ts_re = re.compile(r'"ts": ("?)([-0-9.e]+)("?)')
    step_re = re.compile(r'ProfilerStep#(\d+)')
    target = int(target_mb * 1e6)
    written = 0
    with open(out, "w") as f:
        head = {k: v for k, v in doc.items() if k not in ("traceName",)}
        prefix = json.dumps(head)[:-1] + ', "traceEvents": [\n'
        f.write(prefix)
        written += len(prefix)
        first = True
        for e in meta:
            line = ("" if first else ",\n") + json.dumps(e)
            f.write(line)
            written += len(line)
            first = False
        copy = 0
        while written < target:
            shift = copy * span
            for ts, text in encoded:
                text = ts_re.sub(lambda m: '"ts": {}{:.3f}{}'.format(m.group(1), ts + shift, m.group(3)), text, count=1)
                if step_count and "ProfilerStep#" in text:
                    text = step_re.sub(lambda m: "ProfilerStep#{}".format(int(m.group(1)) + copy * step_count), text)
                line = ("" if first else ",\n") + text
                f.write(line)
                written += len(line)
                first = False
            copy += 1
        tail = '\n], "traceName": "{}"}}\n'.format(out)
        f.write(tail)
    print(f"{out}: {copy} copies of {len(body)} events, {written / 1e6:.0f} MB")


if __name__ == "__main__":
    main()
