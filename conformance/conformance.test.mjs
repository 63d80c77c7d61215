// Self-test of the ajv cross-check: runs compile.mjs and check.mjs on the
// schemas and cases in testdata/, whose verdicts are known, and tests the
// helpers they share. Run with: node --test conformance/

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { fileURLToPath } from "node:url";

import {
  NOT_INTEGER_LITERAL,
  collectExamples,
  foreignKeywords,
  hasInexactNumber,
  isIntegerLiteral,
  parseJSON,
  pointerToFragment,
} from "./lib.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const testdata = path.join(here, "testdata");
const goodRoot = path.join(testdata, "schema");
const badRoot = path.join(testdata, "bad");
const casesDir = path.join(testdata, "cases");

const MESSAGE = "https://agentproto.dev/schema/test/v1/message.json";
const COMMON = "https://agentproto.dev/schema/test/v1/common.json";

// Runs a script of this folder with node; resolves to its exit code and output.
function run(script, args, input) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(here, script), ...args], { stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d) => (stderr += d));
    child.on("error", reject);
    // A script that exits before reading its input must not fail the test.
    child.stdin.on("error", () => {});
    child.on("close", (code) => {
      resolve({ code, lines: stdout.split("\n").filter((l) => l !== ""), stdout, stderr });
    });
    child.stdin.end(input ?? "");
  });
}

function check(casesFile) {
  return run("check.mjs", ["--schemas", goodRoot, casesFile]);
}

