#!/usr/bin/env node
// The recorder's SDK client app (v1.mjs) driving an agent it spawns, over the
// agent's stdio, through one scenario of v1.mjs.
//
//   node stdio-client.mjs [--entry v1|v1-unstable] [--scenario NAME] [--log DIR]
//                         -- AGENT_CMD [ARGS...]
//
// --scenario NAME  one of v1.mjs's scenarios that need no shared state with
//                  the agent (default 02-prompt-all-updates)
// --log DIR        writes the bytes it sent (DIR/client-out) and received
//                  (DIR/client-in)
//
// Exit status: the agent's, or 1 when the scenario failed.

import { spawn } from "node:child_process";
import { Readable } from "node:stream";
import { makeClient, scenarios } from "./v1.mjs";
import { entrypoint, loggedReadable, loggedWritable, logPath, parseFlags, seedIds, writeTo } from "./stdio-common.mjs";

function usage(msg) {
  if (msg) process.stderr.write(`stdio-client.mjs: ${msg}\n`);
  process.stderr.write("usage: node stdio-client.mjs [--entry v1|v1-unstable] [--scenario NAME] [--log DIR] -- AGENT_CMD [ARGS...]\n");
  process.exit(2);
}

async function main() {
  const { flags, rest } = parseFlags(process.argv.slice(2), { entry: "value", scenario: "value", log: "value" }, usage);
  if (rest.length === 0) usage("no agent command after --");
  const ep = entrypoint(flags.entry ?? "v1");
  const unstable = ep.dir.endsWith("-unstable");
  const sc = scenarios(unstable).find((s) => s.name === (flags.scenario ?? "02-prompt-all-updates"));
  if (!sc) usage(`unknown scenario ${flags.scenario}`);
  seedIds();
  const sdk = await import(ep.module);

  const child = spawn(rest[0], rest.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  child.stdin.on("error", () => {}); // an agent that died: its status says so
  const out = loggedWritable(
    (chunk) => writeTo(child.stdin, chunk),
    async () => child.stdin.end(),
    logPath(flags.log, "client-out"),
  );
  const input = loggedReadable(Readable.toWeb(child.stdout), logPath(flags.log, "client-in"));
  const shared = sc.shared ? sc.shared() : {};
  const app = makeClient(sdk, shared, unstable);
  let failed = false;
  try {
    await app.connectWith(sdk.ndJsonStream(out, input), (ctx) => sc.run(ctx, shared, sdk));
  } catch (err) {
    failed = true;
    process.stderr.write(`stdio-client.mjs: ${sc.name}: ${err?.stack ?? err}\n`);
  }
  child.stdin.end();
  const { code, signal } = await exited;
  if (signal) {
    process.stderr.write(`stdio-client.mjs: the agent was ended by ${signal}\n`);
    process.exit(1);
  }
  process.exit(failed && code === 0 ? 1 : code);
}

main().catch((err) => {
  process.stderr.write(`stdio-client.mjs: ${err?.stack ?? err}\n`);
  process.exit(1);
});
