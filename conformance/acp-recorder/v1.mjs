// Scenarios for ACP v1 (the SDK's default entrypoint and its /unstable
// entrypoint). One scripted agent app and one scripted client app, built from
// the entrypoint's own classes; each scenario is a client-side script run
// against them. Unstable-only methods, variants and members are used only
// when `unstable` is true.

import { deferred, expectError, ticks } from "./lib.mjs";

const CWD = "/home/dev/project";
const PNG_1PX =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const WAV_SILENCE = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=";

const MODES = {
  currentModeId: "ask",
  availableModes: [
    { id: "ask", name: "Ask", description: "Ask before changing files" },
    { id: "code", name: "Code", description: "Edit files without asking" },
  ],
};

function configOptions(model = "model-large", thinking = false) {
  return [
    {
      id: "model",
      name: "Model",
      description: "The model that answers",
      category: "model",
      type: "select",
      currentValue: model,
      options: [
        { value: "model-large", name: "Large", description: "Slower, stronger" },
        { value: "model-small", name: "Small" },
      ],
    },
    {
      id: "thinking",
      name: "Extended thinking",
      category: "thought_level",
      type: "boolean",
      currentValue: thinking,
    },
  ];
}

const PERMISSION_OPTIONS = [
  { optionId: "allow-once", name: "Allow once", kind: "allow_once" },
  { optionId: "allow-always", name: "Always allow", kind: "allow_always" },
  { optionId: "reject-once", name: "Reject", kind: "reject_once" },
  { optionId: "reject-always", name: "Always reject", kind: "reject_always" },
];

/** Every prompt content block type, as a client that supports them sends them. */
export function allContentBlocks() {
  return [
    { type: "text", text: "Review the attached files and fix the failing test." },
    {
      type: "text",
      text: "Focus on the parser.",
      annotations: { audience: ["assistant"], priority: 0.8, lastModified: "2025-01-02T03:04:05Z" },
    },
    { type: "image", mimeType: "image/png", data: PNG_1PX, uri: "file:///home/dev/project/screenshot.png" },
    { type: "audio", mimeType: "audio/wav", data: WAV_SILENCE },
    {
      type: "resource_link",
      uri: "file:///home/dev/project/src/parser.ts",
      name: "parser.ts",
      title: "Parser",
      description: "The parser under test",
      mimeType: "text/x-typescript",
      size: 2048,
    },
    {
      type: "resource",
      resource: {
        uri: "file:///home/dev/project/src/parser.test.ts",
        mimeType: "text/x-typescript",
        text: "test('parses', () => expect(parse('1+1')).toBe(2));\n",
      },
    },
    {
      type: "resource",
      resource: { uri: "file:///home/dev/project/assets/logo.png", mimeType: "image/png", blob: PNG_1PX },
    },
  ];
}

function textOf(prompt) {
  const first = prompt.find((b) => b.type === "text");
  return first ? first.text : "";
}

