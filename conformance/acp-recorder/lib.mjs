// Recording harness: runs an SDK client app against an SDK agent app over
// two in-memory byte pipes, framed by the SDK's own ndJsonStream, and keeps
// every line each side wrote, with its direction, in the order written.

/** Direction names used by the validator's .dir sidecars. */
export const C2A = "c2a";
export const A2C = "a2c";

/**
 * A one-way byte pipe whose writer side records every complete line it
 * carries into `log` as { dir, line }, before passing the bytes on.
 */
function tappedPipe(dir, log) {
  const pipe = new TransformStream();
  const writer = pipe.writable.getWriter();
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let pending = "";
  const tap = new WritableStream({
    async write(chunk) {
      pending += decoder.decode(chunk, { stream: true });
      let nl;
      while ((nl = pending.indexOf("\n")) >= 0) {
        log.push({ dir, line: pending.slice(0, nl) });
        pending = pending.slice(nl + 1);
      }
      await writer.write(chunk);
    },
    async close() {
      if (pending !== "") {
        log.push({ dir, line: pending, unterminated: true });
        pending = "";
      }
      await writer.close();
    },
    async abort(reason) {
      await writer.abort(reason);
    },
  });
  return { writable: tap, readable: pipe.readable };
}

/**
 * Replaces crypto.randomUUID with a counter for the duration of fn, so that
 * nothing the SDK generates on its own differs between runs.
 */
async function withSeededIds(fn) {
  const c = globalThis.crypto;
  const original = c.randomUUID;
  let n = 0;
  c.randomUUID = () => {
    n += 1;
    return `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`;
  };
  try {
    return await fn();
  } finally {
    c.randomUUID = original;
  }
}

/**
 * Runs one scenario and returns its lines.
 *
 * sdk: the imported entrypoint module.
 * scenario: { agent(sdk, shared) -> AgentApp, client(sdk, shared) -> ClientApp,
 *             run(ctx, shared) -> Promise }.
 * shared: a fresh object both sides may use to coordinate (never written).
 */
export async function record(sdk, scenario) {
  return withSeededIds(async () => {
    const log = [];
    const c2a = tappedPipe(C2A, log);
    const a2c = tappedPipe(A2C, log);
    const shared = scenario.shared ? scenario.shared() : {};
    const agentApp = scenario.agent(sdk, shared);
    const clientApp = scenario.client(sdk, shared);
    const agentConn = agentApp.connect(sdk.ndJsonStream(a2c.writable, c2a.readable));
    shared.agentConnection = agentConn;
    let failure;
    try {
      await clientApp.connectWith(sdk.ndJsonStream(c2a.writable, a2c.readable), (ctx) =>
        scenario.run(ctx, shared, sdk),
      );
    } catch (err) {
      failure = err;
    }
    // Let every write already queued reach the tap, then close the agent.
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    agentConn.close();
    await agentConn.closed.catch(() => {});
    if (failure) {
      if (failure && typeof failure === "object") failure.recordedLines = log;
      throw failure;
    }
    return log;
  });
}

/** Serialises a log as the trace text and its .dir sidecar text. */
export function render(log) {
  let trace = "";
  let dirs = "";
  for (const { dir, line } of log) {
    trace += line + "\n";
    dirs += dir + "\n";
  }
  return { trace, dirs };
}

/** Expects a promise to reject with a JSON-RPC error; returns the error. */
export async function expectError(p, code) {
  try {
    await p;
  } catch (err) {
    if (code !== undefined && err?.code !== code) {
      throw new Error(`expected error ${code}, got ${err?.code}: ${err?.message}`, { cause: err });
    }
    return err;
  }
  throw new Error(`expected error ${code}, got a result`);
}

/** Resolves after the event loop has run the given number of turns. */
export async function ticks(n = 5) {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
}

/** A promise with its resolve function exposed. */
export function deferred() {
  let resolve;
  let reject;
  const promise = new Promise((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
