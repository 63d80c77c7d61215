#!/usr/bin/env node
// drive.mjs: records what a real ACP agent answers, as fixtures for the
// validator.
//
// The script plays a small, strictly v1 client against an agent it starts
// through the validator's tap (`validate --record`), so the traces it leaves
// are the bytes that crossed the agent's stdio, with the direction sidecar
// the tap writes. Each scenario is one connection and one trace,
// OUT/NN-name.jsonl plus OUT/NN-name.dir:
//
//   01-init-new-list   initialize, session/new, session/list (if advertised)
//   02-mode-config     session/set_config_option for each select option the
//                      new session offers (at most three), or session/set_mode
//                      when it offers modes and no config options
//   03-prompt          one session/prompt; when no answer comes within
//                      --prompt-wait, a session/cancel, then the wait for the
//                      answer goes on
//   04-prompt-cancel   one session/prompt, and session/cancel written right after
//                      it, before any answer is read
//   05-load            session/list (if advertised) and session/load (only when
//                      loadSession is advertised) of 03's session, in a new
//                      connection
//   06-resume-close    session/resume (if advertised) of 03's session, and
//                      session/close (if advertised) of it, in a new connection
//                      (without resume, close ends a session made for it)
//   07-delete          session/delete (only when advertised) of 03's session,
//                      between two session/list calls (if advertised)
//
// 05 to 07 use 03's session because it holds a whole turn, so an agent that
// keeps only sessions with history has it; 04's may never have been stored.
//
// A scenario runs only when what it needs was advertised and the scenarios
// before it left the session it needs; otherwise it is skipped and says why.
// With --authenticate ID, every connection calls authenticate with that
// method after initialize (use it only for a method that needs no secret).
//
// The client's side is kept to the v1 schema: protocolVersion 1,
// clientCapabilities with fs and terminal false, absolute cwd, mcpServers
// empty. Requests from the agent are answered: session/request_permission
// with the cancelled outcome, anything else (fs/*, terminal/*, elicitation,
// extension methods: nothing of it was advertised) with -32601. Each request
// waits at most --timeout seconds for its answer; an agent that lets one go
// unanswered has its connection ended there, and the summary says so.
//
// The agent runs with cwd --work (default /tmp/acp-work) and a fresh HOME
// (--home, default /tmp/acp-home), both emptied before the first scenario and
// kept across scenarios (so a later connection can load an earlier session),
// with an environment built from nothing: PATH, HOME, the XDG folders under
// HOME, LANG, TERM, NO_COLOR, and whatever --env adds. No variable of the
// caller's environment reaches the agent.
//
// The summary, one JSON object, goes to standard output: per scenario, the
// trace written (or why none), each request's method and outcome, and the
// requests that went unanswered.
//
// The agent's PATH starts with the folder of the node that runs this script,
// so an agent written for Node runs on the same node.
//
// Example (fixtures/acp/agents/README.md has the command of every agent
// recorded):
//
//   go build -o /tmp/validate ./cmd/validate
//   npm install --prefix /tmp/agents/codex-acp @zed-industries/codex-acp
//   node conformance/real-agents/drive.mjs --validate /tmp/validate \
//     --out fixtures/acp/agents/codex-acp \
//     -- /tmp/agents/codex-acp/node_modules/.bin/codex-acp

import { spawn } from "node:child_process";
import { mkdirSync, openSync, closeSync, readdirSync, readFileSync, renameSync, rmSync, existsSync, unlinkSync } from "node:fs";
import path from "node:path";
import readline from "node:readline";