/** The agent app: every agent-side method of the entrypoint. */
export function makeAgent(sdk, shared, unstable) {
  const m = sdk.methods.agent;
  const st = {
    authenticated: false,
    nextSession: 1,
    sessions: new Map(),
    cancelled: new Set(),
    cancelWaiters: new Map(),
    clientCaps: null,
  };
  // Sessions a previous run left behind, for session/list, load and resume.
  for (let i = 1; i <= 3; i++) {
    const id = `sess-old-${i}`;
    st.sessions.set(id, {
      cwd: CWD,
      title: `Earlier session ${i}`,
      updatedAt: `2025-01-0${i}T10:00:00Z`,
      mode: "ask",
      model: "model-large",
      thinking: false,
    });
  }

  function known(sessionId) {
    const s = st.sessions.get(sessionId);
    if (!s) throw sdk.RequestError.sessionNotFound(sessionId);
    return s;
  }

  const update = (client, sessionId, u) => client.notify(sdk.methods.client.session.update, { sessionId, update: u });

  function waitCancel(sessionId) {
    const d = deferred();
    st.cancelWaiters.set(sessionId, d);
    return d.promise;
  }

  const app = sdk.agent({ name: "recorder-agent" });

  app.onRequest(m.initialize, ({ params }) => {
    st.clientCaps = params.clientCapabilities;
    const agentCapabilities = {
      loadSession: true,
      promptCapabilities: { image: true, audio: true, embeddedContext: true },
      mcpCapabilities: { http: true, sse: true },
      sessionCapabilities: {
        list: {},
        delete: {},
        additionalDirectories: {},
        resume: {},
        close: {},
      },
      auth: { logout: {} },
    };
    if (unstable) {
      agentCapabilities.mcpCapabilities.acp = true;
      Object.assign(agentCapabilities.sessionCapabilities, {
        systemPrompt: { mode: { override: {} } },
        fork: {},
        archive: {},
        status: {},
        title: {},
      });
      agentCapabilities.providers = {};
      agentCapabilities.auth.status = {};
    }
    return {
      protocolVersion: sdk.PROTOCOL_VERSION,
      agentCapabilities,
      authMethods: [
        { id: "api-key", name: "API key", description: "Use the key in ACME_API_KEY" },
        {
          type: "terminal",
          id: "terminal-login",
          name: "Log in in a terminal",
          description: "Runs the interactive login",
          args: ["--login"],
          env: { ACME_LOGIN_MODE: "interactive" },
        },
      ],
      agentInfo: { name: "recorder-agent", title: "Recorder Agent", version: "1.0.0" },
    };
  });

  app.onRequest(m.authenticate, async ({ params, client, requestId }) => {
    if (params.methodId !== "api-key" && params.methodId !== "terminal-login") {
      throw sdk.RequestError.invalidParams({ methodId: params.methodId }, "unknown authentication method");
    }
    if (params._meta?.["acme.dev/interactive"]) {
      // No key in the environment: ask for one, tied to this request rather
      // than to a session (there is none yet).
      const res = await client.request(sdk.methods.client.elicitation.create, {
        requestId,
        mode: "form",
        message: "Enter your ACME API key",
        requestedSchema: {
          type: "object",
          properties: { apiKey: { type: "string", title: "API key", minLength: 8 } },
          required: ["apiKey"],
        },
      });
      if (res.action !== "accept") throw sdk.RequestError.authRequired();
    }
    st.authenticated = true;
    if (unstable) {
      await client.notify(sdk.methods.client.auth.statusUpdate, {
        state: "authenticated",
        accounts: [{ label: "dev@example.com", active: true, email: "dev@example.com" }],
      });
    }
    return {};
  });

  app.onRequest(m.logout, async ({ client }) => {
    st.authenticated = false;
    if (unstable) await client.notify(sdk.methods.client.auth.statusUpdate, { state: "unauthenticated", accounts: [] });
    return {};
  });

  app.onRequest(m.session.new, async ({ params, client }) => {
    if (!st.authenticated) throw sdk.RequestError.authRequired();
    const sessionId = `sess-${String(st.nextSession++).padStart(3, "0")}`;
    st.sessions.set(sessionId, {
      cwd: params.cwd,
      title: null,
      updatedAt: "2025-02-01T09:00:00Z",
      open: true,
      mode: "ask",
      model: "model-large",
      thinking: false,
    });
    return { sessionId, modes: MODES, configOptions: configOptions() };
  });

  app.onRequest(m.session.load, async ({ params, client }) => {
    const s = known(params.sessionId);
    s.open = true;
    await update(client, params.sessionId, {
      sessionUpdate: "user_message_chunk",
      content: { type: "text", text: "What does the parser do?" },
      messageId: "msg-old-1",
    });
    await update(client, params.sessionId, {
      sessionUpdate: "agent_message_chunk",
      content: { type: "text", text: "It turns source text into a syntax tree." },
      messageId: "msg-old-2",
    });
    return { modes: { ...MODES, currentModeId: s.mode }, configOptions: configOptions(s.model, s.thinking) };
  });

  app.onRequest(m.session.list, ({ params }) => {
    const all = [...st.sessions.entries()]
      .filter(([, s]) => !params.cwd || s.cwd === params.cwd)
      .map(([sessionId, s]) => ({
        sessionId,
        cwd: s.cwd,
        ...(s.title ? { title: s.title } : {}),
        updatedAt: s.updatedAt,
      }));
    const start = params.cursor ? Number(params.cursor.replace("page-", "")) : 0;
    const page = all.slice(start, start + 2);
    const res = { sessions: page };
    if (start + 2 < all.length) res.nextCursor = `page-${start + 2}`;
    return res;
  });

  app.onRequest(m.session.resume, ({ params }) => {
    const s = known(params.sessionId);
    s.open = true;
    return { modes: { ...MODES, currentModeId: s.mode }, configOptions: configOptions(s.model, s.thinking) };
  });

  app.onRequest(m.session.close, ({ params }) => {
    known(params.sessionId).open = false;
    return {};
  });

  app.onRequest(m.session.delete, ({ params }) => {
    known(params.sessionId);
    st.sessions.delete(params.sessionId);
    return {};
  });

  app.onRequest(m.session.setMode, async ({ params, client }) => {
    const s = known(params.sessionId);
    if (!MODES.availableModes.some((x) => x.id === params.modeId)) {
      throw sdk.RequestError.invalidParams({ modeId: params.modeId }, "unknown mode");
    }
    s.mode = params.modeId;
    await update(client, params.sessionId, { sessionUpdate: "current_mode_update", currentModeId: params.modeId });
    return {};
  });

  app.onRequest(m.session.setConfigOption, ({ params }) => {
    const s = known(params.sessionId);
    if (params.configId === "model" && (params.value === "model-large" || params.value === "model-small")) {
      s.model = params.value;
    } else if (params.configId === "thinking" && params.type === "boolean") {
      s.thinking = params.value;
    } else {
      throw sdk.RequestError.invalidParams({ configId: params.configId }, "unknown option or value");
    }
    return { configOptions: configOptions(s.model, s.thinking) };
  });

  app.onNotification(m.session.cancel, ({ params }) => {
    st.cancelled.add(params.sessionId);
    const w = st.cancelWaiters.get(params.sessionId);
    if (w) {
      st.cancelWaiters.delete(params.sessionId);
      w.resolve();
    }
  });

  app.onRequest(m.session.prompt, async (ctx) => {
    const { params, client } = ctx;
    known(params.sessionId);
    st.cancelled.delete(params.sessionId);
    const script = PROMPTS[textOf(params.prompt).split(":")[0]] ?? PROMPTS.default;
    const up = (u) => update(client, params.sessionId, u);
    up.child = (sessionId, u) => update(client, sessionId, u);
    return script({ sdk, params, client, update: up, st, waitCancel, ctx, unstable, shared });
  });

  // Extension methods and notifications, with _meta.
  app.onRequest("_acme/index_status", (p) => p, ({ params }) => ({
    indexed: 1284,
    pending: 0,
    scope: params?.scope ?? "workspace",
    _meta: { "acme.dev/trace": "trace-0001" },
  }));
  app.onRequest("_acme/slow_index", (p) => p, async ({ signal }) => {
    await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
    throw sdk.RequestError.requestCancelled();
  });
  app.onNotification("_acme/editor_focus", (p) => p, () => {});

  if (unstable) addUnstableAgent(app, { sdk, st, known, update, shared });
  return app;
}

