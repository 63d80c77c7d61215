#!/usr/bin/env node
// typescript.mjs OUT_DIR: writes one TypeScript module per published bundle
// (OUT_DIR/<protocol>-<version>.ts) with a type for every definition of the
// bundle, every message included, using json-schema-to-typescript. The
// test compiles them all at once with tsc --strict.

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import process from "node:process";

import { compile } from "json-schema-to-typescript";

import { DEFAULT_ROOT, listSchemaFiles } from "./lib.mjs";

/** Returns the TypeScript source of the types of one bundle. */
export async function bundleTypes(bundle) {
  // A root that refers to every definition: json-schema-to-typescript
  // emits a type for each definition a schema reaches.
  const names = Object.keys(bundle.$defs);
  const schema = {
    ...bundle,
    title: bundle.title,
    type: "object",
    properties: Object.fromEntries(names.map((n) => [n, { $ref: `#/$defs/${n}` }])),
    additionalProperties: false,
  };
  // TypeScript's index signature must admit every declared member: where an
  // object declares members and types its other members too (a schema for
  // additionalProperties or patternProperties), the index signature is left
  // open (unknown) rather than typed.
  schema.$defs = openIndexSignatures(structuredClone(bundle.$defs));
  delete schema.allOf;
  delete schema.required;
  delete schema.description;
  const ts = await compile(schema, bundle.title, { bannerComment: "", additionalProperties: true, unreachableDefinitions: true, format: false });
  // The generator names a type after its schema's title; Defs names each
  // type after its bundle definition (SessionPromptParams, RunStarted).
  const aliases = names.map((n) => `  export type ${n} = NonNullable<${bundle.title}[${JSON.stringify(n)}]>;`);
  return `${ts}\n/** Every definition of the bundle, by its name in #/$defs. */\nexport namespace Defs {\n${aliases.join("\n")}\n}\n`;
}

// Returns node with every object schema that has properties and a schema
// for its other members made to accept any other member.
function openIndexSignatures(node) {
  if (Array.isArray(node)) return node.map(openIndexSignatures);
  if (node === null || typeof node !== "object") return node;
  const out = {};
  for (const [k, v] of Object.entries(node)) {
    out[k] = k === "examples" || k === "const" || k === "enum" || k === "default" ? v : openIndexSignatures(v);
  }
  if (out.properties && (typeof out.additionalProperties === "object" || out.patternProperties)) {
    out.additionalProperties = true;
    delete out.patternProperties;
  }
  return out;
}

async function main(argv) {
  if (argv.length !== 1) {
    process.stderr.write("usage: node typescript.mjs OUT_DIR\n");
    return 2;
  }
  mkdirSync(argv[0], { recursive: true });
  for (const rel of (await listSchemaFiles(DEFAULT_ROOT)).filter((f) => f.endsWith(".bundle.json"))) {
    const bundle = JSON.parse(readFileSync(path.join(DEFAULT_ROOT, rel), "utf8"));
    const [proto, version] = rel.split("/");
    const out = path.join(argv[0], `${proto}-${version}.ts`);
    writeFileSync(out, await bundleTypes(bundle));
    process.stdout.write(`wrote ${out}\n`);
  }
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  process.exitCode = await main(process.argv.slice(2));
}
