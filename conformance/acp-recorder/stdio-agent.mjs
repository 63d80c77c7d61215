#!/usr/bin/env node
// The recorder's SDK agent app (v1.mjs) served over this process's stdio,
// one JSON-RPC message per line, as an editor would run an ACP agent.
//
//   node stdio-agent.mjs [--entry v1|v1-unstable] [--log DIR]
//                        [--bad] [--crash-after N]
//
// --log DIR   writes the bytes it read (DIR/agent-in) and wrote (DIR/agent-out)
// --bad       after its first message, writes a session/update whose update
//             lacks its content: a defect a validator must report
// --crash-after N  exits with status 7 right after writing its Nth line

import { Readable } from "node:stream";
import { makeAgent } from "./v1.mjs";
import { entrypoint, loggedReadable, loggedWritable, logPath, parseFlags, seedIds, writeTo } from "./stdio-common.mjs";

function usage(msg) {
  if (msg) process.stderr.write(`stdio-agent.mjs: ${msg}\n`);
  process.stderr.write("usage: node stdio-agent.mjs [--entry v1|v1-unstable] [--log DIR] [--bad] [--crash-after N]\n");
  process.exit(2);
}

const BAD =
  '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess-none","update":{"sessionUpdate":"agent_message_chunk"}}}\n';

async function main() {
  const { flags } = parseFlags(process.argv.slice(2), { entry: "value", log: "value", bad: "bool", "crash-after": "value" }, usage);
  const ep = entrypoint(flags.entry ?? "v1");
  const unstable = ep.dir.endsWith("-unstable");
  const crashAfter = flags["crash-after"] ? Number(flags["crash-after"]) : 0;
  seedIds();
  const sdk = await import(ep.module);

  let lines = 0;
  let badSent = !flags.bad;
  const out = loggedWritable(
    async (chunk) => {
      await writeTo(process.stdout, chunk);
      for (const b of chunk) if (b === 10) lines++;
      if (!badSent) {
        badSent = true;
        await writeTo(process.stdout, BAD);
      }
      if (crashAfter && lines >= crashAfter) {
        process.stderr.write(`stdio-agent.mjs: crashing after ${lines} lines, as asked\n`);
        process.exit(7);
      }
    },
    async () => {},
    logPath(flags.log, "agent-out"),
  );
  const input = loggedReadable(Readable.toWeb(process.stdin), logPath(flags.log, "agent-in"));
  const app = makeAgent(sdk, {}, unstable);
  const conn = app.connect(sdk.ndJsonStream(out, input));
  await conn.closed;
}

main().catch((err) => {
  process.stderr.write(`stdio-agent.mjs: ${err?.stack ?? err}\n`);
  process.exit(1);
});