/** Prompt scripts of the agent, chosen by the first word of the prompt. */
const PROMPTS = {
  default: async () => ({ stopReason: "end_turn" }),

  async "all-updates"({ update, params, unstable }) {
    await update({
      sessionUpdate: "user_message_chunk",
      content: { type: "text", text: textOf(params.prompt) },
      messageId: "msg-u1",
    });
    await update({
      sessionUpdate: "available_commands_update",
      availableCommands: [
        { name: "test", description: "Run the test suite", input: { hint: "optional test name filter" } },
        { name: "plan", description: "Show the current plan" },
      ],
    });
    await update({
      sessionUpdate: "agent_thought_chunk",
      content: { type: "text", text: "The failing test expects 2; the parser returns '11'." },
      messageId: "msg-t1",
    });
    await update({
      sessionUpdate: "plan",
      entries: [
        { content: "Read the parser", priority: "high", status: "completed" },
        { content: "Fix operator precedence", priority: "medium", status: "in_progress" },
        { content: "Run the tests", priority: "low", status: "pending" },
      ],
    });
    await update({
      sessionUpdate: "tool_call",
      toolCallId: "call-read-1",
      title: "Read src/parser.ts",
      kind: "read",
      status: "pending",
      locations: [{ path: "/home/dev/project/src/parser.ts", line: 1 }],
      rawInput: { path: "/home/dev/project/src/parser.ts" },
    });
    await update({ sessionUpdate: "tool_call_update", toolCallId: "call-read-1", status: "in_progress" });
    await update({
      sessionUpdate: "tool_call_update",
      toolCallId: "call-read-1",
      status: "completed",
      content: [{ type: "content", content: { type: "text", text: "export function parse(s) { ... }" } }],
      rawOutput: { bytes: 2048 },
    });
    const kinds = ["edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"];
    for (const [i, kind] of kinds.entries()) {
      await update({
        sessionUpdate: "tool_call",
        toolCallId: `call-kind-${i + 1}`,
        title: `A ${kind} tool call`,
        kind,
        status: "in_progress",
      });
    }
    await update({
      sessionUpdate: "tool_call_update",
      toolCallId: "call-kind-1",
      status: "completed",
      title: "Edit src/parser.ts",
      locations: [{ path: "/home/dev/project/src/parser.ts", line: 42 }],
      content: [
        {
          type: "diff",
          path: "/home/dev/project/src/parser.ts",
          oldText: "return a + '' + b;",
          newText: "return a + b;",
        },
        { type: "diff", path: "/home/dev/project/src/new-file.ts", newText: "export {};\n" },
      ],
    });
    for (let i = 2; i <= kinds.length; i++) {
      await update({
        sessionUpdate: "tool_call_update",
        toolCallId: `call-kind-${i}`,
        status: i === 3 ? "failed" : "completed",
      });
    }
    await update({
      sessionUpdate: "agent_message_chunk",
      content: { type: "text", text: "Fixed: " },
      messageId: "msg-a1",
    });
    await update({
      sessionUpdate: "agent_message_chunk",
      content: { type: "text", text: "the parser now adds numbers.", annotations: { audience: ["user"] } },
      messageId: "msg-a1",
    });
    await update({
      sessionUpdate: "agent_message_chunk",
      content: { type: "image", mimeType: "image/png", data: PNG_1PX },
      messageId: "msg-a1",
    });
    await update({
      sessionUpdate: "agent_message_chunk",
      content: { type: "resource_link", uri: "file:///home/dev/project/src/parser.ts", name: "parser.ts" },
      messageId: "msg-a1",
    });
    await update({
      sessionUpdate: "agent_message_chunk",
      content: {
        type: "resource",
        resource: { uri: "file:///home/dev/project/CHANGES.md", mimeType: "text/markdown", text: "- fixed addition\n" },
      },
      messageId: "msg-a1",
    });
    await update({ sessionUpdate: "current_mode_update", currentModeId: "code" });
    await update({ sessionUpdate: "config_option_update", configOptions: configOptions("model-small", true) });
    await update({ sessionUpdate: "session_info_update", title: "Fix the parser", updatedAt: "2025-02-01T09:05:00Z" });
    await update({ sessionUpdate: "usage_update", used: 53000, size: 200000, cost: { amount: 0.045, currency: "USD" } });
    await update({ sessionUpdate: "notice", severity: "info", title: "Indexed 1,284 files" });
    await update({
      sessionUpdate: "notice",
      severity: "warning",
      title: "Context is 80% full",
      description: "Older turns will be summarised soon.",
    });
    await update({ sessionUpdate: "notice", severity: "error", title: "Rate limited", description: "Retrying in 2 s." });
    await update({ sessionUpdate: "compaction_update", compactionId: "cmp-1", status: "in_progress" });
    await update({
      sessionUpdate: "compaction_summary_chunk",
      compactionId: "cmp-1",
      content: { type: "text", text: "The user asked to fix the parser; " },
    });
    await update({
      sessionUpdate: "compaction_summary_chunk",
      compactionId: "cmp-1",
      content: { type: "text", text: "addition was fixed." },
    });
    await update({
      sessionUpdate: "compaction_update",
      compactionId: "cmp-1",
      status: "completed",
      summary: [{ type: "text", text: "The user asked to fix the parser; addition was fixed." }],
    });
    await update({ sessionUpdate: "compaction_update", compactionId: "cmp-2", status: "in_progress" });
    await update({ sessionUpdate: "compaction_update", compactionId: "cmp-2", status: "failed", error: "summary too long" });
    await update({ sessionUpdate: "compaction_update", compactionId: "cmp-3", status: "in_progress" });
    await update({ sessionUpdate: "compaction_update", compactionId: "cmp-3", status: "cancelled" });
    if (unstable) await PROMPTS_UNSTABLE_UPDATES(update);
    const res = { stopReason: "end_turn", _meta: { "acme.dev/turn": 1 } };
    if (unstable) res.usage = { totalTokens: 1530, inputTokens: 1200, outputTokens: 330, cachedReadTokens: 800, thoughtTokens: 90 };
    return res;
  },

  async "max-tokens"({ update }) {
    await update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "The answer is long and" } });
    return { stopReason: "max_tokens" };
  },

  async "max-turn-requests"({ update }) {
    await update({ sessionUpdate: "tool_call", toolCallId: "call-loop-1", title: "Search", kind: "search", status: "completed" });
    return { stopReason: "max_turn_requests" };
  },

  async refusal() {
    return { stopReason: "refusal" };
  },

  async permissions({ update, client, sdk, params }) {
    const outcomes = [];
    for (const [i, kind] of ["allow_once", "allow_always", "reject_once", "reject_always"].entries()) {
      const toolCallId = `call-perm-${i + 1}`;
      await update({
        sessionUpdate: "tool_call",
        toolCallId,
        title: `Write src/file-${i + 1}.ts`,
        kind: "edit",
        status: "pending",
        locations: [{ path: `/home/dev/project/src/file-${i + 1}.ts` }],
        content: [{ type: "diff", path: `/home/dev/project/src/file-${i + 1}.ts`, oldText: "a", newText: "b" }],
      });
      const res = await client.request(sdk.methods.client.session.requestPermission, {
        sessionId: params.sessionId,
        toolCall: { toolCallId, title: `Write src/file-${i + 1}.ts`, kind: "edit", status: "pending" },
        options: PERMISSION_OPTIONS,
        _meta: { "acme.dev/expected": kind },
      });
      outcomes.push(res.outcome);
      const allowed = res.outcome.outcome === "selected" && res.outcome.optionId.startsWith("allow");
      await update({ sessionUpdate: "tool_call_update", toolCallId, status: allowed ? "completed" : "failed" });
    }
    // A request that offers only the one-time choices.
    await update({ sessionUpdate: "tool_call", toolCallId: "call-perm-5", title: "Run npm install", kind: "execute", status: "pending" });
    const last = await client.request(sdk.methods.client.session.requestPermission, {
      sessionId: params.sessionId,
      toolCall: { toolCallId: "call-perm-5" },
      options: PERMISSION_OPTIONS.filter((o) => o.kind.endsWith("_once")),
    });
    await update({
      sessionUpdate: "tool_call_update",
      toolCallId: "call-perm-5",
      status: last.outcome.optionId === "allow-once" ? "completed" : "failed",
    });
    return { stopReason: "end_turn" };
  },

  async "terminals-fs"({ update, client, sdk, params }) {
    const c = sdk.methods.client;
    const sessionId = params.sessionId;
    const read = await client.request(c.fs.readTextFile, { sessionId, path: "/home/dev/project/src/parser.ts" });
    const part = await client.request(c.fs.readTextFile, {
      sessionId,
      path: "/home/dev/project/src/parser.ts",
      line: 10,
      limit: 5,
    });
    await client.request(c.fs.writeTextFile, {
      sessionId,
      path: "/home/dev/project/src/parser.ts",
      content: read.content.replace("'' +", "") + part.content.slice(0, 0),
    });
    await update({ sessionUpdate: "tool_call", toolCallId: "call-term-1", title: "npm test", kind: "execute", status: "pending" });
    const term = await client.request(c.terminal.create, {
      sessionId,
      command: "npm",
      args: ["test", "--", "--reporter=dot"],
      env: [{ name: "CI", value: "1" }],
      cwd: "/home/dev/project",
      outputByteLimit: 65536,
    });
    await update({
      sessionUpdate: "tool_call_update",
      toolCallId: "call-term-1",
      status: "in_progress",
      content: [{ type: "terminal", terminalId: term.terminalId }],
    });
    await client.request(c.terminal.output, { sessionId, terminalId: term.terminalId });
    await client.request(c.terminal.waitForExit, { sessionId, terminalId: term.terminalId });
    await client.request(c.terminal.output, { sessionId, terminalId: term.terminalId });
    await client.request(c.terminal.release, { sessionId, terminalId: term.terminalId });
    await update({ sessionUpdate: "tool_call_update", toolCallId: "call-term-1", status: "completed" });

    // A long-running command, killed, read once more, then released, through
    // the SDK's terminal handle.
    await update({ sessionUpdate: "tool_call", toolCallId: "call-term-2", title: "npm run watch", kind: "execute", status: "in_progress" });
    const handle = await client.createTerminal({ sessionId, command: "npm", args: ["run", "watch"] });
    await update({
      sessionUpdate: "tool_call_update",
      toolCallId: "call-term-2",
      content: [{ type: "terminal", terminalId: handle.id }],
    });
    await handle.currentOutput();
    await handle.kill();
    await handle.waitForExit();
    await handle.currentOutput();
    await handle.release();
    await update({ sessionUpdate: "tool_call_update", toolCallId: "call-term-2", status: "failed" });
    return { stopReason: "end_turn" };
  },

  async cancel({ update, client, sdk, params, waitCancel, shared }) {
    const cancelled = waitCancel(params.sessionId);
    await update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Starting the migration." } });
    await update({ sessionUpdate: "tool_call", toolCallId: "call-cx-1", title: "Drop table users", kind: "execute", status: "pending" });
    const perm = await client.request(sdk.methods.client.session.requestPermission, {
      sessionId: params.sessionId,
      toolCall: { toolCallId: "call-cx-1" },
      options: PERMISSION_OPTIONS,
    });
    await cancelled;
    // The client answered "cancelled" after it sent session/cancel; report
    // the tool call and end the turn as cancelled.
    await update({
      sessionUpdate: "tool_call_update",
      toolCallId: "call-cx-1",
      status: perm.outcome.outcome === "cancelled" ? "failed" : "completed",
    });
    return { stopReason: "cancelled" };
  },

  async elicitation({ update, client, sdk, params }) {
    const c = sdk.methods.client;
    await update({ sessionUpdate: "tool_call", toolCallId: "call-deploy-1", title: "Deploy", kind: "execute", status: "pending" });
    const form = await client.request(c.elicitation.create, {
      sessionId: params.sessionId,
      toolCallId: "call-deploy-1",
      mode: "form",
      message: "Where should the build be deployed?",
      requestedSchema: {
        type: "object",
        title: "Deployment",
        properties: {
          environment: { type: "string", title: "Environment", enum: ["staging", "production"], default: "staging" },
          replicas: { type: "integer", title: "Replicas", minimum: 1, maximum: 10, default: 2 },
          ratio: { type: "number", title: "Canary ratio", minimum: 0, maximum: 1 },
          notify: { type: "boolean", title: "Notify the team", default: true },
          regions: {
            type: "array",
            title: "Regions",
            items: { type: "string", enum: ["eu-west", "us-east", "ap-south"] },
            minItems: 1,
          },
          note: { type: "string", title: "Note", maxLength: 200, format: "email" },
        },
        required: ["environment", "replicas"],
      },
    });
    await client.request(c.elicitation.create, {
      sessionId: params.sessionId,
      mode: "form",
      message: "Add a release note?",
      requestedSchema: { type: "object", properties: { note: { type: "string" } } },
    });
    await client.request(c.elicitation.create, {
      sessionId: params.sessionId,
      mode: "form",
      message: "Tag the release?",
      requestedSchema: { properties: { tag: { type: "string", pattern: "^v[0-9]+" } } },
    });
    const url = await client.request(c.elicitation.create, {
      sessionId: params.sessionId,
      mode: "url",
      elicitationId: "elic-oauth-1",
      message: "Sign in to the deployment service",
      url: "https://deploy.example.com/oauth/authorize?state=abc123",
    });
    if (url.action === "accept") {
      await client.notify(c.elicitation.complete, { elicitationId: "elic-oauth-1" });
    }
    await update({
      sessionUpdate: "tool_call_update",
      toolCallId: "call-deploy-1",
      status: form.action === "accept" ? "completed" : "failed",
    });
    return { stopReason: "end_turn" };
  },

  async mcp({ update, client, st }) {
    const serverId = "srv-editor-tools";
    await update({ sessionUpdate: "tool_call", toolCallId: "call-mcp-1", title: "editor-tools: open_file", kind: "read", status: "in_progress" });
    await st.mcp.request(client, serverId, "tools/list", {}, { requestId: "mcp-req-1" });
    const progress = [];
    const call = await st.mcp.request(
      client,
      serverId,
      "tools/call",
      { name: "open_file", arguments: { path: "/home/dev/project/src/parser.ts" }, _meta: { progressToken: "pt-1" } },
      { requestId: "mcp-req-2", onNotification: (n) => progress.push(n), _meta: { "acme.dev/tool-call": "call-mcp-1" } },
    );
    const bad = await st.mcp.request(client, serverId, "tools/call", { name: "no_such_tool", arguments: {} }, { requestId: "mcp-req-3" });
    await expectError(st.mcp.request(client, "srv-unregistered", "tools/list", {}, { requestId: "mcp-req-4" }), -33001);
    await update({
      sessionUpdate: "tool_call_update",
      toolCallId: "call-mcp-1",
      status: "result" in call && "error" in bad && progress.length === 1 ? "completed" : "failed",
      rawOutput: "result" in call ? call.result : null,
    });
    return { stopReason: "end_turn" };
  },

  async extensions({ client, update }) {
    const echo = await client.request("_acme/open_diff_view", {
      path: "/home/dev/project/src/parser.ts",
      _meta: { "acme.dev/origin": "agent" },
    });
    await client.notify("_acme/progress", { percent: 50, _meta: { "acme.dev/step": 2 } });
    await expectError(client.request("_acme/not_supported_by_client", { x: 1 }), -32601);
    await update({
      sessionUpdate: "agent_message_chunk",
      content: { type: "text", text: echo.opened ? "Opened." : "Not opened.", _meta: { "acme.dev/rendered": true } },
      _meta: { "acme.dev/chunk": 1 },
    });
    return { stopReason: "end_turn", _meta: { "acme.dev/ext": true } };
  },
};

