#!/usr/bin/env node
// check.mjs [--schemas ROOT] CASES.jsonl: replays the Go validator's verdicts
// through ajv and reports every case where the two disagree.
//
// Each line of CASES.jsonl is one case:
//   {"where": "fixtures/acp/valid/x.jsonl:12",
//    "schema": "https://agentproto.dev/schema/acp/v1/session.prompt.params.json",
//    "instance": <any JSON>, "valid": true|false}
// "schema" is a schema's $id, or a $id followed by "#" and a JSON pointer into
// that file. The file is read as a stream, so its size does not matter.
//
// Output: "DISAGREE where: go says valid, ajv says invalid: errors" (or the
// other way round) per disagreement, "FAIL where: reason" per case that cannot
// be checked (not JSON, a field missing, an unknown schema id), "SKIP where:
// reason" per disagreement on an instance whose numbers JavaScript cannot hold
// exactly, then "N passed, M failed" (", K skipped" when K > 0). Exit status 1
// on any disagreement or failure or when the file holds no case, 2 on a usage
// error or an unreadable file.

import { createReadStream } from "node:fs";
import path from "node:path";
import process from "node:process";
import { createInterface } from "node:readline";

import { DEFAULT_ROOT, Resolver, createAjv, formatErrors, hasInexactNumber, loadSchemas, parseJSON, validateParsed } from "./lib.mjs";

const USAGE = "usage: node check.mjs [--schemas SCHEMA_ROOT] CASES.jsonl\n";

function parseArgs(argv) {
  let root = DEFAULT_ROOT;
  const rest = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--schemas") {
      if (i + 1 >= argv.length) return null;
      root = path.resolve(argv[++i]);
    } else if (a.startsWith("--schemas=")) {
      root = path.resolve(a.slice("--schemas=".length));
    } else if (a.startsWith("-") && a !== "-") {
      return null;
    } else {
      rest.push(a);
    }
  }
  if (rest.length !== 1) return null;
  return { root, cases: rest[0] };
}

function verdict(valid) {
  return valid ? "valid" : "invalid";
}

function oneLine(s) {
  return String(s).replace(/[\r\n]+/g, " ");
}

/** Checks one line; returns {status: "pass" | "fail" | "skip", message}. */
function checkLine(line, label, resolver) {
  let c;
  try {
    // parseJSON keeps what x-integer-literal needs: how each number was written.
    c = parseJSON(line);
  } catch (err) {
    return { status: "fail", message: `FAIL ${label}: not a JSON case: ${err.message}` };
  }
  if (c === null || typeof c !== "object" || Array.isArray(c)) {
    return { status: "fail", message: `FAIL ${label}: a case must be a JSON object` };
  }
  const where = typeof c.where === "string" && c.where !== "" ? oneLine(c.where) : label;
  if (typeof c.schema !== "string") {
    return { status: "fail", message: `FAIL ${where}: "schema" must be a string` };
  }
  if (typeof c.valid !== "boolean") {
    return { status: "fail", message: `FAIL ${where}: "valid" must be true or false` };
  }
  if (!Object.hasOwn(c, "instance")) {
    return { status: "fail", message: `FAIL ${where}: "instance" is missing` };
  }
  const s = resolver.get(c.schema);
  if (s.error !== undefined) {
    return { status: "fail", message: `FAIL ${where}: ${oneLine(s.error)}` };
  }
  const ajvValid = validateParsed(s.validate, c, "instance");
  if (ajvValid === c.valid) return { status: "pass" };

  const what = `go says ${verdict(c.valid)}, ajv says ${verdict(ajvValid)}`;
  if (hasInexactNumber(line)) {
    return {
      status: "skip",
      message: `SKIP ${where}: ${what}, but the case holds a number beyond 2^53, which ajv cannot compare exactly`,
    };
  }
  const detail = ajvValid ? "" : `: ${formatErrors(s.validate.errors)}`;
  return { status: "fail", message: `DISAGREE ${where}: ${what}${detail}` };
}

async function main(argv) {
  const args = parseArgs(argv);
  if (args === null) {
    process.stderr.write(USAGE);
    return 2;
  }

  const strict = createAjv();
  const subschemas = createAjv({ subschemas: true });
  let entries;
  try {
    entries = await loadSchemas(args.root, [strict, subschemas]);
  } catch (err) {
    process.stderr.write(`check: ${err.message}\n`);
    return 2;
  }
  // A file that cannot be loaded is compile.mjs's to report; here it only
  // explains why cases naming it fail.
  for (const e of entries) {
    if (e.error !== undefined) process.stderr.write(`check: schema ${e.rel} not loaded: ${oneLine(e.error)}\n`);
  }
  const resolver = new Resolver(strict, subschemas);

  const input = args.cases === "-" ? process.stdin : createReadStream(args.cases);
  const base = args.cases === "-" ? "stdin" : path.basename(args.cases);
  const lines = createInterface({ input, crlfDelay: Infinity });

  let passed = 0;
  let failed = 0;
  let skipped = 0;
  let lineNo = 0;
  try {
    for await (const line of lines) {
      lineNo++;
      if (line.trim() === "") continue;
      const r = checkLine(line, `${base}:${lineNo}`, resolver);
      if (r.status === "pass") {
        passed++;
        continue;
      }
      if (r.status === "skip") skipped++;
      else failed++;
      process.stdout.write(r.message + "\n");
    }
  } catch (err) {
    process.stderr.write(`check: reading ${args.cases}: ${err.message}\n`);
    return 2;
  }

  if (passed + failed + skipped === 0) {
    process.stdout.write(`no case in ${args.cases}\n`);
    failed = 1;
  }
  process.stdout.write(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}\n`);
  return failed > 0 ? 1 : 0;
}

process.exitCode = await main(process.argv.slice(2));
