#!/usr/bin/env node
// compile.mjs [ROOT]: compiles every schema file below ROOT (default: the
// repository's schema/ folder) with ajv in strict mode, then validates every
// "examples" value against the schema that holds it.
//
// A file passes when its root and each of its top-level $defs compile.
// Output: one line per file, "ok REL", or "FAIL REL: message" (or
// "FAIL REL#/$defs/NAME: message" per definition that fails); one
// "FAIL REL#/pointer/examples/N: errors" line per example that does not
// validate; then "checked F files and E examples" and "N passed, M failed",
// where each file and each example is one check. Exit status 1 when any check
// failed or ROOT holds no schema file, 2 when ROOT cannot be read.

import path from "node:path";
import process from "node:process";

import {
  DEFAULT_ROOT,
  Resolver,
  collectExamples,
  createAjv,
  formatErrors,
  loadSchemas,
  pointerSegment,
  pointerToFragment,
  validateParsed,
} from "./lib.mjs";

async function main(argv) {
  if (argv.length > 1 || argv[0] === "-h" || argv[0] === "--help") {
    process.stderr.write("usage: node compile.mjs [SCHEMA_ROOT]\n");
    return 2;
  }
  const root = argv.length === 1 ? path.resolve(argv[0]) : DEFAULT_ROOT;

  const strict = createAjv();
  const subschemas = createAjv({ subschemas: true });
  let entries;
  try {
    entries = await loadSchemas(root, [strict, subschemas]);
  } catch (err) {
    process.stderr.write(`compile: ${err.message}\n`);
    return 2;
  }

  if (entries.length === 0) {
    process.stdout.write(`no schema files below ${root}\n0 passed, 1 failed\n`);
    return 1;
  }

  const resolver = new Resolver(strict, subschemas);
  let passed = 0;
  let failed = 0;
  let examples = 0;
  const out = [];
  for (const entry of entries) {
    if (entry.error !== undefined) {
      out.push(`FAIL ${entry.rel}: ${entry.error}`);
      failed++;
      continue;
    }
    // The root alone leaves unreferenced $defs uncompiled: compile each
    // top-level definition too, strictly, as a $ref to it from outside would.
    const problems = [];
    const compiled = resolver.get(entry.id);
    if (compiled.error !== undefined) {
      problems.push(`FAIL ${entry.rel}: ${compiled.error}`);
    } else {
      for (const name of Object.keys(entry.doc.$defs ?? {})) {
        const pointer = `/$defs/${pointerSegment(name)}`;
        const def = resolver.getStrict(entry.id + pointerToFragment(pointer));
        if (def.error !== undefined) problems.push(`FAIL ${entry.rel}#${pointer}: ${def.error}`);
      }
    }
    if (problems.length > 0) {
      out.push(...problems);
      failed++;
    } else {
      out.push(`ok ${entry.rel}`);
      passed++;
    }
    // Without a root there is nothing to check the examples against.
    if (compiled.error !== undefined) continue;

    for (const ex of collectExamples(entry.doc)) {
      examples++;
      const where = `${entry.rel}#${ex.pointer}/examples/${ex.index}`;
      const sub = resolver.get(entry.id + pointerToFragment(ex.pointer));
      if (sub.error !== undefined) {
        out.push(`FAIL ${where}: ${sub.error}`);
        failed++;
      } else if (validateParsed(sub.validate, ex.holder, ex.index)) {
        passed++;
      } else {
        out.push(`FAIL ${where}: ${formatErrors(sub.validate.errors)}`);
        failed++;
      }
    }
  }
  out.push(`checked ${entries.length} files and ${examples} examples`);
  out.push(`${passed} passed, ${failed} failed`);
  process.stdout.write(out.join("\n") + "\n");
  return failed > 0 ? 1 : 0;
}

process.exitCode = await main(process.argv.slice(2));
