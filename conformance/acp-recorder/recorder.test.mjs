// Tests of the recorder: the committed traces are exactly what the SDK writes
// today, and each trace is well formed (one JSON-RPC message per line, a
// direction per line, every response answering a request that travelled the
// other way). Skipped when the SDK is not installed
// (npm ci --prefix conformance/acp-recorder).

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile, readdir } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const fixtures = path.resolve(here, "../../fixtures/acp/sdk");

let installed = true;
try {
  await import("@agentclientprotocol/sdk");
} catch {
  installed = false;
}
const skip = installed ? false : "the ACP SDK is not installed: run npm ci --prefix conformance/acp-recorder";

const { ENTRYPOINTS } = installed ? await import("./entrypoints.mjs") : { ENTRYPOINTS: [] };
const { record, render, C2A, A2C } = installed ? await import("./lib.mjs") : {};

test("the committed traces are a fresh recording of the SDK", { skip }, async () => {
  for (const ep of ENTRYPOINTS) {
    const sdk = await import(ep.module);
    const names = ep.scenarios().map((s) => s.name);
    const onDisk = (await readdir(path.join(fixtures, ep.dir))).sort();
    const expected = names.flatMap((n) => [`${n}.dir`, `${n}.jsonl`]).sort();
    assert.deepEqual(onDisk, expected, `files in fixtures/acp/sdk/${ep.dir}`);
    for (const sc of ep.scenarios()) {
      const { trace, dirs } = render(await record(sdk, sc));
      const where = `fixtures/acp/sdk/${ep.dir}/${sc.name}`;
      assert.equal(await readFile(path.join(fixtures, ep.dir, `${sc.name}.jsonl`), "utf8"), trace, `${where}.jsonl is stale`);
      assert.equal(await readFile(path.join(fixtures, ep.dir, `${sc.name}.dir`), "utf8"), dirs, `${where}.dir is stale`);
    }
  }
});

test("every trace is one message per line with its direction", { skip }, async () => {
  for (const ep of ENTRYPOINTS) {
    const sdk = await import(ep.module);
    for (const sc of ep.scenarios()) {
      const where = `${ep.dir}/${sc.name}`;
      const lines = (await readFile(path.join(fixtures, ep.dir, `${sc.name}.jsonl`), "utf8")).split("\n");
      const dirs = (await readFile(path.join(fixtures, ep.dir, `${sc.name}.dir`), "utf8")).split("\n");
      assert.equal(lines.pop(), "", `${where}: ends with a newline`);
      assert.equal(dirs.pop(), "", `${where}.dir: ends with a newline`);
      assert.equal(dirs.length, lines.length, `${where}: one direction per line`);
      const pending = new Set();
      lines.forEach((line, i) => {
        const at = `${where}.jsonl:${i + 1}`;
        const dir = dirs[i];
        assert.ok(dir === C2A || dir === A2C, `${at}: direction ${dir}`);
        const msg = JSON.parse(line);
        assert.equal(msg.jsonrpc, "2.0", at);
        if (i === 0) {
          assert.equal(msg.method, "initialize", `${at}: a trace starts with initialize`);
          assert.equal(msg.params.protocolVersion, sdk.PROTOCOL_VERSION, `${at}: the entrypoint's protocol version`);
        }
        if ("method" in msg && "id" in msg) {
          const key = `${dir} ${JSON.stringify(msg.id)}`;
          assert.ok(!pending.has(key), `${at}: request id reused while pending`);
          pending.add(key);
        } else if (!("method" in msg)) {
          const key = `${dir === C2A ? A2C : C2A} ${JSON.stringify(msg.id)}`;
          assert.ok(pending.delete(key), `${at}: response to a request that travelled the other way`);
        }
      });
      assert.equal(pending.size, 0, `${where}: every request is answered`);
    }
  }
});