/** The unstable v1 session-update variants (plans, subagents, session messages). */
async function PROMPTS_UNSTABLE_UPDATES(update) {
  await update({
    sessionUpdate: "plan_update",
    plan: {
      type: "items",
      planId: "plan-1",
      entries: [
        { content: "Read the parser", priority: "high", status: "completed" },
        { content: "Fix operator precedence", priority: "medium", status: "completed" },
      ],
    },
  });
  await update({ sessionUpdate: "plan_update", plan: { type: "file", planId: "plan-2", uri: "file:///home/dev/project/PLAN.md" } });
  await update({
    sessionUpdate: "plan_update",
    plan: { type: "markdown", planId: "plan-3", content: "# Plan\n- [x] fix addition\n" },
  });
  await update({ sessionUpdate: "plan_removed", planId: "plan-3" });
  await update({
    sessionUpdate: "subagent_update",
    sessionId: "sess-sub-1",
    title: "Test runner",
    description: "Runs the test suite and reports failures",
    capabilities: { cancel: {} },
    state: { state: "running" },
    cwd: "/home/dev/project",
  });
  // The child's own events follow its announcement on the same connection.
  await update.child("sess-sub-1", { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Running 4 tests." }, messageId: "msg-sub-1" });
  await update.child("sess-sub-1", { sessionUpdate: "tool_call", toolCallId: "call-sub-1", title: "npm test", kind: "execute", status: "completed" });
  await update({ sessionUpdate: "subagent_update", sessionId: "sess-sub-1", state: { state: "requires_action" } });
  await update({
    sessionUpdate: "subagent_update",
    sessionId: "sess-sub-1",
    state: { state: "idle", stopReason: "end_turn", usage: { totalTokens: 420, inputTokens: 400, outputTokens: 20 } },
  });
  await update({ sessionUpdate: "subagent_update", sessionId: "sess-sub-2", title: "Linter", state: { state: "unknown" } });
  await update({
    sessionUpdate: "session_message",
    messageId: "msg-s1",
    senderSessionId: "sess-sub-1",
    senderMessageId: "msg-sub-9",
    content: [{ type: "text", text: "4 passing, 0 failing." }],
  });
  await update({ sessionUpdate: "session_message_chunk", messageId: "msg-s2", content: { type: "text", text: "Lint: " } });
  await update({ sessionUpdate: "session_message_chunk", messageId: "msg-s2", content: { type: "text", text: "clean." } });
}

/** The unstable v1 agent methods: fork, archive, status, title, providers, auth status, MCP-over-ACP. */
function addUnstableAgent(app, { sdk, st, known, update, shared }) {
  const m = sdk.methods.agent;
  const providers = new Map([
    ["anthropic", { supported: ["anthropic", "bedrock", "vertex"], required: false, current: { apiType: "anthropic", baseUrl: "https://api.anthropic.com" } }],
    ["openai", { supported: ["openai", "azure"], required: false, current: null }],
  ]);
  st.mcp = new sdk.McpOverAcpCaller({ clientInfo: { name: "recorder-agent", version: "1.0.0" } });
  app.onNotification(m.mcp.message, st.mcp.handleNotification);
  app.onRequest(m.session.fork, ({ params }) => {
    const s = known(params.sessionId);
    const sessionId = `sess-${String(st.nextSession++).padStart(3, "0")}`;
    st.sessions.set(sessionId, { ...s, open: true, cwd: params.cwd, title: s.title ? `${s.title} (fork)` : null });
    return { sessionId, modes: { ...MODES, currentModeId: s.mode }, configOptions: configOptions(s.model, s.thinking) };
  });
  app.onRequest(m.session.archive, ({ params }) => {
    known(params.sessionId).archived = true;
    return {};
  });
  app.onRequest(m.session.unarchive, ({ params }) => {
    known(params.sessionId).archived = false;
    return {};
  });
  app.onRequest(m.session.status, ({ params }) => {
    const s = known(params.sessionId);
    return { status: s.open ? "open" : "saved" };
  });
  app.onRequest(m.session.setTitle, async ({ params, client }) => {
    const s = known(params.sessionId);
    s.title = params.title;
    await update(client, params.sessionId, { sessionUpdate: "session_info_update", title: params.title });
    return { title: params.title };
  });
  app.onRequest(m.providers.list, () => ({
    providers: [...providers.entries()].map(([providerId, p]) => ({ providerId, ...p })),
  }));
  app.onRequest(m.providers.set, ({ params }) => {
    const p = providers.get(params.providerId);
    if (!p) throw sdk.RequestError.invalidParams({ providerId: params.providerId }, "unknown provider");
    p.current = { apiType: params.apiType, baseUrl: params.baseUrl };
    return {};
  });
  app.onRequest(m.providers.disable, ({ params }) => {
    const p = providers.get(params.providerId);
    if (!p) throw sdk.RequestError.invalidParams({ providerId: params.providerId }, "unknown provider");
    p.current = null;
    return {};
  });
  app.onRequest(m.auth.status, () =>
    st.authenticated
      ? { state: "authenticated", accounts: [{ label: "dev@example.com", active: true, email: "dev@example.com", organization: "Example" }] }
      : { state: "unauthenticated" },
  );
}

/** The client app: every client-side method of the entrypoint. */
export function makeClient(sdk, shared, unstable) {
  const c = sdk.methods.client;
  const files = new Map([
    ["/home/dev/project/src/parser.ts", "export function parse(s) {\n  return a + '' + b;\n}\n"],
  ]);
  const terminals = new Map();
  let nextTerminal = 1;
  const permissionAnswers = shared.permissionAnswers ?? [];
  shared.updates = [];

  const app = sdk.client({ name: "recorder-client" });
  app.onNotification(c.session.update, ({ params }) => {
    shared.updates.push(params);
  });
  app.onRequest(c.session.requestPermission, async ({ params }) => {
    if (shared.onPermission) return shared.onPermission(params);
    const next = permissionAnswers.shift() ?? "allow-once";
    return { outcome: { outcome: "selected", optionId: next } };
  });
  app.onRequest(c.fs.readTextFile, ({ params }) => {
    const text = files.get(params.path);
    if (text === undefined) throw sdk.RequestError.resourceNotFound(`file://${params.path}`);
    if (params.line) {
      const lines = text.split("\n").slice(params.line - 1, params.limit ? params.line - 1 + params.limit : undefined);
      return { content: lines.join("\n") };
    }
    return { content: text };
  });
  app.onRequest(c.fs.writeTextFile, ({ params }) => {
    files.set(params.path, params.content);
    return {};
  });
  app.onRequest(c.terminal.create, ({ params }) => {
    const terminalId = `term-${nextTerminal++}`;
    terminals.set(terminalId, { command: params.command, killed: false, reads: 0 });
    return { terminalId };
  });
  app.onRequest(c.terminal.output, ({ params }) => {
    const t = terminals.get(params.terminalId);
    if (!t) throw sdk.RequestError.resourceNotFound(params.terminalId);
    t.reads++;
    if (t.killed) return { output: "watching...\n", truncated: false, exitStatus: { exitCode: null, signal: "SIGTERM" } };
    if (t.exited) return { output: "....\n4 passing\n", truncated: false, exitStatus: { exitCode: 0, signal: null } };
    return { output: "..", truncated: false };
  });
  app.onRequest(c.terminal.waitForExit, ({ params }) => {
    const t = terminals.get(params.terminalId);
    if (!t) throw sdk.RequestError.resourceNotFound(params.terminalId);
    if (t.killed) return { exitCode: null, signal: "SIGTERM" };
    t.exited = true;
    return { exitCode: 0, signal: null };
  });
  app.onRequest(c.terminal.kill, ({ params }) => {
    const t = terminals.get(params.terminalId);
    if (!t) throw sdk.RequestError.resourceNotFound(params.terminalId);
    t.killed = true;
    return {};
  });
  app.onRequest(c.terminal.release, ({ params }) => {
    terminals.delete(params.terminalId);
    return {};
  });
  app.onRequest(c.elicitation.create, ({ params }) => {
    if (params.mode === "url") return { action: "accept" };
    if (params.message.startsWith("Enter your ACME API key")) return { action: "accept", content: { apiKey: "acme-0123456789" } };
    if (params.message.startsWith("Where")) {
      return {
        action: "accept",
        content: { environment: "staging", replicas: 3, ratio: 0.25, notify: true, regions: ["eu-west", "us-east"] },
      };
    }
    if (params.message.startsWith("Add")) return { action: "decline" };
    return { action: "cancel" };
  });
  app.onNotification(c.elicitation.complete, () => {});
  app.onRequest("_acme/open_diff_view", (p) => p, ({ params }) => ({ opened: true, path: params.path, _meta: { "acme.dev/origin": "client" } }));
  app.onNotification("_acme/progress", (p) => p, () => {});
  if (unstable) {
    shared.mcpProvider = new sdk.McpOverAcpProvider();
    app.onRequest(c.mcp.message, shared.mcpProvider.handleRequest);
    app.onNotification(c.auth.statusUpdate, () => {});
  }
  return app;
}

/** initialize as a capable v1 client sends it. */
export function initParams(sdk, unstable) {
  const clientCapabilities = {
    fs: { readTextFile: true, writeTextFile: true },
    terminal: true,
    auth: { terminal: true },
    elicitation: { form: {}, url: {} },
    session: { compaction: {}, configOptions: { boolean: {} }, notices: {} },
  };
  if (unstable) {
    clientCapabilities.subagents = {};
    clientCapabilities.plan = {};
  }
  return {
    protocolVersion: sdk.PROTOCOL_VERSION,
    clientCapabilities,
    clientInfo: { name: "recorder-client", title: "Recorder Client", version: "1.0.0" },
  };
}

async function handshake(ctx, sdk, unstable) {
  const init = await ctx.request(sdk.methods.agent.initialize, initParams(sdk, unstable));
  await ctx.request(sdk.methods.agent.authenticate, { methodId: init.authMethods[0].id });
  return init;
}

async function newSession(ctx, sdk, extra = {}) {
  return ctx.request(sdk.methods.agent.session.new, { cwd: CWD, mcpServers: [], ...extra });
}

/** The scenarios, in file order. */
export function scenarios(unstable) {
  const list = [
    {
      name: "01-handshake",
      about: "initialize with full capabilities, auth required, authenticate (an agent method; a terminal method is run by the client, never passed to authenticate), session/new, logout",
      async run(ctx, shared, sdk) {
        await ctx.request(sdk.methods.agent.initialize, initParams(sdk, unstable));
        await expectError(newSession(ctx, sdk), -32000);
        await expectError(ctx.request(sdk.methods.agent.authenticate, { methodId: "password" }), -32602);
        await ctx.request(sdk.methods.agent.authenticate, { methodId: "api-key", _meta: { "acme.dev/source": "env" } });
        await newSession(ctx, sdk);
        await ctx.request(sdk.methods.agent.logout, {});
        await expectError(newSession(ctx, sdk), -32000);
      },
    },
    {
      name: "02-prompt-all-updates",
      about: "a prompt with every content block type; every session/update variant; every stop reason but cancelled",
      async run(ctx, shared, sdk) {
        await handshake(ctx, sdk, unstable);
        const s = await newSession(ctx, sdk);
        await ctx.request(sdk.methods.agent.session.prompt, {
          sessionId: s.sessionId,
          prompt: [{ type: "text", text: "all-updates: fix the parser" }, ...allContentBlocks().slice(1)],
        });
        for (const word of ["max-tokens", "max-turn-requests", "refusal"]) {
          await ctx.request(sdk.methods.agent.session.prompt, {
            sessionId: s.sessionId,
            prompt: [{ type: "text", text: `${word}: go on` }],
          });
        }
      },
    },
    {
      name: "03-permissions",
      about: "session/request_permission answered with each option kind (allow_once, allow_always, reject_once, reject_always)",
      shared: () => ({ permissionAnswers: ["allow-once", "allow-always", "reject-once", "reject-always", "allow-once"] }),
      async run(ctx, shared, sdk) {
        await handshake(ctx, sdk, unstable);
        const s = await newSession(ctx, sdk);
        await ctx.request(sdk.methods.agent.session.prompt, {
          sessionId: s.sessionId,
          prompt: [{ type: "text", text: "permissions: write the files" }],
        });
      },
    },
    {
      name: "04-terminals-fs",
      about: "fs/read_text_file (whole and ranged), fs/write_text_file, terminal/create, output, wait_for_exit, kill, release, terminal tool-call content",
      async run(ctx, shared, sdk) {
        await handshake(ctx, sdk, unstable);
        const s = await newSession(ctx, sdk);
        await ctx.request(sdk.methods.agent.session.prompt, {
          sessionId: s.sessionId,
          prompt: [{ type: "text", text: "terminals-fs: run the tests" }],
        });
      },
    },
    {
      name: "05-sessions-lifecycle",
      about: "session/new with MCP servers and additional directories, list with paging, load with replay, resume, set_mode, set_config_option, close, delete",
      async run(ctx, shared, sdk) {
        const a = sdk.methods.agent;
        await handshake(ctx, sdk, unstable);
        const s = await newSession(ctx, sdk, {
          additionalDirectories: ["/home/dev/shared-lib"],
          mcpServers: [
            {
              name: "filesystem",
              command: "/usr/local/bin/mcp-fs",
              args: ["--root", "/home/dev/project"],
              env: [{ name: "LOG_LEVEL", value: "warn" }],
            },
            { type: "http", name: "issues", url: "https://mcp.example.com/issues", headers: [{ name: "Authorization", value: "Bearer t0k3n" }] },
            { type: "sse", name: "docs", url: "https://mcp.example.com/docs/sse", headers: [] },
          ],
        });
        let page = await ctx.request(a.session.list, {});
        while (page.nextCursor) page = await ctx.request(a.session.list, { cursor: page.nextCursor });
        await ctx.request(a.session.list, { cwd: CWD });
        await ctx.request(a.session.load, { sessionId: "sess-old-1", cwd: CWD, mcpServers: [] });
        await ctx.request(a.session.resume, {
          sessionId: "sess-old-2",
          cwd: CWD,
          additionalDirectories: ["/home/dev/shared-lib"],
          mcpServers: [],
        });
        await ctx.request(a.session.setMode, { sessionId: s.sessionId, modeId: "code" });
        await ctx.request(a.session.setConfigOption, { sessionId: s.sessionId, configId: "model", value: "model-small" });
        await ctx.request(a.session.setConfigOption, { sessionId: s.sessionId, configId: "thinking", type: "boolean", value: true });
        await ctx.request(a.session.prompt, { sessionId: "sess-old-2", prompt: [{ type: "text", text: "continue" }] });
        await ctx.request(a.session.close, { sessionId: "sess-old-2" });
        await ctx.request(a.session.delete, { sessionId: "sess-old-3" });
        await ctx.request(a.session.close, { sessionId: s.sessionId });
        await ctx.request(a.session.list, {});
      },
    },
    {
      name: "06-errors",
      about: "error answers: method not found (both ways), resource not found (-32002) for unknown sessions, invalid params, auth required",
      async run(ctx, shared, sdk) {
        const a = sdk.methods.agent;
        await ctx.request(a.initialize, initParams(sdk, unstable));
        await expectError(newSession(ctx, sdk), -32000);
        await ctx.request(a.authenticate, { methodId: "api-key" });
        const s = await newSession(ctx, sdk);
        await expectError(ctx.request("_acme/does_not_exist", { q: 1 }), -32601);
        await expectError(ctx.request(a.session.load, { sessionId: "sess-missing", cwd: CWD, mcpServers: [] }), -32002);
        await expectError(ctx.request(a.session.resume, { sessionId: "sess-missing", cwd: CWD }), -32002);
        await expectError(ctx.request(a.session.setMode, { sessionId: "sess-missing", modeId: "ask" }), -32002);
        await expectError(ctx.request(a.session.setMode, { sessionId: s.sessionId, modeId: "yolo" }), -32602);
        await expectError(
          ctx.request(a.session.setConfigOption, { sessionId: s.sessionId, configId: "model", value: "model-huge" }),
          -32602,
        );
        await expectError(ctx.request(a.authenticate, { methodId: "password" }), -32602);
        // session/close and session/delete of an unknown session: the agent
        // answers -32002; the SDK's client treats both as already done.
        await ctx.request(a.session.close, { sessionId: "sess-missing" });
        await ctx.request(a.session.delete, { sessionId: "sess-missing" });
        await ctx.request(a.session.prompt, { sessionId: s.sessionId, prompt: [{ type: "text", text: "extensions: method not found on the client" }] });
      },
    },
    {
      name: "07-cancel",
      about: "session/cancel during a prompt with a pending permission request (answered cancelled, stop reason cancelled); $/cancel_request of an extension request (-32800)",
      shared: () => ({}),
      async run(ctx, shared, sdk) {
        const a = sdk.methods.agent;
        await handshake(ctx, sdk, unstable);
        const s = await newSession(ctx, sdk);
        const asked = deferred();
        shared.onPermission = async () => {
          asked.resolve();
          await shared.permissionCancelled.promise;
          return { outcome: { outcome: "cancelled" } };
        };
        shared.permissionCancelled = deferred();
        const turn = ctx.request(a.session.prompt, { sessionId: s.sessionId, prompt: [{ type: "text", text: "cancel: migrate the database" }] });
        await asked.promise;
        await ctx.notify(a.session.cancel, { sessionId: s.sessionId });
        await ticks();
        shared.permissionCancelled.resolve();
        const res = await turn;
        if (res.stopReason !== "cancelled") throw new Error(`stop reason ${res.stopReason}`);
        const ac = new AbortController();
        const slow = ctx.request("_acme/slow_index", { scope: "workspace" }, { cancellationSignal: ac.signal });
        await ticks();
        ac.abort();
        await expectError(slow);
        await ticks();
        await ctx.request(a.session.prompt, { sessionId: s.sessionId, prompt: [{ type: "text", text: "after the cancel" }] });
      },
    },
    {
      name: "09-elicitation",
      about: "elicitation/create tied to a request (during authenticate) and to a session and tool call; form mode (accept with content, decline, cancel; every property type) and url mode, elicitation/complete",
      async run(ctx, shared, sdk) {
        await ctx.request(sdk.methods.agent.initialize, initParams(sdk, unstable));
        await ctx.request(sdk.methods.agent.authenticate, { methodId: "api-key", _meta: { "acme.dev/interactive": true } });
        const s = await newSession(ctx, sdk);
        await ctx.request(sdk.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: "text", text: "elicitation: deploy" }] });
      },
    },
    {
      name: "10-extensions",
      about: "extension requests and notifications (_-prefixed) both ways, with _meta on requests, results, updates and content",
      async run(ctx, shared, sdk) {
        const a = sdk.methods.agent;
        const p = initParams(sdk, unstable);
        p._meta = { "acme.dev/editor": "recorder" };
        p.clientCapabilities._meta = { "acme.dev/diffView": true };
        await ctx.request(a.initialize, p);
        await ctx.request(a.authenticate, { methodId: "api-key" });
        const s = await newSession(ctx, sdk, { _meta: { "acme.dev/workspace": "main" } });
        await ctx.request("_acme/index_status", { scope: "workspace", _meta: { "acme.dev/trace": "trace-0001" } });
        await ctx.notify("_acme/editor_focus", { path: "/home/dev/project/src/parser.ts", _meta: { "acme.dev/line": 3 } });
        await ctx.request(a.session.prompt, {
          sessionId: s.sessionId,
          prompt: [{ type: "text", text: "extensions: show me the diff", _meta: { "acme.dev/selection": [3, 7] } }],
          _meta: { "acme.dev/turn": 1 },
        });
      },
    },
  ];
  if (unstable) list.push(...unstableScenarios());
  list.sort((x, y) => x.name.localeCompare(y.name));
  return list;
}

