// The Python recipe of schema/README.md (python/recipe.py): with jsonschema
// 4.18 or later through a referencing registry, before that through a
// RefResolver, each one-defect message gives one error whose best_match is
// at the defect. Skips when python3 or its jsonschema module is missing.
// Run with: node --test conformance/

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { DEFAULT_ROOT } from "./lib.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const cases = path.join(here, "published", "one-defect.json");

const run = spawnSync("python3", [path.join(here, "python", "recipe.py"), DEFAULT_ROOT, cases], { encoding: "utf8" });
const skip =
  run.error !== undefined ? "python3 is not installed" : run.status === 3 ? "the Python module jsonschema is not installed (apt-get install python3-jsonschema)" : false;

test("python jsonschema: one defect, one error, best_match at the defect", { skip }, () => {
  assert.equal(run.status, 0, run.stderr);
  const want = JSON.parse(readFileSync(cases, "utf8"));
  const got = run.stdout.trim().split("\n").map((l) => JSON.parse(l));
  assert.equal(got.length, want.length);
  got.forEach((g, i) => {
    assert.equal(g.errors, 1, `${g.why}: ${g.errors} errors`);
    assert.equal(g.best, want[i].at, g.why);
  });
});

