#!/usr/bin/env python3
"""Score torchlint against the hand-written labels of eval/real/.

For every entry of corpus.json, the listed files are materialised from a local mirror of the
repository (`git --git-dir=<mirror>/<owner>+<name>/repo show <commit>:<path>`) into a temporary
folder that keeps the project's layout, torchlint checks that folder, and its findings are matched
to labels.json. Prints TP/FP/FN, precision and recall per rule, then every FP and FN.

The mirror is not part of the repository: pass --mirror DIR or set TORCHLINT_EVAL_MIRROR. Without
one, the script prints a `skipped:` line and exits 0.

Python 3 standard library only.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(os.path.dirname(HERE))
RULES = ["TL101", "TL102", "TL103", "TL201", "TL202", "TL203", "TL204", "TL205", "TL301", "TL302",
         "TL401", "TL402", "TL403", "TL404", "TL405", "TL406", "TL501", "TL502", "TL601", "TL602",
         "TL901"]
TOLERANCE = 2  # lines; matches within it are reported with their offset


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--torchlint", default=os.path.join(REPO_ROOT, "build", "torchlint"),
                   help="torchlint binary (default: build/torchlint of this repository)")
    p.add_argument("--mirror", default=os.environ.get("TORCHLINT_EVAL_MIRROR"),
                   help="folder holding <owner>+<name>/repo bare git dirs "
                        "(default: $TORCHLINT_EVAL_MIRROR)")
    p.add_argument("--corpus", default=os.path.join(HERE, "corpus.json"))
    p.add_argument("--labels", default=os.path.join(HERE, "labels.json"))
    p.add_argument("--entry", action="append", default=[],
                   help="only score entries whose repo or name contains this text (repeatable)")
    p.add_argument("--json", action="store_true", help="print machine-readable results")
    p.add_argument("--verbose", action="store_true", help="also print torchlint's notes per entry")
    p.add_argument("--strict", action="store_true",
                   help="match labels on their own line only (no `also` locations, no duplicates)")
    return p.parse_args(argv)


def git_dir_for(mirror, repo):
    """The git dir of `owner/name` in the mirror (bare, or the `.git` of a checkout), or None."""
    flat = repo.replace("/", "+")
    for cand in (os.path.join(mirror, flat, "repo"), os.path.join(mirror, flat, "repo", ".git"),
                 os.path.join(mirror, flat), os.path.join(mirror, repo + ".git")):
        if os.path.isdir(cand) and (os.path.exists(os.path.join(cand, "HEAD"))):
            return cand
    return None


def git(gdir, *args):
    return subprocess.run(["git", "--git-dir", gdir] + list(args), capture_output=True)


def materialise(gdir, commit, paths, dest):
    """Write each path at commit under dest; returns the paths that could not be read."""
    missing = []
    for path in paths:
        r = git(gdir, "show", "%s:%s" % (commit, path))
        if r.returncode != 0:
            missing.append(path)
            continue
        out = os.path.join(dest, path)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with open(out, "wb") as f:
            f.write(r.stdout)
    return missing


def run_torchlint(binary, cwd, extra=()):
    """Runs `check` with JSON output and every rule selected on cwd; returns (findings, stderr text).

    `--select ALL` also turns on the rules that are off by default (TL502), which are labelled too.
    `extra`: more options for `check` (same_findings.py passes `--no-project`).
    """
    last = None
    for flag in ("--output-format", "--format"):  # the CLI's flag, then the older spelling
        cmd = [binary, "check", flag, "json", "--select", "ALL", "--exit-zero"] + list(extra) + ["."]
        r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
        last = r
        if r.returncode == 0:
            try:
                return json.loads(r.stdout or "[]"), r.stderr
            except ValueError:
                raise RuntimeError("torchlint printed output that is not JSON:\n" + r.stdout[:2000])
    raise RuntimeError("torchlint failed (rc %d): %s" % (last.returncode, last.stderr.strip()[:2000]))


def norm(path):
    path = os.path.normpath(path).replace(os.sep, "/")
    return path[2:] if path.startswith("./") else path


def match(labels, findings, strict=False):
    """One-to-one matching of findings to labels, exact lines first, then within TOLERANCE.

    labels: list of dicts with "path", "line", "rule" and optional "also" locations.
    findings: list of dicts with "path", "line", "rule".
    Returns (pairs, unmatched label indexes, unmatched finding indexes, duplicate finding indexes)
    where pairs holds (label index, finding index, offset, via) and via is "line" or "also". A
    finding exactly on a location of a label that another finding already matched is a duplicate
    report, not a false positive. With strict, only the labels' own lines count and there are no
    duplicates: every extra report is a false positive.
    """
    locs = []  # (label index, path, line, via)
    for i, lab in enumerate(labels):
        locs.append((i, lab["path"], lab["line"], "line"))
        if not strict:
            for alt in lab.get("also", []):
                locs.append((i, alt["path"], alt["line"], "also"))
    by_key = defaultdict(list)
    for i, path, line, via in locs:
        by_key[(labels[i]["rule"], path)].append((i, line, via))

    cands = []  # (distance, alternative?, finding index, label index, via)
    for j, f in enumerate(findings):
        for i, line, via in by_key.get((f["rule"], f["path"]), []):
            d = abs(f["line"] - line)
            if d <= TOLERANCE:
                cands.append((d, via != "line", j, i, via))
    cands.sort()
    used_l, used_f, pairs = set(), set(), []
    for d, _, j, i, via in cands:
        if i in used_l or j in used_f:
            continue
        used_l.add(i)
        used_f.add(j)
        pairs.append((i, j, d, via))
    dups = set()
    for d, _, j, i, via in cands:
        if not strict and j not in used_f and i in used_l and d == 0:
            dups.add(j)
    un_l = [i for i in range(len(labels)) if i not in used_l]
    un_f = [j for j in range(len(findings)) if j not in used_f and j not in dups]
    return pairs, un_l, un_f, sorted(dups)


def near(items, f):
    return any(a["rule"] == f["rule"] and a["path"] == f["path"]
               and abs(a["line"] - f["line"]) <= TOLERANCE for a in items)


def score(args):
    with open(args.corpus) as fh:
        corpus = json.load(fh)
    if isinstance(corpus, dict):  # {"entries": [...]} is accepted too
        corpus = corpus["entries"]
    with open(args.labels) as fh:
        truth = json.load(fh)
    if args.entry:
        corpus = [e for e in corpus
                  if any(s in e["repo"] or s in e.get("name", "") for s in args.entry)]

    examined = {(f["repo"], f["path"]): set(f["examined"]) for f in truth["files"]}
    results = {"entries": [], "skipped": [], "tp": [], "fp": [], "fn": [], "dup": [],
               "ambiguous_hits": [], "unlabelled_files": []}

    with tempfile.TemporaryDirectory(prefix="torchlint-eval-") as tmp:
        for n, entry in enumerate(corpus):
            repo, commit = entry["repo"], entry["commit"]
            name = "%s%s" % (repo, (" " + entry["name"]) if entry.get("name") else "")
            gdir = git_dir_for(args.mirror, repo)
            if gdir is None:
                results["skipped"].append({"entry": name, "why": "repository not in the mirror"})
                continue
            if git(gdir, "cat-file", "-e", commit + "^{commit}").returncode != 0:
                results["skipped"].append({"entry": name, "why": "commit %s not in the mirror" % commit[:12]})
                continue
            dest = os.path.join(tmp, "%02d" % n)
            os.makedirs(dest)
            missing = materialise(gdir, commit, entry["paths"], dest)
            if missing:
                results["skipped"].append({"entry": name, "why": "unreadable: " + ", ".join(missing)})
                continue
            raw, notes = run_torchlint(args.torchlint, dest)
            pyfiles = {p for p in entry["paths"] if p.endswith(".py")}
            seen, findings = set(), []
            for f in raw:
                path = norm(f["file"])
                key = (path, f["code"], f["line"])
                if path not in pyfiles or key in seen:
                    continue  # one finding per (file, rule, line): two syncs on a line are one report
                seen.add(key)
                if f["code"] not in examined.get((repo, path), set()):
                    results["unlabelled_files"].append("%s:%s %s" % (repo, path, f["code"]))
                    continue
                findings.append({"repo": repo, "path": path, "line": f["line"], "rule": f["code"],
                                 "message": f.get("message", "")})
            labels = [l for l in truth["labels"] if l["repo"] == repo and l["path"] in pyfiles]
            amb = [a for a in truth["ambiguous"] if a["repo"] == repo and a["path"] in pyfiles]
            pairs, un_l, un_f, dups = match(labels, findings, args.strict)
            for i, j, d, via in pairs:
                results["tp"].append(dict(labels[i], found_line=findings[j]["line"], offset=d, via=via))
            for i in un_l:
                results["fn"].append(labels[i])
            for j in dups:
                results["dup"].append(findings[j])
            for j in un_f:
                (results["ambiguous_hits"] if near(amb, findings[j]) else results["fp"]).append(findings[j])
            results["entries"].append({"entry": name, "files": len(pyfiles), "findings": len(findings),
                                       "labels": len(labels), "notes": notes.strip()})

    per_rule = {}
    for rule in RULES:
        tp = sum(1 for x in results["tp"] if x["rule"] == rule)
        fp = sum(1 for x in results["fp"] if x["rule"] == rule)
        fn = sum(1 for x in results["fn"] if x["rule"] == rule)
        per_rule[rule] = {"tp": tp, "fp": fp, "fn": fn,
                          "precision": tp / (tp + fp) if tp + fp else None,
                          "recall": tp / (tp + fn) if tp + fn else None}
    tot = {k: sum(v[k] for v in per_rule.values()) for k in ("tp", "fp", "fn")}
    tot["precision"] = tot["tp"] / (tot["tp"] + tot["fp"]) if tot["tp"] + tot["fp"] else None
    tot["recall"] = tot["tp"] / (tot["tp"] + tot["fn"]) if tot["tp"] + tot["fn"] else None
    per_rule["all"] = tot
    results["per_rule"] = per_rule
    return results


def pct(x):
    return "   -" if x is None else "%3.0f%%" % (100 * x)


def print_report(res, verbose):
    for s in res["skipped"]:
        print("skipped: %s (%s)" % (s["entry"], s["why"]))
    files = sum(e["files"] for e in res["entries"])
    print("scored %d entries, %d files" % (len(res["entries"]), files))
    if verbose:
        for e in res["entries"]:
            if e["notes"]:
                print("  %s: %s" % (e["entry"], e["notes"].replace("\n", "\n    ")))
    print()
    print("%-6s %4s %4s %4s %9s %7s" % ("rule", "TP", "FP", "FN", "precision", "recall"))
    for rule, v in res["per_rule"].items():
        print("%-6s %4d %4d %4d %9s %7s" % (rule, v["tp"], v["fp"], v["fn"],
                                             pct(v["precision"]), pct(v["recall"])))
    near = [t for t in res["tp"] if t["offset"] or t["via"] != "line"]
    extra = []
    if near:
        extra.append("%d TP matched off the label's line (+-%d lines, or an `also` location)"
                     % (len(near), TOLERANCE))
    if res["dup"]:
        extra.append("%d duplicate report(s) of matched labels (not counted)" % len(res["dup"]))
    if res["ambiguous_hits"]:
        extra.append("%d findings on ambiguous cases (not counted)" % len(res["ambiguous_hits"]))
    if extra:
        print("(" + "; ".join(extra) + ")")

    def loc(x):
        return "%s:%s:%d" % (x["repo"], x["path"], x["line"])
    for title, key, text in (("False positives", "fp", lambda x: x.get("message", "")),
                             ("False negatives", "fn", lambda x: x.get("note", ""))):
        items = sorted(res[key], key=lambda x: (x["rule"], x["repo"], x["path"], x["line"]))
        print("\n%s (%d):" % (title, len(items)))
        for x in items:
            print("  %s %s  %s" % (x["rule"], loc(x), text(x)))
    if near:
        print("\nMatched off the label's line:")
        for t in near:
            print("  %s %s found at line %d (%s)" % (t["rule"], loc(t), t["found_line"],
                                                   "`also` location" if t["via"] == "also"
                                                   else "+-%d" % t["offset"]))
    if res["dup"]:
        print("\nDuplicate reports of matched labels (not counted):")
        for x in res["dup"]:
            print("  %s %s  %s" % (x["rule"], loc(x), x.get("message", "")))
    if res["ambiguous_hits"]:
        print("\nFindings on ambiguous cases (not counted):")
        for x in res["ambiguous_hits"]:
            print("  %s %s  %s" % (x["rule"], loc(x), x.get("message", "")))


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if not args.mirror:
        print("skipped: no repository mirror; set TORCHLINT_EVAL_MIRROR or pass --mirror DIR")
        return 0
    if not os.path.isdir(args.mirror):
        print("skipped: mirror %s does not exist" % args.mirror)
        return 0
    if not os.access(args.torchlint, os.X_OK):
        print("error: torchlint binary %s not found or not executable (build it, or pass --torchlint)"
              % args.torchlint, file=sys.stderr)
        return 2
    res = score(args)
    res["mode"] = "strict" if args.strict else "default"
    if args.json:
        json.dump(res, sys.stdout, indent=1)
        print()
    else:
        print_report(res, args.verbose)
    return 0


if __name__ == "__main__":
    sys.exit(main())
