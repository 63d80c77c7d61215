// The Python recipe of schema/README.md (python/recipe.py), under every
// python3 found (the one on PATH, and Debian's /usr/bin/python3 with
// python3-jsonschema when it differs): with jsonschema 4.18 or later
// through a referencing registry, before that through a RefResolver. Each
// one-defect message gives one error whose best_match is at the defect, and
// each valid message none. Skips, saying why, when no python3 has the
// jsonschema module. Run with: node --test conformance/

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";

import { DEFAULT_ROOT } from "./lib.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const oneDefectFile = path.join(here, "published", "one-defect.json");
const validFile = path.join(here, "published", "valid.json");
const oneDefect = JSON.parse(readFileSync(oneDefectFile, "utf8"));
const valid = JSON.parse(readFileSync(validFile, "utf8"));

// Each distinct interpreter once, by the path of its executable.
const interpreters = new Map();
for (const cmd of ["python3", "/usr/bin/python3"]) {
  const r = spawnSync(cmd, ["-c", "import sys; print(sys.executable)"], { encoding: "utf8" });
  if (r.status === 0 && !interpreters.has(r.stdout.trim())) interpreters.set(r.stdout.trim(), cmd);
}

describe("the Python recipe", () => {
  if (interpreters.size === 0) {
    test("python3", { skip: "python3 is not installed" }, () => {});
  }
  for (const [exe, cmd] of interpreters) {
    const run = spawnSync(cmd, [path.join(here, "python", "recipe.py"), DEFAULT_ROOT, oneDefectFile, validFile], { encoding: "utf8" });
    const skip = run.status === 3 ? `${exe} has no jsonschema module (Debian: apt-get install python3-jsonschema)` : false;
    test(`${exe}: one defect gives one error at the defect, a valid message none`, { skip }, (t) => {
      assert.equal(run.status, 0, run.stderr);
      const got = run.stdout.trim().split("\n").map((l) => JSON.parse(l));
      const want = [...oneDefect, ...valid.map((c) => ({ ...c, at: "" }))];
      assert.equal(got.length, want.length);
      got.forEach((g, i) => {
        const errors = i < oneDefect.length ? 1 : 0;
        assert.equal(g.errors, errors, `${g.why}: ${g.errors} errors, want ${errors} (${g.how})`);
        assert.equal(g.best, want[i].at, `${g.why} (${g.how})`);
      });
      const how = new Set(got.map((g) => g.how));
      assert.equal(how.size, 1);
      t.diagnostic(`${exe}: the bundle made known through a ${[...how][0]}`);
    });
  }
});