const HELP = `usage: node drive.mjs --out DIR [flags] -- AGENT_CMD [ARGS...]

Records scenarios of a real ACP agent (v1, stdio) through the validator's
tap: DIR/NN-name.jsonl and DIR/NN-name.dir per scenario.

Scenarios: 01-init-new-list 02-mode-config 03-prompt 04-prompt-cancel
           05-load 06-resume-close 07-delete
(a scenario that needs a session made by one before it runs only when that
one ran in the same invocation)

Flags:
  --out DIR            folder for the traces (created; existing traces of the
                       scenarios run are replaced)
  --validate PATH      the validate binary used as the tap (default: validate)
  --work DIR           the agent's working directory and the sessions' cwd,
                       emptied first (default /tmp/acp-work)
  --home DIR           the agent's HOME, emptied first (default /tmp/acp-home)
  --env KEY=VALUE      add a variable to the agent's environment (repeatable)
  --only LIST          the scenarios to run, comma-separated, by name
                       (prompt-cancel) or by place (4)
  --authenticate ID    call authenticate with this method id after initialize
  --auth-meta JSON     the _meta object of that authenticate request (for a
                       method whose agent reads its settings from _meta)
  --first N            number the scenarios from N instead of 1 (01-init-new-list
                       becomes NN-init-new-list), for a second run of the same
                       agent in another configuration beside the first
  --prompt TEXT        the prompt's text (default: a one-line question)
  --timeout SEC        longest wait for any answer (default 30)
  --prompt-wait SEC    how long 03-prompt waits before it cancels (default 20)
  --cancel-wait SEC    how long a prompt may stay unanswered after its
                       session/cancel (default 120)
  --settle MS          quiet time before a connection is closed, so that late
                       notifications are recorded (default 1500)
  --logs DIR           write each scenario's agent stderr to DIR/NN-name.stderr
                       (default: discarded)
  -h, --help           this text

Exit status: 0 when every scenario that ran got all its answers, 1 when an
agent left a request unanswered or a scenario could not run, 2 on bad usage.
`;

function usage(msg) {
  if (msg) process.stderr.write(`drive.mjs: ${msg}\n\n`);
  process.stderr.write(HELP);
  process.exit(2);
}

function parseArgs(argv) {
  const o = {
    out: null,
    validate: "validate",
    work: "/tmp/acp-work",
    home: "/tmp/acp-home",
    env: {},
    only: null,
    authenticate: null,
    authMeta: null,
    first: 1,
    prompt: "What is the capital of France? Answer in one word.",
    timeout: 30,
    promptWait: 20,
    cancelWait: 120,
    settle: 1500,
    logs: null,
    cmd: [],
  };
  const need = (i, flag) => {
    if (i + 1 >= argv.length) usage(`${flag} needs a value`);
    return argv[i + 1];
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--") {
      o.cmd = argv.slice(i + 1);
      break;
    }
    switch (a) {
      case "-h":
      case "--help":
        process.stdout.write(HELP);
        process.exit(0);
      case "--out":
        o.out = path.resolve(need(i, a));
        i++;
        break;
      case "--validate":
        o.validate = need(i, a);
        i++;
        break;
      case "--work":
        o.work = path.resolve(need(i, a));
        i++;
        break;
      case "--home":
        o.home = path.resolve(need(i, a));
        i++;
        break;
      case "--env": {
        const kv = need(i, a);
        i++;
        const eq = kv.indexOf("=");
        if (eq <= 0) usage(`--env wants KEY=VALUE, not ${kv}`);
        o.env[kv.slice(0, eq)] = kv.slice(eq + 1);
        break;
      }
      case "--only":
        o.only = need(i, a).split(",").map((s) => s.trim()).filter(Boolean);
        i++;
        break;
      case "--authenticate":
        o.authenticate = need(i, a);
        i++;
        break;
      case "--auth-meta":
        try {
          o.authMeta = JSON.parse(need(i, a));
        } catch {
          usage("--auth-meta wants a JSON object");
        }
        if (o.authMeta === null || typeof o.authMeta !== "object" || Array.isArray(o.authMeta)) usage("--auth-meta wants a JSON object");
        i++;
        break;
      case "--first": {
        const n = Number(need(i, a));
        i++;
        if (!Number.isInteger(n) || n < 1 || n > 94) usage("--first wants a whole number from 1 to 94");
        o.first = n;
        break;
      }
      case "--prompt":
        o.prompt = need(i, a);
        i++;
        break;
      case "--timeout":
      case "--prompt-wait":
      case "--cancel-wait":
      case "--settle": {
        const n = Number(need(i, a));
        i++;
        if (!Number.isFinite(n) || n < 0) usage(`${a} wants a number`);
        if (a === "--timeout") o.timeout = n;
        else if (a === "--prompt-wait") o.promptWait = n;
        else if (a === "--cancel-wait") o.cancelWait = n;
        else o.settle = n;
        break;
      }
      case "--logs":
        o.logs = path.resolve(need(i, a));
        i++;
        break;
      default:
        usage(`unknown argument ${a}`);
    }
  }
  if (!o.out) usage("--out is required");
  if (o.cmd.length === 0) usage("no agent command after --");
  if (o.work === "/" || o.home === "/") usage("--work and --home must not be /");
  return o;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

