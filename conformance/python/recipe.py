"""The Python recipe of schema/README.md, run by python.test.mjs.

Usage: python3 recipe.py SCHEMA_ROOT ONE_DEFECT_JSON VALID_JSON

Validates each message of the two case files with its bundle and prints one
JSON line per message: {"why", "errors", "best", "how"}, where errors is the
number of errors jsonschema reports, best the JSON pointer of best_match's
error ("" when there is none), and how the way the bundle was made known:
"registry" (a referencing registry, jsonschema 4.18 or later) or "resolver"
(a RefResolver, the only way before 4.18). Exits 3 when jsonschema is not
installed.
"""

import json
import sys

try:
    import jsonschema
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import best_match
except ImportError:
    print("jsonschema is not installed", file=sys.stderr)
    sys.exit(3)


def validator(bundle, ref=None):
    """A validator of the bundle's root, or of #/$defs/<ref>, and how the
    bundle was made known to it. Nothing is ever retrieved."""
    schema = bundle if ref is None else {"$ref": bundle["$id"] + "#/$defs/" + ref}
    try:
        from referencing import Registry, Resource  # jsonschema >= 4.18
    except ImportError:
        resolver = jsonschema.RefResolver(bundle["$id"], bundle, store={bundle["$id"]: bundle})
        return Draft202012Validator(schema, resolver=resolver), "resolver"
    registry = Registry().with_resource(bundle["$id"], Resource.from_contents(bundle))
    return Draft202012Validator(schema, registry=registry), "registry"


def main(root, *case_files):
    bundles = {}
    for cases_file in case_files:
        with open(cases_file, encoding="utf-8") as f:
            cases = json.load(f)
        for case in cases:
            if case["bundle"] not in bundles:
                with open(f"{root}/{case['bundle']}", encoding="utf-8") as f:
                    bundles[case["bundle"]] = json.load(f)
            v, how = validator(bundles[case["bundle"]], case.get("def"))
            errors = list(v.iter_errors(case["message"]))
            best = best_match(errors)
            where = "" if best is None else "".join("/" + str(p) for p in best.absolute_path)
            print(json.dumps({"why": case["why"], "errors": len(errors), "best": where, "how": how}))


if __name__ == "__main__":
    main(sys.argv[1], *sys.argv[2:])
