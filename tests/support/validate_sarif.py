#!/usr/bin/env python3
"""Validates a SARIF log against the vendored SARIF 2.1.0 schema and GitHub code scanning's rules.

The schema alone accepts logs that GitHub code scanning rejects, so after it this also checks, for
every run: each result has at least one location with physicalLocation.artifactLocation.uri; each
ruleId is the id of a rule in tool.driver.rules; and a result's ruleIndex, when present or needed,
points at that rule. Needs only Debian 12's python3-jsonschema (4.10), which CI installs through
scripts/setup.sh.

Usage: validate_sarif.py [--schema SCHEMA] FILE   (FILE may be '-' for standard input)
Prints one line per problem. Exit status: 0 valid, 1 problems found, 2 usage error or unreadable input.
"""

import argparse
import json
import os
import sys

DEFAULT_SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "sarif",
                              "sarif-schema-2.1.0.json")


def json_path(parts):
    """'$.runs[0].results[3]' for the parts of an error's absolute path."""
    out = "$"
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def schema_problems(log, schema):
    import jsonschema  # imported here so that a missing package is a usage error, not a traceback

    # The vendored schema declares draft-04; validator_for picks the validator of whatever it declares.
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    validator = validator_class(schema)
    errors = sorted(validator.iter_errors(log), key=lambda e: [str(p) for p in e.absolute_path])
    return [f"{json_path(e.absolute_path)}: schema: {e.message}" for e in errors]


def github_problems(log):
    """What GitHub code scanning requires beyond the schema."""
    problems = []
    runs = log.get("runs") if isinstance(log, dict) else None
    if not isinstance(runs, list):
        return problems  # the schema has said so already
    for r, run in enumerate(runs):
        if not isinstance(run, dict):
            continue
        driver = run.get("tool", {}).get("driver", {}) if isinstance(run.get("tool"), dict) else {}
        rules = driver.get("rules", []) if isinstance(driver, dict) else []
        rules = rules if isinstance(rules, list) else []
        index_of = {}
        for i, rule in enumerate(rules):
            rule_id = rule.get("id") if isinstance(rule, dict) else None
            if rule_id in index_of:
                problems.append(f"$.runs[{r}].tool.driver.rules[{i}]: rule id `{rule_id}` is listed twice")
            elif rule_id is not None:
                index_of[rule_id] = i
        results = run.get("results", [])
        for k, result in enumerate(results if isinstance(results, list) else []):
            where = f"$.runs[{r}].results[{k}]"
            if not isinstance(result, dict):
                continue
            locations = result.get("locations")
            has_uri = isinstance(locations, list) and any(
                isinstance(loc, dict)
                and isinstance(loc.get("physicalLocation"), dict)
                and isinstance(loc["physicalLocation"].get("artifactLocation"), dict)
                and isinstance(loc["physicalLocation"]["artifactLocation"].get("uri"), str)
                and loc["physicalLocation"]["artifactLocation"]["uri"] != ""
                for loc in locations)
            if not has_uri:
                problems.append(f"{where}: no location with physicalLocation.artifactLocation.uri")
            rule_id = result.get("ruleId")
            if not isinstance(rule_id, str):
                problems.append(f"{where}: no ruleId")
                continue
            if rule_id not in index_of:
                problems.append(f"{where}: ruleId `{rule_id}` is not in tool.driver.rules")
                continue
            rule_index = result.get("ruleIndex")
            if rule_index is None:
                problems.append(f"{where}: ruleId `{rule_id}` has no ruleIndex (expected {index_of[rule_id]})")
            elif rule_index != index_of[rule_id]:
                problems.append(f"{where}: ruleIndex {rule_index} is not the index of `{rule_id}` "
                                f"in tool.driver.rules ({index_of[rule_id]})")
    return problems


def main(argv):
    parser = argparse.ArgumentParser(description="Validate a SARIF 2.1.0 log for GitHub code scanning.")
    parser.add_argument("file", help="the SARIF log, or '-' for standard input")
    parser.add_argument("--schema", default=DEFAULT_SCHEMA, help="the SARIF 2.1.0 JSON schema")
    args = parser.parse_args(argv)  # exits 2 on a usage error

    try:
        import jsonschema  # noqa: F401
    except ImportError:
        print("validate_sarif: the jsonschema module is missing (Debian: apt-get install python3-jsonschema)")
        return 2
    try:
        with open(args.schema, encoding="utf-8") as f:
            schema = json.load(f)
    except (OSError, ValueError) as e:
        print(f"validate_sarif: cannot read the schema {args.schema}: {e}")
        return 2
    try:
        if args.file == "-":
            log = json.load(sys.stdin)
        else:
            with open(args.file, encoding="utf-8") as f:
                log = json.load(f)
    except (OSError, ValueError) as e:
        print(f"validate_sarif: cannot read {args.file} as JSON: {e}")
        return 2

    problems = schema_problems(log, schema) + github_problems(log)
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
