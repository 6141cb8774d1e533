#!/usr/bin/env python3
"""Do two torchlint binaries report the same findings on real code?

For changes meant to keep every finding as it is (a faster walk, a refactor of the model), this runs
both binaries over every Python file of every mirrored repository in the evaluation sets, not only the
labelled ones, and compares their JSON output repository by repository.

    eval/real/same_findings.py --mirror MIRROR --old OLD_BINARY --new NEW_BINARY [--no-project] [--show]

MIRROR is what score.py reads (one `OWNER+NAME/repo` git directory per repository). Each repository's
HEAD is written out to a temporary folder (its Python files only; blobs missing from a partial mirror
are skipped) and checked from there with every rule, as a project (or each file alone with
--no-project). Prints one line per repository whose findings differ and a summary; exits 1 when any
differ. With --show, also the findings only one binary reports, under each such line (`-` old, `+` new),
for changes meant to change some findings: the list to read for new false positives. Python 3 standard library only; the git and torchlint helpers are score.py's.
"""
import argparse
import collections
import os
import pathlib
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from score import git, materialise, run_torchlint  # noqa: E402  (the folder is on the path only now)


def python_files(git_dir):
    """HEAD's Python files, or None when git cannot read the directory."""
    listing = git(git_dir, "ls-tree", "-r", "-z", "--name-only", "HEAD")
    if listing.returncode != 0:
        return None
    names = (raw.decode("utf-8", "surrogateescape") for raw in listing.stdout.split(b"\0"))
    return [name for name in names if name.endswith(".py")]


def findings(binary, folder, no_project):
    """(findings, error): the JSON findings, or the reason torchlint gave none."""
    try:
        found, _ = run_torchlint(binary, folder, ["--no-project"] if no_project else [])
        return found, ""
    except RuntimeError as error:
        return None, str(error)


def show_difference(old, new):
    """The findings only one side reports, one per line: `- path:line:column CODE message`."""
    def key(finding):
        return (finding.get("file", ""), finding.get("line", 0), finding.get("column", 0),
                finding.get("code", ""), finding.get("message", ""))

    old_keys = collections.Counter(key(f) for f in old)
    new_keys = collections.Counter(key(f) for f in new)
    for sign, keys in (("-", old_keys - new_keys), ("+", new_keys - old_keys)):
        for path, line, column, code, message in sorted(keys.elements()):
            print(f"  {sign} {path}:{line}:{column} {code} {message}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", required=True)
    parser.add_argument("--old", required=True, help="the binary before the change")
    parser.add_argument("--new", required=True, help="the binary after it")
    parser.add_argument("--no-project", action="store_true", help="check each file alone")
    parser.add_argument("--show", action="store_true", help="list the findings only one binary reports")
    args = parser.parse_args()
    old_bin = str(pathlib.Path(args.old).resolve())
    new_bin = str(pathlib.Path(args.new).resolve())
    repos = files = total = differ = 0
    for entry in sorted(pathlib.Path(args.mirror).iterdir()):
        git_dir = str(entry / "repo")
        paths = python_files(git_dir)
        if not paths:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            missing = materialise(git_dir, "HEAD", paths, tmp)
            if len(missing) == len(paths):
                continue
            old, old_error = findings(old_bin, tmp, args.no_project)
            new, new_error = findings(new_bin, tmp, args.no_project)
        repos += 1
        files += len(paths) - len(missing)
        total += len(new or [])
        if old != new or old_error != new_error:
            differ += 1
            print(f"differ: {entry.name}: old {len(old or [])} findings, new {len(new or [])}"
                  f"{'; old error: ' + old_error if old_error else ''}{'; new error: ' + new_error if new_error else ''}")
            if args.show:
                show_difference(old or [], new or [])
    print(f"{repos} repositories, {files} files, {total} findings from the new binary; "
          f"{differ} repositories differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
