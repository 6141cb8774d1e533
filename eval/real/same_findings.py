#!/usr/bin/env python3
"""Do two torchlint binaries report the same findings on real code?

For changes meant to keep every finding as it is (a faster walk, a refactor of the model), this runs
both binaries over every Python file of every mirrored repository in the evaluation sets, not only the
labelled ones, and compares their JSON output repository by repository.

    eval/real/same_findings.py --mirror MIRROR --old OLD_BINARY --new NEW_BINARY [--no-project]

MIRROR holds one `OWNER+NAME/repo` git directory per repository (what score.py reads). Each
repository's HEAD is written out to a temporary folder (its Python files only; blobs missing from a
partial mirror are skipped) and checked from there, as a project (or each file alone with
--no-project). Prints one line per repository whose findings differ and a summary; exits 1 when any
differ. Python 3 standard library only.
"""
import argparse
import json
import pathlib
import subprocess
import sys
import tempfile


def repositories(mirror):
    """The `repo` git directories of the mirror that git can read."""
    for entry in sorted(pathlib.Path(mirror).iterdir()):
        git_dir = entry / "repo"
        probe = subprocess.run(["git", "--git-dir", str(git_dir), "rev-parse", "HEAD"], capture_output=True)
        if probe.returncode == 0:
            yield entry.name, git_dir


def write_python_files(git_dir, dest):
    """Writes HEAD's Python files under dest; returns how many were written."""
    listing = subprocess.run(["git", "--git-dir", str(git_dir), "ls-tree", "-r", "-z", "--name-only", "HEAD"],
                             capture_output=True, check=True).stdout.split(b"\0")
    written = 0
    for raw in listing:
        name = raw.decode("utf-8", "surrogateescape")
        if not name.endswith(".py"):
            continue
        blob = subprocess.run(["git", "--git-dir", str(git_dir), "show", "HEAD:" + name], capture_output=True)
        if blob.returncode != 0:
            continue  # absent from a partial mirror
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(blob.stdout)
        written += 1
    return written


def findings(binary, folder, no_project):
    command = [binary, "check", "--exit-zero", "--select", "TL", "--output-format", "json", "-q", "."]
    if no_project:
        command.insert(2, "--no-project")
    run = subprocess.run(command, cwd=folder, capture_output=True)
    if run.returncode != 0:
        return None, run.stderr.decode(errors="replace").strip()
    return json.loads(run.stdout), ""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", required=True)
    parser.add_argument("--old", required=True, help="the binary before the change")
    parser.add_argument("--new", required=True, help="the binary after it")
    parser.add_argument("--no-project", action="store_true", help="check each file alone")
    args = parser.parse_args()
    old_bin = str(pathlib.Path(args.old).resolve())
    new_bin = str(pathlib.Path(args.new).resolve())
    repos = files = total = differ = 0
    for name, git_dir in repositories(args.mirror):
        with tempfile.TemporaryDirectory() as tmp:
            count = write_python_files(git_dir, pathlib.Path(tmp))
            if count == 0:
                continue
            old, old_error = findings(old_bin, tmp, args.no_project)
            new, new_error = findings(new_bin, tmp, args.no_project)
        repos += 1
        files += count
        total += len(new or [])
        if old != new or old_error != new_error:
            differ += 1
            print(f"differ: {name}: old {len(old or [])} findings, new {len(new or [])}"
                  f"{'; old error: ' + old_error if old_error else ''}{'; new error: ' + new_error if new_error else ''}")
    print(f"{repos} repositories, {files} files, {total} findings from the new binary; "
          f"{differ} repositories differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
