// The TypeScript recipe: json-schema-to-typescript turns every published
// bundle into types (typescript.mjs), and tsc --strict compiles them all at
// once with a file that uses them on real messages. Run with:
// node --test conformance/

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";

import { DEFAULT_ROOT, listSchemaFiles } from "./lib.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const out = mkdtempSync(path.join(tmpdir(), "agentproto-ts-"));
after(() => rmSync(out, { recursive: true, force: true }));

// Uses of the types: valid messages must type-check, and a wrong value must
// not (@ts-expect-error fails the build when there is no error).
const USE = `
import type { Defs as ACP } from "./acp-v1.js";
import type { Defs as ARCP } from "./arcp-v1.1.js";
import type { Defs as Arcan } from "./arcan-v1.js";
export const prompt: ACP.SessionPromptParams = { sessionId: "s1", prompt: [{ type: "text", text: "hi" }] };
export const done: ACP.SessionPromptResult = { stopReason: "end_turn" };
// @ts-expect-error a stop reason that does not exist
export const wrong: ACP.SessionPromptResult = { stopReason: "end-turn" };
export const update: ACP.SessionUpdate = { sessionUpdate: "tool_call_update", toolCallId: "call_01", status: "completed" };
export const log: ARCP.JobEvent = { arcp: "1.1", id: "m1", type: "job.event", session_id: "s1", job_id: "j1", event_seq: 1,
  payload: { kind: "log", ts: "2026-05-13T19:45:00.554Z", body: { level: "info", message: "x" } } };
export const started: Arcan.RunStarted = { part_type: "run_started", run_id: "r1", session_id: "s1", provider: "p", max_iterations: 24 };
// @ts-expect-error an iteration that is a string
export const iteration: Arcan.IterationStarted = { part_type: "iteration_started", run_id: "r1", session_id: "s1", iteration: "1" };
`;

test("every bundle gives types for every definition, and they compile with tsc --strict", async () => {
  const gen = spawnSync(process.execPath, [path.join(here, "typescript.mjs"), out], { encoding: "utf8" });
  assert.equal(gen.status, 0, gen.stderr);
  const bundles = (await listSchemaFiles(DEFAULT_ROOT)).filter((f) => f.endsWith(".bundle.json"));
  const files = [];
  for (const rel of bundles) {
    const [proto, version] = rel.split("/");
    const file = path.join(out, `${proto}-${version}.ts`);
    files.push(file);
    const ts = readFileSync(file, "utf8");
    const bundle = JSON.parse(readFileSync(path.join(DEFAULT_ROOT, rel), "utf8"));
    for (const name of Object.keys(bundle.$defs)) {
      assert.ok(ts.includes(`  export type ${name} = `), `${rel}: no type for #/$defs/${name}`);
    }
  }
  writeFileSync(path.join(out, "use.ts"), USE);
  files.push(path.join(out, "use.ts"));
  // One tsc run for every file.
  const tsc = spawnSync(process.execPath, [path.join(here, "node_modules", "typescript", "bin", "tsc"), "--strict", "--noEmit",
    "--target", "es2022", "--module", "nodenext", "--moduleResolution", "nodenext", ...files], { encoding: "utf8" });
  assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
});
