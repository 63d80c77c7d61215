// Shared pieces of the ajv cross-check: building the ajv instances, loading a
// schema tree by $id, resolving "$id#/pointer" references, walking a schema
// for its examples, and formatting ajv's errors.

import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

import Ajv2020Module from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";

const Ajv2020 = Ajv2020Module.default ?? Ajv2020Module;
const addFormats = addFormatsModule.default ?? addFormatsModule;

/** Prefix of every $id: the file at relative path P has the $id ID_PREFIX + P. */
export const ID_PREFIX = "https://agentproto.dev/schema/";

/** The draft every schema file must declare. */
export const DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema";

/** The repository's schema folder, the default root of both commands. */
export const DEFAULT_ROOT = fileURLToPath(new URL("../schema/", import.meta.url));

// Base names of the .json files that are data, not schemas.
const DATA_FILES = new Set(["dispatch.json", "deviations.json", "requirements.json", "versions.json", "history.json", "history-notes.json"]);

/**
 * The symbol under which parseJSON records, on an object or array, the
 * member names (or indexes, as strings) whose number was not written as an
 * integer literal: with a fraction or an exponent (1.0, 1e2), or -0. Symbol
 * keys are invisible to ajv, to Object.keys and to JSON.stringify.
 */
export const NOT_INTEGER_LITERAL = Symbol("agentproto.notIntegerLiteral");

/**
 * Reports whether a JSON number's text is an integer literal as a Rust
 * serde_json receiver reads it: digits with an optional minus sign, no
 * fraction, no exponent, and not -0 (which serde_json reads as a float).
 */
export function isIntegerLiteral(text) {
  return /^-?(0|[1-9][0-9]*)$/.test(text) && text !== "-0";
}

/**
 * Parses JSON text like JSON.parse, and also records which numbers were not
 * written as integer literals (see NOT_INTEGER_LITERAL), which JSON.parse
 * forgets: the x-integer-literal keyword needs the text, not the value.
 * Iterative, so nesting depth costs no stack. Throws a SyntaxError on
 * malformed input.
 */
export function parseJSON(text) {
  let i = 0;
  const fail = (what) => {
    throw new SyntaxError(`${what} at position ${i}`);
  };
  const ws = () => {
    while (i < text.length && (text[i] === " " || text[i] === "\t" || text[i] === "\n" || text[i] === "\r")) i++;
  };
  const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
  const LITERALS = [["true", true], ["false", false], ["null", null]];
  // Reads a scalar at i; returns {value, literal} where literal is false for
  // a number that is not an integer literal.
  const scalar = () => {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      if (j >= text.length) fail("unterminated string");
      const value = JSON.parse(text.slice(i, j + 1));
      i = j + 1;
      return { value, literal: true };
    }
    if (c === "-" || (c >= "0" && c <= "9")) {
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(text);
      if (m === null) fail("invalid number");
      i += m[0].length;
      return { value: Number(m[0]), literal: isIntegerLiteral(m[0]) };
    }
    for (const [word, value] of LITERALS) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return { value, literal: true };
      }
    }
    fail("unexpected character");
  };
  // Each frame: {container, key (the pending member name), isArray}.
  const stack = [];
  let root;
  const place = (value, literal) => {
    if (stack.length === 0) {
      root = value;
      return;
    }
    const top = stack[stack.length - 1];
    const key = top.isArray ? String(top.container.length) : top.key;
    if (top.isArray) top.container.push(value);
    // defineProperty, as JSON.parse does: a member named __proto__ is data.
    else Object.defineProperty(top.container, key, { value, writable: true, enumerable: true, configurable: true });
    if (!literal) {
      let set = top.container[NOT_INTEGER_LITERAL];
      if (set === undefined) {
        set = new Set();
        Object.defineProperty(top.container, NOT_INTEGER_LITERAL, { value: set, enumerable: false });
      }
      set.add(key);
    }
  };
  const readKey = (top) => {
    ws();
    if (text[i] !== '"') fail("expected a member name");
    top.key = scalar().value;
    ws();
    if (text[i] !== ":") fail("expected ':'");
    i++;
  };
  for (;;) {
    ws();
    const c = text[i];
    let opened = null;
    if (c === "{") {
      i++;
      opened = { container: {}, key: undefined, isArray: false };
    } else if (c === "[") {
      i++;
      opened = { container: [], key: undefined, isArray: true };
    } else {
      const { value, literal } = scalar();
      place(value, literal);
    }
    if (opened !== null) {
      place(opened.container, true);
      stack.push(opened);
      ws();
      const close = opened.isArray ? "]" : "}";
      if (text[i] === close) {
        i++;
        stack.pop();
      } else {
        if (!opened.isArray) readKey(opened);
        continue;
      }
    }
    // A value is complete: close what ends here, stop at the next sibling.
    for (;;) {
      if (stack.length === 0) {
        ws();
        if (i !== text.length) fail("unexpected data after the JSON value");
        return root;
      }
      const top = stack[stack.length - 1];
      ws();
      if (text[i] === ",") {
        i++;
        if (!top.isArray) readKey(top);
        break;
      }
      if (text[i] === (top.isArray ? "]" : "}")) {
        i++;
        stack.pop();
        continue;
      }
      fail("expected ',' or a closing bracket");
    }
  }
}

