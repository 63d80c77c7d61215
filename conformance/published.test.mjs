// The published bundles as a consumer in another language uses them: ajv in
// strict mode with nothing declared (no addKeyword), and a message with one
// defect gives one error, at the defect, naming the variant or the allowed
// tag. Run with: node --test conformance/

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";

import Ajv2020Module from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";

import { DEFAULT_ROOT, listSchemaFiles, walkSchemas } from "./lib.mjs";

const Ajv2020 = Ajv2020Module.default ?? Ajv2020Module;
const addFormats = addFormatsModule.default ?? addFormatsModule;
const here = path.dirname(fileURLToPath(import.meta.url));

/** The published bundles, as paths below the schema folder. */
export const bundleFiles = (await listSchemaFiles(DEFAULT_ROOT)).filter((f) => f.endsWith(".bundle.json"));

function readBundle(rel) {
  return JSON.parse(readFileSync(path.join(DEFAULT_ROOT, rel), "utf8"));
}

// A consumer's ajv: strict, every error, the formats, and nothing of ours.
function plainAjv() {
  const ajv = new Ajv2020({ strict: true, allErrors: true, verbose: true });
  addFormats(ajv);
  return ajv;
}

describe("published bundles", { concurrency: true }, () => {
  test("there is a bundle per version", () => {
    assert.ok(bundleFiles.length >= 8, bundleFiles.join(", "));
  });
  for (const rel of bundleFiles) {
    test(`${rel} compiles in strict mode with no keyword declared`, () => {
      const doc = readBundle(rel);
      const custom = [];
      walkSchemas(doc, (s, pointer) => {
        for (const k of Object.keys(s)) if (k.startsWith("x-")) custom.push(`${k} at #${pointer}`);
      });
      assert.deepEqual(custom, [], "agentproto's own keywords are left out of a bundle");
      const ajv = plainAjv();
      ajv.addSchema(doc);
      assert.ok(ajv.getSchema(doc.$id), "the root compiles");
      for (const name of Object.keys(doc.$defs)) {
        assert.ok(ajv.getSchema(`${doc.$id}#/$defs/${name}`), `#/$defs/${name} compiles`);
      }
    });
  }
});

/**
 * The errors of a failed validation that are not if/then wrappers: the
 * defects themselves.
 */
export function defects(errors) {
  return (errors ?? []).filter((e) => e.keyword !== "if");
}

// What an error chain names: the titles of the branches its if/then
// wrappers took, the title of the schema that failed, and the values an
// enum allows.
function named(errors) {
  const out = new Set();
  for (const e of errors ?? []) {
    if (e.keyword === "if") {
      // With verbose, parentSchema of an if error is the {if, then} pair.
      const branch = e.parentSchema?.then;
      if (branch?.title) out.add(branch.title);
      const ref = branch?.$ref ?? branch?.allOf?.[0]?.$ref;
      if (typeof ref === "string") out.add(ref.replace(/^#\/\$defs\//, ""));
    } else {
      if (e.parentSchema?.title) out.add(e.parentSchema.title);
      const def = /^#\/\$defs\/([^/]+)/.exec(e.schemaPath);
      if (def) out.add(def[1]);
      for (const v of e.params?.allowedValues ?? []) out.add(String(v));
    }
  }
  return out;
}

export const oneDefect = JSON.parse(readFileSync(path.join(here, "published", "one-defect.json"), "utf8"));
export const valid = JSON.parse(readFileSync(path.join(here, "published", "valid.json"), "utf8"));

describe("one defect, one error", { concurrency: true }, () => {
  const ajvs = new Map();
  const protocols = new Set(oneDefect.map((c) => c.bundle.split("/")[0]));
  test("every protocol has cases", () => {
    assert.deepEqual([...protocols].sort(), ["acp", "arcan", "arcp"]);
  });
  for (const c of oneDefect) {
    test(`${c.bundle}: ${c.why}`, () => {
      const doc = readBundle(c.bundle);
      let ajv = ajvs.get(c.bundle);
      if (ajv === undefined) {
        ajv = plainAjv();
        ajv.addSchema(doc);
        ajvs.set(c.bundle, ajv);
      }
      const validate = ajv.getSchema(doc.$id + (c.def ? `#/$defs/${c.def}` : ""));
      assert.equal(validate(c.message), false, "the message is invalid");
      const found = defects(validate.errors);
      const shown = validate.errors.map((e) => `${e.keyword} ${e.instancePath} ${e.schemaPath} ${e.message}`).join("\n");
      assert.equal(found.length, 1, `one error, got:\n${shown}`);
      assert.equal(found[0].instancePath, c.at, shown);
      assert.ok(named(validate.errors).has(c.names), `the errors name ${c.names}: ${[...named(validate.errors)].join(", ")}\n${shown}`);
    });
  }
});

describe("valid messages pass", { concurrency: true }, () => {
  for (const c of valid) {
    test(`${c.bundle}: ${c.why}`, () => {
      const doc = readBundle(c.bundle);
      const ajv = plainAjv();
      ajv.addSchema(doc);
      const validate = ajv.getSchema(doc.$id + (c.def ? `#/$defs/${c.def}` : ""));
      assert.equal(validate(c.message), true, JSON.stringify(validate.errors?.slice(0, 4)));
    });
  }
});
