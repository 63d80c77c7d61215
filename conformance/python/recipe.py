"""The Python recipe of schema/README.md, run by python.test.mjs.

Usage: python3 recipe.py SCHEMA_ROOT CASES_JSON

Validates each one-defect case with its bundle and prints one JSON line per
case: {"why", "errors", "best"} where errors is the number of errors
jsonschema reports and best the JSON path of best_match's error. Uses a
referencing registry with jsonschema 4.18 or later and a RefResolver
(deprecated there, the only way before) with an older one. Exits 3 when
jsonschema is not installed.
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
    """A validator of the bundle's root, or of #/$defs/<ref>."""
    schema = bundle if ref is None else {"$ref": bundle["$id"] + "#/$defs/" + ref}
    try:
        from referencing import Registry, Resource  # jsonschema >= 4.18
    except ImportError:
        resolver = jsonschema.RefResolver(bundle["$id"], bundle, store={bundle["$id"]: bundle})
        return Draft202012Validator(schema, resolver=resolver)
    registry = Registry().with_resource(bundle["$id"], Resource.from_contents(bundle))
    return Draft202012Validator(schema, registry=registry)


def main(root, cases_file):
    with open(cases_file, encoding="utf-8") as f:
        cases = json.load(f)
    bundles = {}
    for case in cases:
        if case["bundle"] not in bundles:
            with open(f"{root}/{case['bundle']}", encoding="utf-8") as f:
                bundles[case["bundle"]] = json.load(f)
        v = validator(bundles[case["bundle"]], case.get("def"))
        errors = list(v.iter_errors(case["message"]))
        best = best_match(errors)
        where = "" if best is None else "".join("/" + str(p) for p in best.absolute_path)
        print(json.dumps({"why": case["why"], "errors": len(errors), "best": where}))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