/**
 * Validates holder[key], a value parsed with parseJSON, with a compiled ajv
 * validator, telling x-integer-literal how the value itself was written when
 * it is a number (its parent is holder, which ajv does not see).
 */
export function validateParsed(validate, holder, key) {
  const rootNotIntegerLiteral = holder?.[NOT_INTEGER_LITERAL]?.has(String(key)) === true;
  return validate.call({ rootNotIntegerLiteral }, holder[key]);
}

/**
 * Builds an ajv instance for draft 2020-12 with every format of ajv-formats,
 * x-go-name and the emit-shape annotations known as annotations, and
 * x-integer-literal as an assertion.
 *
 * With subschemas false the instance is fully strict: this is the one that
 * proves the published files compile in strict mode. With subschemas true
 * the type and required checks of strict mode are relaxed: a subschema
 * compiled on its own (a oneOf variant, say) has lost the "type" of the
 * schema around it, so these compile-time checks would complain about a
 * schema that is fine in context. They never change a validation verdict.
 */
export function createAjv({ subschemas = false } = {}) {
  // passContext: x-integer-literal learns from "this" how a root number was
  // written (see validateParsed).
  const opts = { strict: true, allErrors: true, passContext: true };
  if (subschemas) {
    opts.strictTypes = false;
    opts.strictRequired = false;
  }
  const ajv = new Ajv2020(opts);
  addFormats(ajv);
  // The Go generator's name override: a string, and nothing to validate.
  ajv.addKeyword({ keyword: "x-go-name", schemaType: "string" });
  // What a producer always writes, and what it leaves out rather than
  // writing null: lists of member names, read by the Go validator's
  // emit-shape warnings; nothing to validate.
  const memberList = { type: "array", items: { type: "string" }, uniqueItems: true };
  ajv.addKeyword({ keyword: "x-always-emitted", schemaType: "array", metaSchema: memberList });
  ajv.addKeyword({ keyword: "x-omitted-when-none", schemaType: "array", metaSchema: memberList });
  // A number must be written as an integer literal (no fraction, exponent or
  // -0), as a serde_json receiver requires. The text is gone after
  // JSON.parse: instances parsed with parseJSON carry it on their parent,
  // and validateParsed passes it for the root.
  ajv.addKeyword({
    keyword: "x-integer-literal",
    schemaType: "boolean",
    errors: false,
    validate: function integerLiteral(on, data, _parentSchema, cxt) {
      if (!on || typeof data !== "number") return true;
      if (cxt?.parentData == null) return this?.rootNotIntegerLiteral !== true;
      const marked = cxt.parentData[NOT_INTEGER_LITERAL];
      return marked === undefined || !marked.has(String(cxt.parentDataProperty));
    },
  });
  return ajv;
}