const scratch = mkdtempSync(path.join(tmpdir(), "conformance-test-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

describe("compile.mjs", { concurrency: true }, () => {
  test("compiles the good test schemas and validates their examples", async () => {
    const r = await run("compile.mjs", [goodRoot]);
    assert.deepEqual(r.lines, [
      "ok test/v1/common.json",
      "ok test/v1/message.json",
      "checked 2 files and 10 examples",
      "12 passed, 0 failed",
    ]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
  });

  test("reports each broken schema and example and exits 1", async () => {
    const r = await run("compile.mjs", [badRoot]);
    assert.equal(r.code, 1);
    const want = {
      "FAIL test/v1/bad-always-emitted.json:": 'keyword "x-always-emitted" value is invalid',
      "FAIL test/v1/bad-def.json#/$defs/Loose:": 'missing type "object" for keyword "required"',
      "ok test/v1/bad-example.json": null,
      "FAIL test/v1/bad-example.json#/properties/n/examples/1:": "must be >= 1",
      "FAIL test/v1/bad-go-name.json:": "x-go-name value must be",
      "ok test/v1/bad-integer-literal.json": null,
      "FAIL test/v1/bad-integer-literal.json#/properties/n/examples/1:": 'must pass "x-integer-literal" keyword validation',
      "FAIL test/v1/draft07.json:": "$schema is",
      "ok test/v1/good.json": null,
      "FAIL test/v1/missing-ref.json:": "can't resolve reference nowhere.json#/$defs/Thing",
      "FAIL test/v1/missing-type.json:": 'missing type "object" for keyword "properties"',
      "FAIL test/v1/not-json.json:": "not valid JSON",
      "FAIL test/v1/remote-ref.json:": "can't resolve reference https://example.com/schemas/thing.json",
      "FAIL test/v1/unknown-format.json:": 'unknown format "go-duration"',
      "FAIL test/v1/unknown-keyword.json:": 'not a draft 2020-12 keyword: "nullable"',
      "FAIL test/v1/wrong-id.json:": "must match the file's path",
    };
    const body = r.lines.slice(0, -2);
    assert.equal(body.length, Object.keys(want).length, r.stdout);
    for (const [i, [prefix, detail]] of Object.entries(want).entries()) {
      assert.ok(body[i].startsWith(prefix), `line ${i}: ${body[i]} does not start with ${prefix}`);
      if (detail !== null) assert.ok(body[i].includes(detail), `line ${i}: ${body[i]} lacks ${detail}`);
    }
    // Data files are not schemas: the bad root's dispatch.json is no schema at all.
    assert.ok(!r.stdout.includes("dispatch.json"), r.stdout);
    assert.deepEqual(r.lines.slice(-2), ["checked 14 files and 5 examples", "6 passed, 13 failed"]);
  });

  test("fails on a root without schemas and on a missing root", async () => {
    const empty = mkdtempSync(path.join(scratch, "empty-"));
    writeFileSync(path.join(empty, "dispatch.json"), "{}");
    const r = await run("compile.mjs", [empty]);
    assert.equal(r.code, 1);
    assert.equal(r.lines.at(-1), "0 passed, 1 failed");

    const missing = await run("compile.mjs", [path.join(scratch, "no-such-dir")]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /no-such-dir/);
  });
});

describe("check.mjs", { concurrency: true }, () => {
  test("passes cases whose Go verdicts ajv shares", async () => {
    const r = await check(path.join(casesDir, "agree.jsonl"));
    assert.deepEqual(r.lines, ["26 passed, 0 failed"]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
  });

  test("flags the deliberate disagreements, in both directions", async () => {
    const r = await check(path.join(casesDir, "disagree.jsonl"));
    assert.equal(r.code, 1);
    assert.equal(r.lines.length, 3, r.stdout);
    assert.match(r.lines[0], /^DISAGREE disagree:go-valid: go says valid, ajv says invalid: \/role: must be equal to one of the allowed values/);
    assert.equal(r.lines[1], "DISAGREE disagree:go-invalid: go says invalid, ajv says valid");
    assert.equal(r.lines[2], "1 passed, 2 failed");
  });

  test("fails on unknown schema ids, pointers and data files", async () => {
    const r = await check(path.join(casesDir, "unknown-id.jsonl"));
    assert.equal(r.code, 1);
    assert.deepEqual(r.lines, [
      "FAIL unknown:file: unknown schema id https://agentproto.dev/schema/test/v1/nothing.json",
      `FAIL unknown:pointer: unknown schema id ${COMMON}#/$defs/Nothing`,
      `FAIL unknown:not-a-pointer: unknown schema id ${COMMON}#SessionId: the fragment must be a JSON pointer`,
      "FAIL unknown:data-file: unknown schema id https://agentproto.dev/schema/test/v1/dispatch.json",
      "0 passed, 4 failed",
    ]);
  });

  test("fails on malformed case lines, naming the file and line", async () => {
    const r = await check(path.join(casesDir, "malformed.jsonl"));
    assert.equal(r.code, 1);
    assert.equal(r.lines.length, 6, r.stdout);
    assert.match(r.lines[0], /^FAIL malformed\.jsonl:1: not a JSON case: /);
    assert.equal(r.lines[1], 'FAIL malformed:no-verdict: "valid" must be true or false');
    assert.equal(r.lines[2], 'FAIL malformed:no-instance: "instance" is missing');
    assert.equal(r.lines[3], 'FAIL malformed:no-schema: "schema" must be a string');
    assert.equal(r.lines[4], "FAIL malformed.jsonl:5: a case must be a JSON object");
    assert.equal(r.lines[5], "0 passed, 5 failed");
  });

  test("skips a disagreement over a number beyond 2^53 and says why", async () => {
    const r = await check(path.join(casesDir, "inexact.jsonl"));
    assert.equal(r.code, 0, r.stdout);
    assert.deepEqual(r.lines, [
      "SKIP inexact:above-u64: go says invalid, ajv says valid, but the case holds a number beyond 2^53, which ajv cannot compare exactly",
      "1 passed, 0 failed, 1 skipped",
    ]);
  });

  test("streams a large cases file and reports disagreements by their line", async () => {
    const file = path.join(scratch, "large.jsonl");
    const good = JSON.stringify({ schema: MESSAGE, instance: { sessionId: "sess_1", role: "user", content: [{ type: "text", text: "x".repeat(2000) }] }, valid: true });
    const lines = [];
    for (let i = 0; i < 5000; i++) lines.push(good);
    // One 8 MB instance, and one wrong verdict near the end without a "where".
    lines.push(JSON.stringify({ schema: `${COMMON}#/$defs/ContentBlock`, instance: { type: "text", text: "y".repeat(8 << 20) }, valid: true }));
    lines.push(JSON.stringify({ schema: `${COMMON}#/$defs/Role`, instance: "user", valid: false }));
    writeFileSync(path.join(scratch, "large.jsonl"), lines.join("\n") + "\n");
    const r = await check(file);
    assert.equal(r.code, 1);
    assert.deepEqual(r.lines, ["DISAGREE large.jsonl:5002: go says invalid, ajv says valid", "5001 passed, 1 failed"]);
  });

  test("reads cases from standard input with -", async () => {
    const input = JSON.stringify({ where: "stdin-case", schema: `${COMMON}#/$defs/SessionId`, instance: "sess_x", valid: true }) + "\n";
    const r = await run("check.mjs", ["--schemas", goodRoot, "-"], input);
    assert.deepEqual(r.lines, ["1 passed, 0 failed"]);
    assert.equal(r.code, 0);
  });

  test("fails on an empty cases file; usage errors exit 2", async () => {
    const empty = path.join(scratch, "empty.jsonl");
    writeFileSync(empty, "\n\n");
    const r = await check(empty);
    assert.equal(r.code, 1);
    assert.equal(r.lines.at(-1), "0 passed, 1 failed");

    assert.equal((await run("check.mjs", [])).code, 2);
    assert.equal((await run("check.mjs", ["--schemas"])).code, 2);
    assert.equal((await run("check.mjs", ["--bogus", "x.jsonl"])).code, 2);
    const missing = await check(path.join(scratch, "missing.jsonl"));
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /missing\.jsonl/);
  });
});

describe("lib.mjs", () => {
  test("collectExamples finds examples at schema locations only", () => {
    const doc = {
      examples: [1],
      properties: {
        examples: { type: "string", examples: ["a", "b"] },
        "a/b": { examples: [true] },
      },
      $defs: { X: { oneOf: [{ examples: [null] }, { const: { examples: ["not a schema"] } }] } },
      items: { enum: [{ examples: [0] }], default: { examples: [0] } },
    };
    assert.deepEqual(
      collectExamples(doc).map((e) => `${e.pointer}|${e.index}`),
      ["|0", "/properties/examples|0", "/properties/examples|1", "/properties/a~1b|0", "/$defs/X/oneOf/0|0"],
    );
  });

  test("pointerToFragment percent-encodes escaped segments", () => {
    assert.equal(pointerToFragment(""), "");
    assert.equal(pointerToFragment("/$defs/X"), "#/$defs/X");
    assert.equal(pointerToFragment("/properties/a~1b~0c%d e"), "#/properties/a~1b~0c%25d%20e");
  });

  test("foreignKeywords flags non-2020-12 keywords, not property names", () => {
    const doc = {
      type: "object",
      nullable: true,
      definitions: { A: { type: "string" } },
      properties: { nullable: { type: "boolean", "x-go-name": "Nullable", discriminator: "t" } },
    };
    assert.deepEqual(foreignKeywords(doc), [
      { keyword: "nullable", pointer: "" },
      { keyword: "definitions", pointer: "" },
      { keyword: "discriminator", pointer: "/properties/nullable" },
    ]);
  });

  test("parseJSON gives JSON.parse's value and marks numbers that are not integer literals", () => {
    const text = '{"a": 1.0, "b": [1, 2e0, -0, 3, -7], "c": {"s": "x\\"1.0", "e": -0.5, "n": 10}, "__proto__": {"p": 1E+2}}';
    const v = parseJSON(text);
    assert.deepEqual(JSON.stringify(v), JSON.stringify(JSON.parse(text)));
    assert.deepEqual([...v[NOT_INTEGER_LITERAL]], ["a"]);
    assert.deepEqual([...v.b[NOT_INTEGER_LITERAL]], ["1", "2"]);
    assert.deepEqual([...v.c[NOT_INTEGER_LITERAL]], ["e"]);
    assert.deepEqual([...v.__proto__[NOT_INTEGER_LITERAL]], ["p"]);
    assert.equal(Object.getPrototypeOf(v), Object.prototype);
    assert.equal(Object.keys(v).includes(NOT_INTEGER_LITERAL), false);
    // Deep nesting costs no stack.
    assert.equal(parseJSON("[".repeat(100000) + "]".repeat(100000)).length, 1);
    for (const bad of ["{", "[1,]", '{"a":1,}', "01", "1.", '{"a" 1}', "[1 2]", "tru", "{} x", '"abc']) {
      assert.throws(() => parseJSON(bad), SyntaxError, bad);
    }
  });

  test("isIntegerLiteral follows serde_json", () => {
    for (const t of ["0", "7", "-3", "18446744073709551615"]) assert.equal(isIntegerLiteral(t), true, t);
    for (const t of ["1.0", "1e0", "1E2", "-0", "0.5", "-0.0"]) assert.equal(isIntegerLiteral(t), false, t);
  });

  test("hasInexactNumber looks at numbers outside strings", () => {
    assert.equal(hasInexactNumber('{"n": 9007199254740991, "m": -9007199254740991}'), false);
    assert.equal(hasInexactNumber('{"n": 9007199254740992}'), true);
    assert.equal(hasInexactNumber('{"n": -18446744073709551616}'), true);
    assert.equal(hasInexactNumber('{"n": 1e400}'), true);
    assert.equal(hasInexactNumber('{"s": "18446744073709551616", "t": "a\\"99999999999999999"}'), false);
    assert.equal(hasInexactNumber('[1.5, 2e3, 0, -0.25]'), false);
  });
});
