#!/usr/bin/env node
// Records the wire traffic of the official ACP TypeScript SDK, its client app
// against its agent app, for every entrypoint and scenario, as
// DIR/<entrypoint>/<NN-scenario>.jsonl plus the .dir sidecar beside it.
//
//   node record.mjs [--out DIR] [--only ENTRYPOINT[/SCENARIO]]
//
// DIR defaults to fixtures/acp/sdk of this repository.

import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { record, render } from "./lib.mjs";
import { ENTRYPOINTS } from "./entrypoints.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));

function usage(msg) {
  if (msg) process.stderr.write(`record.mjs: ${msg}\n`);
  process.stderr.write("usage: node record.mjs [--out DIR] [--only ENTRYPOINT[/SCENARIO]]\n");
  process.exit(2);
}

function parseArgs(argv) {
  const o = { out: path.resolve(here, "../../fixtures/acp/sdk"), only: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--out") {
      if (i + 1 >= argv.length) usage("--out needs a directory");
      o.out = path.resolve(argv[++i]);
    } else if (a.startsWith("--out=")) {
      o.out = path.resolve(a.slice(6));
    } else if (a === "--only") {
      if (i + 1 >= argv.length) usage("--only needs a name");
      o.only = argv[++i];
    } else if (a === "-h" || a === "--help") {
      usage();
    } else {
      usage(`unknown argument ${a}`);
    }
  }
  return o;
}

let current = null;

// A scenario that waits for a message that never comes leaves nothing on the
// event loop: name it instead of exiting quietly.
process.on("beforeExit", () => {
  if (current !== null) {
    process.stderr.write(`record.mjs: ${current}: stalled (a side waited for a message that never came)\n`);
    process.exit(1);
  }
});

async function main() {
  const o = parseArgs(process.argv.slice(2));
  let total = 0;
  for (const ep of ENTRYPOINTS) {
    if (o.only && o.only !== ep.dir && !o.only.startsWith(ep.dir + "/")) continue;
    const sdk = await import(ep.module);
    const dir = path.join(o.out, ep.dir);
    await mkdir(dir, { recursive: true });
    for (const sc of ep.scenarios()) {
      if (o.only && o.only.includes("/") && o.only !== `${ep.dir}/${sc.name}`) continue;
      let log;
      current = `${ep.dir}/${sc.name}`;
      try {
        log = await record(sdk, sc);
      } catch (err) {
        const tail = (err?.recordedLines ?? []).slice(-6).map((l) => `  ${l.dir} ${l.line}`).join("\n");
        throw new Error(`${ep.dir}/${sc.name}: ${err?.stack ?? err}\nlast lines recorded:\n${tail}`, { cause: err });
      }
      const { trace, dirs } = render(log);
      await writeFile(path.join(dir, `${sc.name}.jsonl`), trace);
      await writeFile(path.join(dir, `${sc.name}.dir`), dirs);
      process.stdout.write(`${ep.dir}/${sc.name}.jsonl: ${log.length} lines\n`);
      total++;
      current = null;
    }
  }
  if (total === 0) usage("nothing matched --only");
}

main().catch((err) => {
  process.stderr.write(`record.mjs: ${err?.message ?? err}\n`);
  process.exit(1);
});