// Folders below a root that hold no published schema: test data, as the Go
// tool treats it, and installed packages.
const SKIPPED_DIRS = new Set(["testdata", "node_modules"]);

/**
 * Lists the schema files below root, recursively, as slash-separated paths
 * relative to root in lexical order: every *.json except the data files, and
 * nothing inside a folder named testdata or node_modules.
 */
export async function listSchemaFiles(root) {
  const out = [];
  async function walk(dir, rel) {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (err) {
      throw new Error(`listing ${dir}: ${err.message}`, { cause: err });
    }
    for (const e of entries) {
      const childRel = rel === "" ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) {
        if (!SKIPPED_DIRS.has(e.name)) await walk(path.join(dir, e.name), childRel);
      } else if (e.isFile() && e.name.endsWith(".json") && !DATA_FILES.has(e.name)) {
        out.push(childRel);
      }
    }
  }
  await walk(root, "");
  return out.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * Reads every schema file below root and adds it to each ajv instance by its
 * $id. Nothing is compiled yet and nothing is ever fetched.
 *
 * Returns one entry per file: {rel, id, doc} when the file was added, or
 * {rel, error} when it could not be (unreadable, not JSON, $id missing or not
 * matching the file's path, a $schema other than 2020-12, rejected by ajv's
 * meta-schema check, a duplicate $id).
 */
export async function loadSchemas(root, ajvs) {
  const files = await listSchemaFiles(root);
  const entries = [];
  for (const rel of files) {
    entries.push(await loadOne(root, rel, ajvs));
  }
  return entries;
}

async function loadOne(root, rel, ajvs) {
  let text;
  try {
    text = await readFile(path.join(root, ...rel.split("/")), "utf8");
  } catch (err) {
    return { rel, error: `cannot read: ${err.message}` };
  }
  let doc;
  try {
    doc = parseJSON(text);
  } catch (err) {
    return { rel, error: `not valid JSON: ${err.message}` };
  }
  if (doc === null || typeof doc !== "object" || Array.isArray(doc)) {
    return { rel, error: "the file is not a JSON object" };
  }
  const want = ID_PREFIX + rel;
  if (typeof doc.$id !== "string") {
    return { rel, error: `no $id (want "${want}")` };
  }
  if (doc.$id !== want) {
    return { rel, error: `$id is "${doc.$id}", want "${want}" (the $id must match the file's path)` };
  }
  if (doc.$schema !== DRAFT_2020_12) {
    return { rel, error: `$schema is ${JSON.stringify(doc.$schema)}, want "${DRAFT_2020_12}"` };
  }
  const foreign = foreignKeywords(doc);
  if (foreign.length > 0) {
    const list = foreign.map((f) => `"${f.keyword}" at #${f.pointer}`).join(", ");
    return { rel, error: `not a draft 2020-12 keyword: ${list}` };
  }
  for (const ajv of ajvs) {
    try {
      ajv.addSchema(doc);
    } catch (err) {
      return { rel, error: err.message };
    }
  }
  return { rel, id: doc.$id, doc };
}

// The keywords of the draft 2020-12 vocabularies, and agentproto's own.
const KNOWN_KEYWORDS = new Set([
  // core
  "$schema", "$id", "$ref", "$anchor", "$dynamicRef", "$dynamicAnchor", "$vocabulary", "$comment", "$defs",
  // applicator
  "prefixItems", "items", "contains", "additionalProperties", "properties", "patternProperties",
  "dependentSchemas", "propertyNames", "if", "then", "else", "allOf", "anyOf", "oneOf", "not",
  // unevaluated
  "unevaluatedItems", "unevaluatedProperties",
  // validation
  "type", "const", "enum", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
  "maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "maxContains", "minContains",
  "maxProperties", "minProperties", "required", "dependentRequired",
  // meta-data
  "title", "description", "default", "deprecated", "readOnly", "writeOnly", "examples",
  // format annotation and content
  "format", "contentEncoding", "contentMediaType", "contentSchema",
  // the Go generator's name override
  "x-go-name",
  // the emit-shape annotations and the integer-literal assertion (see createAjv)
  "x-always-emitted", "x-omitted-when-none", "x-integer-literal",
]);