class Unanswered extends Error {
  constructor(method, seconds) {
    super(`${method}: no answer within ${seconds}s`);
    this.method = method;
  }
}

class AgentGone extends Error {}

/**
 * The processes below pid, from /proc (Linux; elsewhere none): an agent's
 * launcher may start its real binary in a process group of its own, out of
 * reach of a signal to the tap's group.
 */
function descendants(pid) {
  const children = new Map();
  let entries = [];
  try {
    entries = readdirSync("/proc").filter((d) => /^\d+$/.test(d));
  } catch {
    return [];
  }
  for (const d of entries) {
    try {
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(d));
    } catch {}
  }
  const out = [];
  const walk = (p) => {
    for (const c of children.get(p) ?? []) {
      out.push(c);
      walk(c);
    }
  };
  walk(pid);
  return out;
}

/** One connection: the tap with the agent behind it, and a line-based client. */
class Connection {
  constructor(opts, tracePath, stderrPath) {
    this.opts = opts;
    this.nextId = 0;
    this.pending = new Map();
    this.notifications = [];
    this.agentRequests = [];
    this.log = [];
    this.stray = 0;
    this.exited = false;
    const env = {
      PATH: `${path.dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
      HOME: opts.home,
      XDG_CONFIG_HOME: path.join(opts.home, ".config"),
      XDG_DATA_HOME: path.join(opts.home, ".local/share"),
      XDG_STATE_HOME: path.join(opts.home, ".local/state"),
      XDG_CACHE_HOME: path.join(opts.home, ".cache"),
      LANG: "C.UTF-8",
      TERM: "dumb",
      NO_COLOR: "1",
      ...opts.env,
    };
    this.errFd = stderrPath ? openSync(stderrPath, "w") : "ignore";
    const args = ["--record", tracePath, "--findings", "/dev/null", "--", ...opts.cmd];
    this.child = spawn(opts.validate, args, {
      cwd: opts.work,
      env,
      stdio: ["pipe", "pipe", this.errFd],
      detached: true, // its own process group, so that the agent's helpers end with it
    });
    this.exit = new Promise((resolve) => {
      this.child.on("exit", (code, signal) => {
        this.exited = true;
        for (const p of this.pending.values()) p.reject(new AgentGone(`the agent exited (${signal ?? code}) before answering ${p.method}`));
        this.pending.clear();
        resolve({ code, signal });
      });
      this.child.on("error", (err) => {
        this.exited = true;
        resolve({ code: null, signal: null, error: err.message });
      });
    });
    this.child.stdin.on("error", () => {});
    const rl = readline.createInterface({ input: this.child.stdout, crlfDelay: Infinity });
    rl.on("line", (line) => this.onLine(line));
  }

  send(msg) {
    if (this.exited) throw new AgentGone("the agent has exited");
    this.child.stdin.write(JSON.stringify(msg) + "\n");
  }

  /** send for answers to the agent: an agent gone meanwhile needs no answer. */
  reply(msg) {
    if (!this.exited) this.child.stdin.write(JSON.stringify(msg) + "\n");
  }

  onLine(line) {
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      this.stray++;
      return;
    }
    if (msg === null || typeof msg !== "object" || Array.isArray(msg)) {
      this.stray++;
      return;
    }
    const hasId = Object.hasOwn(msg, "id");
    if (typeof msg.method === "string") {
      if (hasId) this.answerAgent(msg);
      else this.notifications.push(msg);
      return;
    }
    if (hasId && (Object.hasOwn(msg, "result") || Object.hasOwn(msg, "error"))) {
      const p = this.pending.get(msg.id);
      if (p) {
        this.pending.delete(msg.id);
        p.resolve(msg);
      } else {
        this.stray++;
      }
    }
  }

  answerAgent(msg) {
    this.agentRequests.push(msg.method);
    if (msg.method === "session/request_permission") {
      this.reply({ jsonrpc: "2.0", id: msg.id, result: { outcome: { outcome: "cancelled" } } });
      return;
    }
    this.reply({ jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: "Method not found" } });
  }

  /** Sends a request; resolves with the response, or rejects on timeout or exit. */
  request(method, params, seconds = this.opts.timeout) {
    const id = this.nextId++;
    const entry = { method };
    this.log.push(entry);
    const answer = new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        entry.outcome = "unanswered";
        reject(new Unanswered(method, seconds));
      }, seconds * 1000);
      this.pending.set(id, {
        method,
        resolve: (m) => {
          clearTimeout(timer);
          entry.outcome = m.error ? `error ${m.error.code}: ${m.error.message}` : "result";
          resolve(m);
        },
        reject: (e) => {
          clearTimeout(timer);
          entry.outcome = "agent exited";
          reject(e);
        },
      });
    });
    this.send({ jsonrpc: "2.0", id, method, params });
    return { id, answer };
  }

  async call(method, params, seconds) {
    return this.request(method, params, seconds).answer;
  }

  notify(method, params) {
    this.log.push({ method, outcome: "notification" });
    this.send({ jsonrpc: "2.0", method, params });
  }

  /**
   * Ends the connection: stdin closed, then TERM and KILL to the tap's group
   * if it lingers, and TERM to whatever the agent started that outlived it.
   */
  async close() {
    const below = descendants(this.child.pid);
    this.child.stdin.end();
    const gone = (ms) => Promise.race([this.exit.then(() => true), sleep(ms).then(() => false)]);
    let how = "exited";
    if (!(await gone(10000))) {
      how = "terminated";
      try {
        process.kill(-this.child.pid, "SIGTERM");
      } catch {}
      if (!(await gone(5000))) {
        how = "killed";
        try {
          process.kill(-this.child.pid, "SIGKILL");
        } catch {}
        await this.exit;
      }
    }
    let left = 0;
    for (const pid of below) {
      try {
        process.kill(pid, "SIGTERM");
        left++;
      } catch {} // gone already, as it should be
    }
    if (left) how += `; ${left} leftover process(es) of the agent terminated`;
    if (typeof this.errFd === "number") closeSync(this.errFd);
    return how;
  }
}

/** The client's initialize; with --authenticate, the authenticate call after it. */
async function handshake(c, o, st) {
  const init = await c.call("initialize", {
    protocolVersion: 1,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    clientInfo: { name: "agentproto-real-agents", title: "agentproto real-agent driver", version: "1.0.0" },
  });
  if (init.error) throw new Error(`initialize failed: ${init.error.message}`);
  st.init = init.result;
  if (o.authenticate) {
    const offered = (init.result.authMethods ?? []).some((m) => m.id === o.authenticate);
    if (!offered) throw new Error(`authenticate: the agent does not offer method ${o.authenticate}`);
    const params = { methodId: o.authenticate };
    if (o.authMeta) params._meta = o.authMeta;
    const auth = await c.call("authenticate", params);
    if (auth.error) throw new Error(`authenticate failed: ${auth.error.message}`);
  }
  return init.result;
}

const caps = (st) => st.init?.agentCapabilities ?? {};
const sessionCap = (st, name) => {
  const v = caps(st).sessionCapabilities?.[name];
  return v !== undefined && v !== null;
};

async function newSession(c, o) {
  const res = await c.call("session/new", { cwd: o.work, mcpServers: [] });
  if (res.error) return { error: res.error };
  return res.result;
}

/** The select options' values, flattened from plain and grouped lists. */
function selectValues(opt) {
  const out = [];
  for (const v of opt.options ?? []) {
    if (Array.isArray(v?.options)) out.push(...v.options.map((x) => x.value));
    else if (v && typeof v.value === "string") out.push(v.value);
  }
  return out;
}

const SCENARIOS = [
  {
    name: "init-new-list",
    async run(c, o, st) {
      await handshake(c, o, st);
      const s = await newSession(c, o);
      if (s.error) st.newError = s.error;
      else st.firstSession = s;
      // Listing needs no session of this connection: it runs either way.
      if (sessionCap(st, "list")) await c.call("session/list", { cwd: o.work });
    },
  },
  {
    name: "mode-config",
    skip(st) {
      const s = st.firstSession;
      if (!s) return "session/new gave no session";
      const selects = (s.configOptions ?? []).filter((x) => x.type === "select" && selectValues(x).some((v) => v !== x.currentValue));
      const modes = s.modes?.availableModes ?? [];
      if (selects.length === 0 && !(modes.length > 1 && !s.configOptions?.length)) return "no config option or mode to change";
      return null;
    },
    async run(c, o, st) {
      await handshake(c, o, st);
      const s = await newSession(c, o);
      if (s.error) return;
      const selects = (s.configOptions ?? []).filter((x) => x.type === "select" && selectValues(x).some((v) => v !== x.currentValue));
      if (selects.length > 0) {
        for (const opt of selects.slice(0, 3)) {
          const value = selectValues(opt).find((v) => v !== opt.currentValue);
          await c.call("session/set_config_option", { sessionId: s.sessionId, configId: opt.id, value });
        }
      } else if (!s.configOptions?.length && s.modes) {
        // The other modes in turn, until one is accepted (at most three tries):
        // an agent may refuse a mode in some settings and take another.
        const others = s.modes.availableModes.filter((m) => m.id !== s.modes.currentModeId).slice(0, 3);
        for (const m of others) {
          const r = await c.call("session/set_mode", { sessionId: s.sessionId, modeId: m.id });
          if (!r.error) break;
        }
      }
    },
  },
  {
    name: "prompt",
    skip: (st) => (st.firstSession ? null : "session/new gave no session"),
    async run(c, o, st) {
      await handshake(c, o, st);
      const s = await newSession(c, o);
      if (s.error) return;
      st.promptedSession = s.sessionId;
      const { answer } = c.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text: o.prompt }] }, o.promptWait + o.cancelWait);
      const early = await Promise.race([answer.then(() => true, () => true), sleep(o.promptWait * 1000).then(() => false)]);
      if (!early) c.notify("session/cancel", { sessionId: s.sessionId });
      await answer;
    },
  },
  {
    name: "prompt-cancel",
    skip: (st) => (st.firstSession ? null : "session/new gave no session"),
    async run(c, o, st) {
      await handshake(c, o, st);
      const s = await newSession(c, o);
      if (s.error) return;
      // The cancel follows the prompt at once: the prompt is still unanswered
      // when it leaves, however fast the agent is.
      const { answer } = c.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text: o.prompt }] }, o.cancelWait);
      c.notify("session/cancel", { sessionId: s.sessionId });
      await answer;
    },
  },
  {
    name: "load",
    skip(st) {
      if (!caps(st).loadSession) return "loadSession is not advertised";
      if (!st.promptedSession) return "03-prompt left no session";
      return null;
    },
    async run(c, o, st) {
      await handshake(c, o, st);
      if (sessionCap(st, "list")) await c.call("session/list", { cwd: o.work });
      await c.call("session/load", { sessionId: st.promptedSession, cwd: o.work, mcpServers: [] });
    },
  },
  {
    name: "resume-close",
    skip(st) {
      if (!sessionCap(st, "resume") && !sessionCap(st, "close")) return "neither session/resume nor session/close is advertised";
      if (!st.promptedSession) return "03-prompt left no session";
      return null;
    },
    async run(c, o, st) {
      await handshake(c, o, st);
      let id = st.promptedSession;
      if (sessionCap(st, "resume")) {
        const r = await c.call("session/resume", { sessionId: id, cwd: o.work, mcpServers: [] });
        if (r.error) id = null;
      } else {
        // session/close needs an active session: make one in this connection.
        const s = await newSession(c, o);
        id = s.error ? null : s.sessionId;
      }
      if (id && sessionCap(st, "close")) await c.call("session/close", { sessionId: id });
    },
  },
  {
    name: "delete",
    skip(st) {
      if (!sessionCap(st, "delete")) return "session/delete is not advertised";
      if (!st.promptedSession) return "03-prompt left no session";
      return null;
    },
    async run(c, o, st) {
      await handshake(c, o, st);
      const list = sessionCap(st, "list");
      if (list) await c.call("session/list", { cwd: o.work });
      await c.call("session/delete", { sessionId: st.promptedSession });
      if (list) await c.call("session/list", { cwd: o.work });
    },
  },
];

/** The scenario's file name stem: its number (counted from --first) and its name. */
const stem = (o, i) => `${String(o.first + i).padStart(2, "0")}-${SCENARIOS[i].name}`;

function selected(o, i) {
  if (!o.only) return true;
  return o.only.some((w) => w === SCENARIOS[i].name || Number(w) === i + 1);
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  rmSync(o.work, { recursive: true, force: true });
  rmSync(o.home, { recursive: true, force: true });
  mkdirSync(o.work, { recursive: true });
  mkdirSync(o.home, { recursive: true });
  mkdirSync(o.out, { recursive: true });
  if (o.logs) mkdirSync(o.logs, { recursive: true });

  const st = {};
  const summary = { command: o.cmd, scenarios: [] };
  let failed = false;
  for (const [i, sc] of SCENARIOS.entries()) {
    if (!selected(o, i)) continue;
    const name = stem(o, i);
    const why = sc.skip?.(st);
    if (why) {
      summary.scenarios.push({ name, skipped: why });
      continue;
    }
    const trace = path.join(o.out, `${name}.jsonl`);
    const dir = path.join(o.out, `${name}.dir`);
    for (const f of [trace, dir, `${trace}.dir`]) if (existsSync(f)) unlinkSync(f);
    const c = new Connection(o, trace, o.logs ? path.join(o.logs, `${name}.stderr`) : null);
    const entry = { name, trace: path.relative(process.cwd(), trace) };
    try {
      await sc.run(c, o, st);
      await sleep(o.settle);
    } catch (err) {
      entry.stopped = err.message;
      if (err instanceof Unanswered) entry.unanswered = err.method;
      failed = true;
    }
    entry.connection = await c.close();
    const ex = await c.exit;
    entry.exit = ex.signal ?? ex.code;
    if (ex.error) entry.spawnError = ex.error;
    entry.requests = c.log;
    if (c.agentRequests.length) entry.agentRequests = c.agentRequests;
    entry.notifications = c.notifications.length;
    if (c.stray) entry.strayLines = c.stray;
    if (existsSync(`${trace}.dir`)) renameSync(`${trace}.dir`, dir);
    summary.scenarios.push(entry);
  }
  if (st.newError) summary.newSessionError = st.newError;
  process.stdout.write(JSON.stringify(summary, null, 2) + "\n");
  process.exit(failed ? 1 : 0);
}

main().catch((err) => {
  process.stderr.write(`drive.mjs: ${err?.stack ?? err}\n`);
  process.exit(1);
});
