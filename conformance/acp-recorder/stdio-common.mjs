// Shared pieces of the stdio scripts (stdio-agent.mjs, stdio-client.mjs):
// the SDK apps of v1.mjs run as two processes joined by real pipes, so that
// a relay can sit between them.

import { appendFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ENTRYPOINTS } from "./entrypoints.mjs";

/** The v1 entrypoints (the apps of v1.mjs), by folder name. */
export function entrypoint(name) {
  const ep = ENTRYPOINTS.find((e) => e.dir === name);
  if (!ep || !name.startsWith("v1")) {
    throw new Error(`unknown entrypoint ${name}: want v1 or v1-unstable`);
  }
  return ep;
}

/**
 * Makes crypto.randomUUID count, so that whatever the SDK generates is the
 * same in every run and two runs can be compared byte for byte.
 */
export function seedIds() {
  let n = 0;
  globalThis.crypto.randomUUID = () => {
    n += 1;
    return `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`;
  };
}

/**
 * Wraps a web ReadableStream of bytes so that every chunk is also appended,
 * as it passes, to file (when file is set).
 */
export function loggedReadable(readable, file) {
  if (!file) return readable;
  writeFileSync(file, "");
  return readable.pipeThrough(
    new TransformStream({
      transform(chunk, ctl) {
        appendFileSync(file, chunk);
        ctl.enqueue(chunk);
      },
    }),
  );
}

/**
 * A web WritableStream that appends every chunk to file (when set) and then
 * hands it to write(chunk) -> Promise, which puts it on the wire.
 */
export function loggedWritable(write, close, file) {
  if (file) writeFileSync(file, "");
  return new WritableStream({
    async write(chunk) {
      if (file) appendFileSync(file, chunk);
      await write(chunk);
    },
    async close() {
      await close();
    },
  });
}

/** Writes bytes to a Node stream and resolves once they are handed on. */
export function writeTo(stream, chunk) {
  return new Promise((resolve, reject) => {
    stream.write(chunk, (err) => (err ? reject(err) : resolve()));
  });
}

/** Parses --name value flags up to "--"; returns { flags, rest }. */
export function parseFlags(argv, known, usage) {
  const flags = {};
  let i = 0;
  for (; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--") {
      i++;
      break;
    }
    const name = a.replace(/^--/, "");
    if (!a.startsWith("--") || !(name in known)) usage(`unknown argument ${a}`);
    if (known[name] === "bool") {
      flags[name] = true;
    } else {
      if (i + 1 >= argv.length) usage(`${a} needs a value`);
      flags[name] = argv[++i];
    }
  }
  return { flags, rest: argv.slice(i) };
}

export function logPath(dir, name) {
  return dir ? path.join(dir, name) : null;
}