/**
 * Lists the keywords of doc that are neither draft 2020-12 keywords nor
 * agentproto's own (x-go-name, x-always-emitted, x-omitted-when-none,
 * x-integer-literal), as {keyword, pointer}. ajv's strict mode rejects unknown
 * keywords but accepts a few of its own (nullable, definitions, ...) that the
 * Go validator ignores, so those are caught here.
 */
export function foreignKeywords(doc) {
  const out = [];
  walkSchemas(doc, (schema, pointer) => {
    for (const kw of Object.keys(schema)) {
      if (!KNOWN_KEYWORDS.has(kw)) out.push({ keyword: kw, pointer });
    }
  });
  return out;
}

/** Escapes one JSON pointer segment and encodes it for a URI fragment. */
export function pointerSegment(s) {
  return String(s).replaceAll("~", "~0").replaceAll("/", "~1");
}

/** Turns a JSON pointer into a URI fragment ajv resolves ("" for the root). */
export function pointerToFragment(pointer) {
  if (pointer === "") return "";
  return (
    "#" +
    pointer
      .split("/")
      .map((seg) => encodeURIComponent(seg).replaceAll("%24", "$"))
      .join("/")
  );
}

// Keywords whose value is a schema, a map of schemas or an array of schemas.
const SCHEMA_KEYWORDS = new Set([
  "additionalProperties",
  "unevaluatedProperties",
  "unevaluatedItems",
  "items",
  "contains",
  "propertyNames",
  "not",
  "if",
  "then",
  "else",
  "contentSchema",
]);
const SCHEMA_MAP_KEYWORDS = new Set(["$defs", "definitions", "properties", "patternProperties", "dependentSchemas"]);
const SCHEMA_ARRAY_KEYWORDS = new Set(["allOf", "anyOf", "oneOf", "prefixItems"]);

/**
 * Visits every schema location of doc (the root and each subschema reached
 * through a keyword that holds schemas; never the inside of examples, const,
 * enum or default) and calls visit(schema, pointer) for each object schema.
 */
export function walkSchemas(doc, visit) {
  function walk(node, pointer) {
    if (node === null || typeof node !== "object" || Array.isArray(node)) return;
    visit(node, pointer);
    for (const [kw, value] of Object.entries(node)) {
      const at = `${pointer}/${pointerSegment(kw)}`;
      if (SCHEMA_KEYWORDS.has(kw)) {
        walk(value, at);
      } else if (SCHEMA_MAP_KEYWORDS.has(kw) && value && typeof value === "object" && !Array.isArray(value)) {
        for (const [name, sub] of Object.entries(value)) walk(sub, `${at}/${pointerSegment(name)}`);
      } else if (SCHEMA_ARRAY_KEYWORDS.has(kw) && Array.isArray(value)) {
        value.forEach((sub, i) => walk(sub, `${at}/${i}`));
      }
    }
  }
  walk(doc, "");
}

/**
 * Lists the examples of doc: {pointer, index, value, holder}, where pointer
 * is the JSON pointer of the schema that holds the "examples" keyword and
 * holder is that keyword's array (for validateParsed(v, holder, index)).
 */
export function collectExamples(doc) {
  const out = [];
  walkSchemas(doc, (schema, pointer) => {
    if (Array.isArray(schema.examples)) {
      const holder = schema.examples;
      holder.forEach((value, index) => out.push({ pointer, index, value, holder }));
    }
  });
  return out;
}