/** An MCP server the client hosts for the agent (MCP-over-ACP). */
async function editorTools(op) {
  if (op.method === "tools/list") {
    return {
      result: {
        tools: [
          {
            name: "open_file",
            description: "Open a file in the editor",
            inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
          },
        ],
      },
    };
  }
  if (op.method === "tools/call") {
    if (op.params?.name !== "open_file") return { error: { code: -32602, message: `Unknown tool: ${op.params?.name}` } };
    await op.notify("notifications/progress", { progressToken: "pt-1", progress: 1, total: 1, message: "opened" });
    return { result: { content: [{ type: "text", text: "Opened /home/dev/project/src/parser.ts" }], isError: false } };
  }
  return { error: { code: -32601, message: `Method not found: ${op.method}` } };
}

function unstableScenarios() {
  return [
    {
      name: "08-mcp",
      about: "MCP-over-ACP: the client hosts an MCP server declared as type acp; the agent calls it with mcp/message requests, the client answers and sends mcp/message notifications; an inner MCP error and an unavailable server (-33001)",
      async run(ctx, shared, sdk) {
        await handshake(ctx, sdk, true);
        const reg = shared.mcpProvider.registerServer(ctx, { name: "editor-tools", serverId: "srv-editor-tools", handler: editorTools });
        const s = await newSession(ctx, sdk, {
          mcpServers: [reg.declaration, { type: "http", name: "issues", url: "https://mcp.example.com/issues", headers: [] }],
        });
        await ctx.request(sdk.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: "text", text: "mcp: open the parser" }] });
        await reg.dispose();
      },
    },
    {
      name: "11-unstable-sessions",
      about: "session/fork, archive, unarchive, status, set_title, systemPrompt (append and override), providers/list, set, disable, auth/status and auth/status_update, prompt usage",
      async run(ctx, shared, sdk) {
        const a = sdk.methods.agent;
        await ctx.request(a.initialize, initParams(sdk, true));
        await ctx.request(a.auth.status, {});
        await ctx.request(a.authenticate, { methodId: "api-key" });
        await ctx.request(a.auth.status, {});
        await ctx.request(a.providers.list, {});
        await ctx.request(a.providers.set, {
          providerId: "openai",
          apiType: "openai",
          baseUrl: "https://api.openai.com/v1",
          headers: { "OpenAI-Organization": "org-example" },
        });
        await ctx.request(a.providers.disable, { providerId: "anthropic" });
        await expectError(ctx.request(a.providers.disable, { providerId: "nobody" }), -32602);
        const s = await newSession(ctx, sdk, {
          systemPrompt: { mode: "append", content: [{ type: "text", text: "Prefer small diffs." }] },
        });
        await ctx.request(a.session.status, { sessionId: s.sessionId });
        await ctx.request(a.session.status, { sessionId: "sess-old-1" });
        await ctx.request(a.session.setTitle, { sessionId: s.sessionId, title: "Parser work" });
        const f = await ctx.request(a.session.fork, {
          sessionId: s.sessionId,
          cwd: CWD,
          mcpServers: [],
          systemPrompt: { mode: "override", content: [{ type: "text", text: "You are a careful reviewer." }] },
        });
        await ctx.request(a.session.prompt, { sessionId: f.sessionId, prompt: [{ type: "text", text: "all-updates: review the fork" }] });
        await ctx.request(a.session.archive, { sessionId: "sess-old-1" });
        await ctx.request(a.session.list, {});
        await ctx.request(a.session.unarchive, { sessionId: "sess-old-1" });
        await ctx.request(a.session.close, { sessionId: f.sessionId });
        await expectError(ctx.request(a.session.status, { sessionId: "sess-missing" }), -32002);
        await expectError(ctx.request(a.session.fork, { sessionId: "sess-missing", cwd: CWD }), -32002);
        await ctx.request(a.logout, {});
        await ctx.request(a.auth.status, {});
      },
    },
  ];
}

/** Attaches the agent and client apps to each scenario. */
export function withApps(list, unstable) {
  return list.map((sc) => ({
    ...sc,
    agent: (sdk, shared) => makeAgent(sdk, shared, unstable),
    client: (sdk, shared) => makeClient(sdk, shared, unstable),
  }));
}