/**
 * Validates against schemas by reference: "$id" or "$id#/json/pointer". A
 * root reference uses the strict instance; a pointer into a file uses the
 * instance made for subschemas (see createAjv). Compiled validators are kept.
 */
export class Resolver {
  constructor(strict, subschemas) {
    this.strict = strict;
    this.subschemas = subschemas;
    this.cache = new Map();
    this.strictCache = new Map();
  }

  /**
   * Returns {validate} for a known reference, {error} when the reference is
   * unknown or its schema does not compile.
   */
  get(ref) {
    return this.#cached(this.cache, ref, false);
  }

  /**
   * Like get, but compiles a pointer reference with the strict instance too:
   * for a subschema that stands on its own, such as a $defs entry.
   */
  getStrict(ref) {
    return this.#cached(this.strictCache, ref, true);
  }

  #cached(cache, ref, strictOnly) {
    let hit = cache.get(ref);
    if (hit === undefined) {
      hit = this.#compile(ref, strictOnly);
      cache.set(ref, hit);
    }
    return hit;
  }

  #compile(ref, strictOnly) {
    if (typeof ref !== "string" || ref === "") {
      return { error: "no schema reference" };
    }
    const hash = ref.indexOf("#");
    const pointerRef = hash >= 0 && hash < ref.length - 1;
    const ajv = pointerRef && !strictOnly ? this.subschemas : this.strict;
    const key = hash === ref.length - 1 ? ref.slice(0, -1) : ref;
    if (pointerRef && ref[hash + 1] !== "/") {
      return { error: `unknown schema id ${ref}: the fragment must be a JSON pointer` };
    }
    let validate;
    try {
      validate = ajv.getSchema(key);
    } catch (err) {
      return { error: `schema ${ref} does not compile: ${err.message}` };
    }
    if (validate === undefined) {
      return { error: `unknown schema id ${ref}` };
    }
    return { validate };
  }
}

/** Formats ajv's errors as one line, at most limit of them. */
export function formatErrors(errors, limit = 8) {
  if (!errors || errors.length === 0) return "(no error reported)";
  const parts = errors.slice(0, limit).map(formatError);
  if (errors.length > limit) parts.push(`and ${errors.length - limit} more`);
  return parts.join("; ");
}

function formatError(e) {
  const where = e.instancePath === "" ? "/" : e.instancePath;
  let msg = `${where}: ${e.message}`;
  const p = e.params ?? {};
  switch (e.keyword) {
    case "additionalProperties":
      msg += ` (${JSON.stringify(p.additionalProperty)})`;
      break;
    case "enum":
      msg += ` ${JSON.stringify(p.allowedValues)}`;
      break;
    case "const":
      msg += ` ${JSON.stringify(p.allowedValue)}`;
      break;
    case "unevaluatedProperties":
      msg += ` (${JSON.stringify(p.unevaluatedProperty)})`;
      break;
    default:
      break;
  }
  return `${msg} [${e.schemaPath}]`;
}

/**
 * Reports whether the JSON text holds a number JavaScript cannot compare
 * exactly: one beyond 2^53 in magnitude, or too large for a double. ajv
 * compares numbers as doubles, so 18446744073709551616 (2^64) passes a
 * "maximum" of 18446744073709551615 that was rounded up to 2^64, while the
 * Go validator compares the exact values. A verdict on such an instance says
 * nothing about the schema.
 */
export function hasInexactNumber(text) {
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (ch === '"') {
      // Skip the string, escapes included.
      i++;
      while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
      i++;
    } else if (ch === "-" || (ch >= "0" && ch <= "9")) {
      let j = i + 1;
      while (j < text.length && /[0-9.eE+-]/.test(text[j])) j++;
      const n = Number(text.slice(i, j));
      if (!Number.isFinite(n) || Math.abs(n) > Number.MAX_SAFE_INTEGER) return true;
      i = j;
    } else {
      i++;
    }
  }
  return false;
}
