// Scenarios for the ACP v2 draft (the SDK's experimental/v2 entrypoint and
// its /unstable entrypoint). In v2 a prompt is answered as soon as the agent
// inserts the user message; the turn's progress and its end are reported by
// state_update notifications, and tool calls and terminals are agent-side
// entities that the client observes through session/update and may cancel.
// Unstable-only methods, variants and members are used only when `unstable`.

import { allContentBlocks } from "./v1.mjs";
import { deferred, expectError, ticks } from "./lib.mjs";

const CWD = "/home/dev/project";
const PNG_1PX =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

function configOptions(model = "model-large", thinking = false) {
  return [
    {
      configId: "mode",
      name: "Mode",
      category: "mode",
      type: "select",
      currentValue: "ask",
      options: [
        { value: "ask", name: "Ask", description: "Ask before changing files" },
        { value: "code", name: "Code" },
      ],
    },
    {
      configId: "model",
      name: "Model",
      category: "model",
      type: "select",
      currentValue: model,
      options: [
        { value: "model-large", name: "Large", description: "Slower, stronger" },
        { value: "model-small", name: "Small" },
      ],
    },
    { configId: "thinking", name: "Extended thinking", category: "thought_level", type: "boolean", currentValue: thinking },
  ];
}

const COMMANDS = [
  { type: "command", name: "test", description: "Run the test suite", input: { type: "text", hint: "optional test name filter" } },
  { type: "command", name: "plan", description: "Show the current plan" },
];

const PERMISSION_OPTIONS = [
  { optionId: "allow-once", name: "Allow once", kind: "allow_once" },
  { optionId: "allow-always", name: "Always allow", kind: "allow_always" },
  { optionId: "reject-once", name: "Reject", kind: "reject_once" },
  { optionId: "reject-always", name: "Always reject", kind: "reject_always" },
];

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
    nextMessage: 1,
    sessions: new Map(),
    cancelWaiters: new Map(),
    background: new Map(),
  };
  for (let i = 1; i <= 3; i++) {
    st.sessions.set(`sess-old-${i}`, {
      cwd: CWD,
      title: `Earlier session ${i}`,
      updatedAt: `2025-01-0${i}T10:00:00Z`,
      model: "model-large",
      thinking: false,
      open: false,
    });
  }
  const known = (sessionId) => {
    const s = st.sessions.get(sessionId);
    if (!s) throw sdk.RequestError.sessionNotFound(sessionId);
    return s;
  };
  const update = (client, sessionId, u) => client.notify(sdk.methods.client.session.update, { sessionId, update: u });
  const messageId = () => `msg-${String(st.nextMessage++).padStart(3, "0")}`;

  const app = sdk.agent({ name: "recorder-agent" });

  app.onRequest(m.initialize, () => {
    const session = {
      prompt: { image: {}, audio: {}, embeddedContext: {} },
      mcp: { stdio: {}, http: {} },
      delete: {},
      additionalDirectories: {},
    };
    const capabilities = { session, auth: {} };
    if (unstable) {
      session.mcp.acp = {};
      Object.assign(session, { systemPrompt: { mode: { override: {} } }, fork: {}, archive: {}, status: {}, title: {} });
      capabilities.providers = {};
      capabilities.auth.status = {};
    }
    return {
      protocolVersion: sdk.PROTOCOL_VERSION,
      info: { name: "recorder-agent", title: "Recorder Agent", version: "2.0.0" },
      capabilities,
      authMethods: [
        { type: "agent", methodId: "api-key", name: "API key", description: "Use the key in ACME_API_KEY" },
        {
          type: "terminal",
          methodId: "terminal-login",
          name: "Log in in a terminal",
          args: ["--login"],
          env: [{ name: "ACME_LOGIN_MODE", value: "interactive" }],
        },
      ],
    };
  });

  app.onRequest(m.auth.login, async ({ params, client, requestId }) => {
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

  app.onRequest(m.auth.logout, async ({ client }) => {
    st.authenticated = false;
    if (unstable) await client.notify(sdk.methods.client.auth.statusUpdate, { state: "unauthenticated", accounts: [] });
    return {};
  });

  app.onRequest(m.session.new, ({ params }) => {
    if (!st.authenticated) throw sdk.RequestError.authRequired();
    const sessionId = `sess-${String(st.nextSession++).padStart(3, "0")}`;
    st.sessions.set(sessionId, { cwd: params.cwd, title: null, updatedAt: "2025-02-01T09:00:00Z", model: "model-large", thinking: false, open: true });
    return { sessionId, configOptions: configOptions(), availableCommands: COMMANDS };
  });

  app.onRequest(m.session.list, ({ params }) => {
    const all = [...st.sessions.entries()]
      .filter(([, s]) => !params.cwd || s.cwd === params.cwd)
      .map(([sessionId, s]) => ({ sessionId, cwd: s.cwd, ...(s.title ? { title: s.title } : {}), updatedAt: s.updatedAt }));
    const start = params.cursor ? Number(params.cursor.replace("page-", "")) : 0;
    const res = { sessions: all.slice(start, start + 2) };
    if (start + 2 < all.length) res.nextCursor = `page-${start + 2}`;
    return res;
  });

  app.onRequest(m.session.resume, async ({ params, client }) => {
    const s = known(params.sessionId);
    s.open = true;
    if (params.replayFrom?.type === "start") {
      await update(client, params.sessionId, {
        sessionUpdate: "user_message",
        messageId: "msg-old-1",
        content: [{ type: "text", text: "What does the parser do?" }],
      });
      await update(client, params.sessionId, {
        sessionUpdate: "agent_message",
        messageId: "msg-old-2",
        content: [{ type: "text", text: "It turns source text into a syntax tree." }],
      });
    }
    // Every successful resume reports the current state before its response.
    await update(client, params.sessionId, { sessionUpdate: "state_update", state: "idle", background: [] });
    return { configOptions: configOptions(s.model, s.thinking), availableCommands: COMMANDS };
  });

  app.onRequest(m.session.close, ({ params }) => {
    // Closing a session that does not exist or is not active should succeed.
    const s = st.sessions.get(params.sessionId);
    if (s) s.open = false;
    return {};
  });

  app.onRequest(m.session.delete, ({ params }) => {
    known(params.sessionId);
    st.sessions.delete(params.sessionId);
    return {};
  });

  app.onRequest(m.session.setConfigOption, async ({ params, client }) => {
    const s = known(params.sessionId);
    if (params.configId === "model" && params.type === "id" && (params.value === "model-large" || params.value === "model-small")) {
      s.model = params.value;
    } else if (params.configId === "thinking" && params.type === "boolean") {
      s.thinking = params.value;
    } else {
      throw sdk.RequestError.invalidParams({ configId: params.configId }, "unknown option or value");
    }
    return { configOptions: configOptions(s.model, s.thinking) };
  });

  app.onNotification(m.session.cancel, ({ params }) => {
    const w = st.cancelWaiters.get(params.sessionId);
    if (w) {
      st.cancelWaiters.delete(params.sessionId);
      w.resolve();
    }
  });

  app.onRequest(m.toolCall.cancel, async ({ params, client }) => {
    known(params.sessionId);
    const key = `tool:${params.toolCallId}`;
    if (!st.background.has(key)) throw sdk.RequestError.invalidParams({ toolCallId: params.toolCallId }, "unknown, final or not cancellable");
    st.background.delete(key);
    await update(client, params.sessionId, { sessionUpdate: "tool_call_update", toolCallId: params.toolCallId, status: "cancelled" });
    return {};
  });

  app.onRequest(m.terminal.cancel, async ({ params, client }) => {
    known(params.sessionId);
    const key = `term:${params.terminalId}`;
    if (!st.background.has(key)) throw sdk.RequestError.invalidParams({ terminalId: params.terminalId }, "unknown, exited or not cancellable");
    st.background.delete(key);
    await update(client, params.sessionId, {
      sessionUpdate: "terminal_update",
      terminalId: params.terminalId,
      exitStatus: { exitCode: null, signal: "SIGTERM" },
    });
    return {};
  });

  app.onRequest(m.session.prompt, ({ params, client }) => {
    known(params.sessionId);
    const id = messageId();
    const word = textOf(params.prompt).split(":")[0];
    const script = TURNS[word] ?? TURNS.default;
    const ctx = {
      sdk,
      params,
      client,
      st,
      unstable,
      shared,
      messageId,
      update: Object.assign((u) => update(client, params.sessionId, u), {
        child: (sessionId, u) => update(client, sessionId, u),
      }),
      waitCancel: () => {
        const d = deferred();
        st.cancelWaiters.set(params.sessionId, d);
        return d.promise;
      },
    };
    // The turn runs after the prompt is answered: insert the user message,
    // report running, do the work, report idle with the stop reason.
    setImmediate(async () => {
      try {
        await ctx.update({ sessionUpdate: "user_message", messageId: id, content: params.prompt });
        await ctx.update({ sessionUpdate: "state_update", state: "running" });
        const idle = await script(ctx);
        await ctx.update({ sessionUpdate: "state_update", state: "idle", ...idle });
      } catch (err) {
        shared.turnError = err;
        for (const w of shared.idle.values()) w.reject(err);
      }
    });
    return { messageId: id };
  });

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

  if (unstable) addUnstableAgent(app, { sdk, st, known, update });
  return app;
}

function addUnstableAgent(app, { sdk, st, known, update }) {
  const m = sdk.methods.agent;
  const providers = new Map([
    ["anthropic", { supported: ["anthropic", "bedrock", "vertex"], required: false, current: { apiType: "anthropic", baseUrl: "https://api.anthropic.com" } }],
    ["openai", { supported: ["openai", "azure"], required: false, current: null }],
  ]);
  st.mcp = new sdk.McpOverAcpCaller({ clientInfo: { name: "recorder-agent", version: "2.0.0" } });
  app.onNotification(m.mcp.message, st.mcp.handleNotification);
  app.onRequest(m.session.fork, ({ params }) => {
    const s = known(params.sessionId);
    const sessionId = `sess-${String(st.nextSession++).padStart(3, "0")}`;
    st.sessions.set(sessionId, { ...s, open: true, cwd: params.cwd, title: s.title ? `${s.title} (fork)` : null });
    return { sessionId, configOptions: configOptions(s.model, s.thinking), availableCommands: COMMANDS };
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
    return s.open ? { status: "open", state: { state: "idle", background: [] } } : { status: "saved" };
  });
  app.onRequest(m.session.setTitle, async ({ params, client }) => {
    known(params.sessionId).title = params.title;
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

/** Turn scripts of the agent, chosen by the first word of the prompt; each returns the idle state's members. */
const TURNS = {
  default: async () => ({ stopReason: "end_turn" }),

  async "all-updates"({ update, unstable }) {
    await update({ sessionUpdate: "available_commands_update", availableCommands: COMMANDS });
    await update({ sessionUpdate: "user_message_chunk", messageId: "msg-u-extra", content: { type: "text", text: "(sent from the side panel)" } });
    await update({ sessionUpdate: "agent_thought_chunk", messageId: "msg-t1", content: { type: "text", text: "The test expects 2; " } });
    await update({
      sessionUpdate: "agent_thought",
      messageId: "msg-t1",
      content: [{ type: "text", text: "The test expects 2; the parser returns '11'." }],
    });
    await update({
      sessionUpdate: "plan_update",
      plan: {
        type: "items",
        planId: "plan-1",
        entries: [
          { content: "Read the parser", priority: "high", status: "completed" },
          { content: "Fix operator precedence", priority: "medium", status: "in_progress" },
          { content: "Run the tests", priority: "low", status: "pending" },
          { content: "Rewrite in Rust", priority: "low", status: "cancelled" },
        ],
      },
    });
    await update({
      sessionUpdate: "tool_call_update",
      toolCallId: "call-read-1",
      name: "read_file",
      title: "Read src/parser.ts",
      kind: "read",
      status: "pending",
      locations: [{ path: "/home/dev/project/src/parser.ts", line: 1 }],
      rawInput: { path: "/home/dev/project/src/parser.ts" },
    });
    await update({ sessionUpdate: "tool_call_update", toolCallId: "call-read-1", status: "in_progress" });
    await update({
      sessionUpdate: "tool_call_content_chunk",
      toolCallId: "call-read-1",
      content: { type: "content", content: { type: "text", text: "export function parse(s) { ... }" } },
    });
    await update({ sessionUpdate: "tool_call_update", toolCallId: "call-read-1", status: "completed", rawOutput: { bytes: 2048 } });
    const kinds = ["edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other", "_unknown"];
    for (const [i, kind] of kinds.entries()) {
      await update({ sessionUpdate: "tool_call_update", toolCallId: `call-kind-${i + 1}`, title: `A ${kind} tool call`, kind, status: "in_progress" });
    }
    await update({
      sessionUpdate: "tool_call_content_chunk",
      toolCallId: "call-kind-1",
      content: {
        type: "diff",
        changes: [
          { operation: "modify", path: "/home/dev/project/src/parser.ts", fileType: "text", mimeType: "text/x-typescript" },
          { operation: "add", path: "/home/dev/project/src/new-file.ts" },
          { operation: "delete", path: "/home/dev/project/src/old-file.ts" },
          { operation: "move", oldPath: "/home/dev/project/src/a.ts", path: "/home/dev/project/src/b.ts" },
          { operation: "copy", oldPath: "/home/dev/project/assets/logo.png", path: "/home/dev/project/public/logo.png", fileType: "binary" },
        ],
        patch: {
          format: "git_patch",
          text: "diff --git /home/dev/project/src/parser.ts /home/dev/project/src/parser.ts\n--- /home/dev/project/src/parser.ts\n+++ /home/dev/project/src/parser.ts\n@@ -1 +1 @@\n-return a + '' + b;\n+return a + b;\n",
        },
      },
    });
    await update({
      sessionUpdate: "terminal_update",
      terminalId: "term-1",
      command: "npm test",
      cwd: "/home/dev/project",
      size: { cols: 120, rows: 40 },
    });
    await update({ sessionUpdate: "tool_call_content_chunk", toolCallId: "call-kind-5", content: { type: "terminal", terminalId: "term-1" } });
    await update({ sessionUpdate: "terminal_output_chunk", terminalId: "term-1", data: "....\n" });
    await update({ sessionUpdate: "terminal_output_chunk", terminalId: "term-1", data: "4 passing\n" });
    await update({ sessionUpdate: "terminal_update", terminalId: "term-1", output: { data: "....\n4 passing\n" }, exitStatus: { exitCode: 0 } });
    for (let i = 1; i <= kinds.length; i++) {
      await update({ sessionUpdate: "tool_call_update", toolCallId: `call-kind-${i}`, status: i === 3 ? "failed" : "completed" });
    }
    await update({ sessionUpdate: "state_update", state: "requires_action" });
    await update({ sessionUpdate: "state_update", state: "running" });
    await update({ sessionUpdate: "agent_message_chunk", messageId: "msg-a1", content: { type: "text", text: "Fixed: " } });
    await update({
      sessionUpdate: "agent_message_chunk",
      messageId: "msg-a1",
      content: { type: "text", text: "the parser now adds numbers.", annotations: { audience: ["user"] } },
    });
    await update({ sessionUpdate: "agent_message_chunk", messageId: "msg-a1", content: { type: "image", mimeType: "image/png", data: PNG_1PX } });
    await update({
      sessionUpdate: "agent_message",
      messageId: "msg-a1",
      content: [
        { type: "text", text: "Fixed: the parser now adds numbers." },
        { type: "resource_link", uri: "file:///home/dev/project/src/parser.ts", name: "parser.ts" },
        { type: "resource", resource: { uri: "file:///home/dev/project/CHANGES.md", mimeType: "text/markdown", text: "- fixed addition\n" } },
      ],
    });
    await update({ sessionUpdate: "config_option_update", configOptions: configOptions("model-small", true) });
    await update({ sessionUpdate: "session_info_update", title: "Fix the parser", updatedAt: "2025-02-01T09:05:00Z" });
    await update({ sessionUpdate: "usage_update", used: 53000, size: 200000, cost: { amount: 0.045, currency: "USD" } });
    await update({ sessionUpdate: "notice", severity: "info", title: "Indexed 1,284 files" });
    await update({ sessionUpdate: "notice", severity: "warning", title: "Context is 80% full", description: "Older turns will be summarised soon." });
    await update({ sessionUpdate: "notice", severity: "error", title: "Rate limited", description: "Retrying in 2 s." });
    await update({ sessionUpdate: "compaction_update", compactionId: "cmp-1", status: "in_progress" });
    await update({ sessionUpdate: "compaction_summary_chunk", compactionId: "cmp-1", content: { type: "text", text: "The user asked to fix the parser." } });
    await update({
      sessionUpdate: "compaction_update",
      compactionId: "cmp-1",
      status: "completed",
      summary: [{ type: "text", text: "The user asked to fix the parser." }],
    });
    await update({ sessionUpdate: "compaction_update", compactionId: "cmp-2", status: "failed", error: "summary too long" });
    await update({ sessionUpdate: "compaction_update", compactionId: "cmp-3", status: "cancelled" });
    if (unstable) {
      await update({ sessionUpdate: "plan_update", plan: { type: "file", planId: "plan-2", uri: "file:///home/dev/project/PLAN.md" } });
      await update({ sessionUpdate: "plan_update", plan: { type: "markdown", planId: "plan-3", content: "# Plan\n- [x] fix addition\n" } });
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
      await update.child("sess-sub-1", { sessionUpdate: "state_update", state: "running" });
      await update.child("sess-sub-1", { sessionUpdate: "agent_message_chunk", messageId: "msg-sub-1", content: { type: "text", text: "Running 4 tests." } });
      await update.child("sess-sub-1", { sessionUpdate: "tool_call_update", toolCallId: "call-sub-1", title: "npm test", kind: "execute", status: "completed" });
      await update.child("sess-sub-1", { sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" });
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
      await update({ sessionUpdate: "session_message_chunk", messageId: "msg-s2", content: { type: "text", text: "Lint: clean." } });
      await update({ sessionUpdate: "state_update", state: "unknown" });
    }
    const idle = { stopReason: "end_turn", background: [], _meta: { "acme.dev/turn": 1 } };
    if (unstable) idle.usage = { totalTokens: 1530, inputTokens: 1200, outputTokens: 330, cachedReadTokens: 800, thoughtTokens: 90 };
    return idle;
  },

  async "max-tokens"({ update }) {
    await update({ sessionUpdate: "agent_message_chunk", messageId: "msg-mt", content: { type: "text", text: "The answer is long and" } });
    return { stopReason: "max_tokens" };
  },
  async "max-turn-requests"({ update }) {
    await update({ sessionUpdate: "tool_call_update", toolCallId: "call-loop-1", title: "Search", kind: "search", status: "completed" });
    return { stopReason: "max_turn_requests" };
  },
  async refusal() {
    return { stopReason: "refusal" };
  },
  async error() {
    return { stopReason: "error", error: { code: -32603, message: "Internal error", data: { reason: "model backend unavailable" } } };
  },

  async permissions({ update, client, sdk, params }) {
    const ask = (p) => client.request(sdk.methods.client.session.requestPermission, { sessionId: params.sessionId, ...p });
    for (const [i, kind] of ["allow_once", "allow_always", "reject_once", "reject_always"].entries()) {
      const toolCallId = `call-perm-${i + 1}`;
      await update({
        sessionUpdate: "tool_call_update",
        toolCallId,
        title: `Write src/file-${i + 1}.ts`,
        kind: "edit",
        status: "pending",
        locations: [{ path: `/home/dev/project/src/file-${i + 1}.ts` }],
      });
      await update({ sessionUpdate: "state_update", state: "requires_action" });
      const res = await ask({
        title: `Write src/file-${i + 1}.ts?`,
        description: "The agent wants to change this file.",
        subject: { type: "tool_call", toolCall: { toolCallId, title: `Write src/file-${i + 1}.ts`, kind: "edit", status: "pending" } },
        options: PERMISSION_OPTIONS,
        _meta: { "acme.dev/expected": kind },
      });
      await update({ sessionUpdate: "state_update", state: "running" });
      const allowed = res.outcome.outcome === "selected" && res.outcome.optionId.startsWith("allow");
      await update({ sessionUpdate: "tool_call_update", toolCallId, status: allowed ? "completed" : "failed" });
    }
    // A command subject, and a request with no subject at all.
    await update({ sessionUpdate: "tool_call_update", toolCallId: "call-perm-5", title: "npm install", kind: "execute", status: "pending" });
    await update({ sessionUpdate: "terminal_update", terminalId: "term-perm-1", command: "npm install", cwd: CWD });
    await update({ sessionUpdate: "state_update", state: "requires_action" });
    await ask({
      title: "Run npm install?",
      subject: { type: "command", command: "npm install", cwd: CWD, toolCallId: "call-perm-5", terminalId: "term-perm-1" },
      options: PERMISSION_OPTIONS.filter((o) => o.kind.endsWith("_once")),
    });
    await update({ sessionUpdate: "state_update", state: "running" });
    await update({ sessionUpdate: "terminal_update", terminalId: "term-perm-1", exitStatus: { exitCode: 0 } });
    await update({ sessionUpdate: "tool_call_update", toolCallId: "call-perm-5", status: "completed" });
    await update({ sessionUpdate: "state_update", state: "requires_action" });
    await ask({ title: "Allow network access for this session?", options: PERMISSION_OPTIONS });
    return { stopReason: "end_turn" };
  },

  async background({ update, st }) {
    // Work that keeps running after the turn: the client may cancel it.
    await update({
      sessionUpdate: "tool_call_update",
      toolCallId: "call-bg-1",
      title: "Index the workspace",
      kind: "search",
      status: "in_progress",
      capabilities: { cancel: {} },
    });
    await update({
      sessionUpdate: "terminal_update",
      terminalId: "term-bg-1",
      command: "npm run watch",
      cwd: CWD,
      capabilities: { cancel: {} },
    });
    await update({ sessionUpdate: "terminal_output_chunk", terminalId: "term-bg-1", data: "watching for changes...\n" });
    st.background.set("tool:call-bg-1", true);
    st.background.set("term:term-bg-1", true);
    return {
      stopReason: "end_turn",
      background: [
        { type: "tool_call", toolCallId: "call-bg-1" },
        { type: "terminal", terminalId: "term-bg-1" },
      ],
    };
  },

  async cancel({ update, client, sdk, params, waitCancel }) {
    const cancelled = waitCancel();
    await update({ sessionUpdate: "agent_message_chunk", messageId: "msg-cx", content: { type: "text", text: "Starting the migration." } });
    await update({ sessionUpdate: "tool_call_update", toolCallId: "call-cx-1", title: "Drop table users", kind: "execute", status: "pending" });
    await update({ sessionUpdate: "state_update", state: "requires_action" });
    const perm = await client.request(sdk.methods.client.session.requestPermission, {
      sessionId: params.sessionId,
      title: "Drop table users?",
      subject: { type: "tool_call", toolCall: { toolCallId: "call-cx-1" } },
      options: PERMISSION_OPTIONS,
    });
    await cancelled;
    await update({
      sessionUpdate: "tool_call_update",
      toolCallId: "call-cx-1",
      status: perm.outcome.outcome === "cancelled" ? "cancelled" : "completed",
    });
    return { stopReason: "cancelled" };
  },

  async elicitation({ update, client, sdk, params }) {
    const c = sdk.methods.client;
    await update({ sessionUpdate: "tool_call_update", toolCallId: "call-deploy-1", title: "Deploy", kind: "execute", status: "pending" });
    await update({ sessionUpdate: "state_update", state: "requires_action" });
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
          regions: { type: "array", title: "Regions", items: { type: "string", enum: ["eu-west", "us-east", "ap-south"] }, minItems: 1 },
          note: { type: "string", title: "Contact", maxLength: 200, format: "email" },
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
      requestedSchema: { type: "object", properties: { tag: { type: "string", pattern: "^v[0-9]+" } } },
    });
    const url = await client.request(c.elicitation.create, {
      sessionId: params.sessionId,
      mode: "url",
      elicitationId: "elic-oauth-1",
      message: "Sign in to the deployment service",
      url: "https://deploy.example.com/oauth/authorize?state=abc123",
    });
    if (url.action === "accept") await client.notify(c.elicitation.complete, { elicitationId: "elic-oauth-1" });
    await update({ sessionUpdate: "state_update", state: "running" });
    await update({ sessionUpdate: "tool_call_update", toolCallId: "call-deploy-1", status: form.action === "accept" ? "completed" : "failed" });
    return { stopReason: "end_turn" };
  },

  async extensions({ client, update }) {
    const echo = await client.request("_acme/open_diff_view", { path: "/home/dev/project/src/parser.ts", _meta: { "acme.dev/origin": "agent" } });
    await client.notify("_acme/progress", { percent: 50, _meta: { "acme.dev/step": 2 } });
    await expectError(client.request("_acme/not_supported_by_client", { x: 1 }), -32601);
    await update({
      sessionUpdate: "agent_message_chunk",
      messageId: "msg-ext",
      content: { type: "text", text: echo.opened ? "Opened." : "Not opened.", _meta: { "acme.dev/rendered": true } },
      _meta: { "acme.dev/chunk": 1 },
    });
    return { stopReason: "end_turn", _meta: { "acme.dev/ext": true } };
  },

  async mcp({ update, client, st }) {
    const serverId = "srv-editor-tools";
    await update({ sessionUpdate: "tool_call_update", toolCallId: "call-mcp-1", title: "editor-tools: open_file", kind: "read", status: "in_progress" });
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
};

/** The client app: every client-side method of the entrypoint. */
export function makeClient(sdk, shared, unstable) {
  const c = sdk.methods.client;
  shared.idle = new Map();
  const app = sdk.client({ name: "recorder-client" });
  app.onNotification(c.session.update, ({ params }) => {
    const u = params.update;
    if (u.sessionUpdate === "state_update" && u.state === "idle") {
      const w = shared.idle.get(params.sessionId);
      if (w) {
        shared.idle.delete(params.sessionId);
        w.resolve(u);
      }
    }
  });
  const answers = shared.permissionAnswers ?? [];
  app.onRequest(c.session.requestPermission, async ({ params }) => {
    if (shared.onPermission) return shared.onPermission(params);
    return { outcome: { outcome: "selected", optionId: answers.shift() ?? "allow-once" } };
  });
  app.onRequest(c.elicitation.create, ({ params }) => {
    if (params.mode === "url") return { action: "accept" };
    if (params.message.startsWith("Enter your ACME API key")) return { action: "accept", content: { apiKey: "acme-0123456789" } };
    if (params.message.startsWith("Where")) {
      return { action: "accept", content: { environment: "staging", replicas: 3, ratio: 0.25, notify: true, regions: ["eu-west", "us-east"] } };
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

function initParams(sdk) {
  return {
    protocolVersion: sdk.PROTOCOL_VERSION,
    info: { name: "recorder-client", title: "Recorder Client", version: "2.0.0" },
    capabilities: { auth: { terminal: {} }, elicitation: { form: {}, url: {} } },
  };
}

async function handshake(ctx, sdk) {
  const init = await ctx.request(sdk.methods.agent.initialize, initParams(sdk));
  await ctx.request(sdk.methods.agent.auth.login, { methodId: init.authMethods[0].methodId });
  return init;
}

const newSession = (ctx, sdk, extra = {}) => ctx.request(sdk.methods.agent.session.new, { cwd: CWD, mcpServers: [], ...extra });

/** Sends a prompt and waits for the idle state that ends its turn. */
async function turn(ctx, sdk, shared, sessionId, prompt, extra = {}) {
  const idle = deferred();
  shared.idle.set(sessionId, idle);
  await ctx.request(sdk.methods.agent.session.prompt, { sessionId, prompt, ...extra });
  const u = await idle.promise;
  await ticks();
  if (shared.turnError) throw shared.turnError;
  return u;
}

const text = (t) => [{ type: "text", text: t }];

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

/** The scenarios, in file order. */
export function scenarios(unstable) {
  const list = [
    {
      name: "01-handshake",
      about: "initialize (protocolVersion 2, info, capabilities), auth required, auth/login (the agent method: a terminal method the client runs itself), session/new, auth/logout",
      async run(ctx, shared, sdk) {
        const a = sdk.methods.agent;
        await ctx.request(a.initialize, initParams(sdk));
        await expectError(newSession(ctx, sdk), -32000);
        await expectError(ctx.request(a.auth.login, { methodId: "password" }), -32602);
        await ctx.request(a.auth.login, { methodId: "api-key", _meta: { "acme.dev/source": "env" } });
        await newSession(ctx, sdk);
        await ctx.request(a.auth.logout, {});
        await expectError(newSession(ctx, sdk), -32000);
      },
    },
    {
      name: "02-prompt-all-updates",
      about: "a prompt with every content block type; every session/update variant; every stop reason but cancelled (including error)",
      async run(ctx, shared, sdk) {
        await handshake(ctx, sdk);
        const s = await newSession(ctx, sdk);
        await turn(ctx, sdk, shared, s.sessionId, [{ type: "text", text: "all-updates: fix the parser" }, ...allContentBlocks().slice(1)]);
        for (const word of ["max-tokens", "max-turn-requests", "refusal", "error"]) {
          await turn(ctx, sdk, shared, s.sessionId, text(`${word}: go on`));
        }
      },
    },
    {
      name: "03-permissions",
      about: "session/request_permission with a tool_call subject answered with each option kind, a command subject, and no subject",
      shared: () => ({ permissionAnswers: ["allow-once", "allow-always", "reject-once", "reject-always", "allow-once", "reject-once"] }),
      async run(ctx, shared, sdk) {
        await handshake(ctx, sdk);
        const s = await newSession(ctx, sdk);
        await turn(ctx, sdk, shared, s.sessionId, text("permissions: write the files"));
      },
    },
    {
      name: "04-terminals-background",
      about: "agent-side terminals and tool calls that outlive the turn (idle with background work), tool_call/cancel and terminal/cancel",
      async run(ctx, shared, sdk) {
        const a = sdk.methods.agent;
        await handshake(ctx, sdk);
        const s = await newSession(ctx, sdk);
        await turn(ctx, sdk, shared, s.sessionId, text("background: index and watch"));
        await ctx.request(a.toolCall.cancel, { sessionId: s.sessionId, toolCallId: "call-bg-1" });
        await ctx.request(a.terminal.cancel, { sessionId: s.sessionId, terminalId: "term-bg-1" });
        await turn(ctx, sdk, shared, s.sessionId, text("after the background work"));
      },
    },
    {
      name: "05-sessions-lifecycle",
      about: "session/new with MCP servers and additional directories, list with paging, resume with and without replay, set_config_option (id and boolean), close, delete",
      async run(ctx, shared, sdk) {
        const a = sdk.methods.agent;
        await handshake(ctx, sdk);
        const s = await newSession(ctx, sdk, {
          additionalDirectories: ["/home/dev/shared-lib"],
          mcpServers: [
            {
              type: "stdio",
              name: "filesystem",
              command: "/usr/local/bin/mcp-fs",
              args: ["--root", "/home/dev/project"],
              env: [{ name: "LOG_LEVEL", value: "warn" }],
            },
            { type: "http", name: "issues", url: "https://mcp.example.com/issues", headers: [{ name: "Authorization", value: "Bearer t0k3n" }] },
          ],
        });
        let page = await ctx.request(a.session.list, {});
        while (page.nextCursor) page = await ctx.request(a.session.list, { cursor: page.nextCursor });
        await ctx.request(a.session.list, { cwd: CWD });
        await ctx.request(a.session.resume, { sessionId: "sess-old-1", cwd: CWD, mcpServers: [], replayFrom: { type: "start" } });
        await ctx.request(a.session.resume, { sessionId: "sess-old-2", cwd: CWD, additionalDirectories: ["/home/dev/shared-lib"] });
        await ctx.request(a.session.setConfigOption, { sessionId: s.sessionId, configId: "model", type: "id", value: "model-small" });
        await ctx.request(a.session.setConfigOption, { sessionId: s.sessionId, configId: "thinking", type: "boolean", value: true });
        await turn(ctx, sdk, shared, "sess-old-2", text("continue"));
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
        await ctx.request(a.initialize, initParams(sdk));
        await expectError(newSession(ctx, sdk), -32000);
        await ctx.request(a.auth.login, { methodId: "api-key" });
        const s = await newSession(ctx, sdk);
        await expectError(ctx.request("_acme/does_not_exist", { q: 1 }), -32601);
        await expectError(ctx.request(a.session.resume, { sessionId: "sess-missing", cwd: CWD }), -32002);
        await expectError(ctx.request(a.session.setConfigOption, { sessionId: "sess-missing", configId: "model", type: "id", value: "model-small" }), -32002);
        await expectError(ctx.request(a.session.setConfigOption, { sessionId: s.sessionId, configId: "model", type: "id", value: "model-huge" }), -32602);
        await expectError(ctx.request(a.auth.login, { methodId: "password" }), -32602);
        await ctx.request(a.session.close, { sessionId: "sess-missing" });
        await ctx.request(a.session.delete, { sessionId: "sess-missing" });
        await turn(ctx, sdk, shared, s.sessionId, text("extensions: method not found on the client"));
      },
    },
    {
      name: "07-cancel",
      about: "session/cancel during a turn with a pending permission request (answered cancelled, idle with stop reason cancelled); $/cancel_request of an extension request (-32800)",
      async run(ctx, shared, sdk) {
        const a = sdk.methods.agent;
        await handshake(ctx, sdk);
        const s = await newSession(ctx, sdk);
        const asked = deferred();
        const release = deferred();
        shared.onPermission = async () => {
          asked.resolve();
          await release.promise;
          return { outcome: { outcome: "cancelled" } };
        };
        const idle = deferred();
        shared.idle.set(s.sessionId, idle);
        await ctx.request(a.session.prompt, { sessionId: s.sessionId, prompt: text("cancel: migrate the database") });
        await asked.promise;
        await ctx.notify(a.session.cancel, { sessionId: s.sessionId });
        await ticks();
        release.resolve();
        const u = await idle.promise;
        if (u.stopReason !== "cancelled") throw new Error(`stop reason ${u.stopReason}`);
        shared.onPermission = null;
        const ac = new AbortController();
        const slow = ctx.request("_acme/slow_index", { scope: "workspace" }, { cancellationSignal: ac.signal });
        await ticks();
        ac.abort();
        await expectError(slow);
        await ticks();
        await turn(ctx, sdk, shared, s.sessionId, text("after the cancel"));
      },
    },
    {
      name: "09-elicitation",
      about: "elicitation/create tied to a request (during auth/login) and to a session and tool call; form mode (accept with content, decline, cancel; every property type) and url mode, elicitation/complete",
      async run(ctx, shared, sdk) {
        await ctx.request(sdk.methods.agent.initialize, initParams(sdk));
        await ctx.request(sdk.methods.agent.auth.login, { methodId: "api-key", _meta: { "acme.dev/interactive": true } });
        const s = await newSession(ctx, sdk);
        await turn(ctx, sdk, shared, s.sessionId, text("elicitation: deploy"));
      },
    },
    {
      name: "10-extensions",
      about: "extension requests and notifications (_-prefixed) both ways, with _meta on requests, results, updates and content",
      async run(ctx, shared, sdk) {
        const a = sdk.methods.agent;
        const p = initParams(sdk);
        p._meta = { "acme.dev/editor": "recorder" };
        p.capabilities._meta = { "acme.dev/diffView": true };
        await ctx.request(a.initialize, p);
        await ctx.request(a.auth.login, { methodId: "api-key" });
        const s = await newSession(ctx, sdk, { _meta: { "acme.dev/workspace": "main" } });
        await ctx.request("_acme/index_status", { scope: "workspace", _meta: { "acme.dev/trace": "trace-0001" } });
        await ctx.notify("_acme/editor_focus", { path: "/home/dev/project/src/parser.ts", _meta: { "acme.dev/line": 3 } });
        await turn(ctx, sdk, shared, s.sessionId, [{ type: "text", text: "extensions: show me the diff", _meta: { "acme.dev/selection": [3, 7] } }], {
          _meta: { "acme.dev/turn": 1 },
        });
      },
    },
  ];
  if (unstable) {
    list.push(
      {
        name: "08-mcp",
        about: "MCP-over-ACP: the client hosts an MCP server declared as type acp; the agent calls it with mcp/message requests, the client answers and sends mcp/message notifications; an inner MCP error and an unavailable server (-33001)",
        async run(ctx, shared, sdk) {
          await handshake(ctx, sdk);
          const reg = shared.mcpProvider.registerServer(ctx, { name: "editor-tools", serverId: "srv-editor-tools", handler: editorTools });
          const s = await newSession(ctx, sdk, { mcpServers: [reg.declaration] });
          await turn(ctx, sdk, shared, s.sessionId, text("mcp: open the parser"));
          await reg.dispose();
        },
      },
      {
        name: "11-unstable-sessions",
        about: "session/fork, archive, unarchive, status, set_title, systemPrompt (append and override), providers/list, set, disable, auth/status and auth/status_update, idle usage",
        async run(ctx, shared, sdk) {
          const a = sdk.methods.agent;
          await ctx.request(a.initialize, initParams(sdk));
          await ctx.request(a.auth.status, {});
          await ctx.request(a.auth.login, { methodId: "api-key" });
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
          const s = await newSession(ctx, sdk, { systemPrompt: { mode: "append", content: text("Prefer small diffs.") } });
          await ctx.request(a.session.status, { sessionId: s.sessionId });
          await ctx.request(a.session.status, { sessionId: "sess-old-1" });
          await ctx.request(a.session.setTitle, { sessionId: s.sessionId, title: "Parser work" });
          const f = await ctx.request(a.session.fork, {
            sessionId: s.sessionId,
            cwd: CWD,
            mcpServers: [],
            systemPrompt: { mode: "override", content: text("You are a careful reviewer.") },
          });
          await turn(ctx, sdk, shared, f.sessionId, text("all-updates: review the fork"));
          await ctx.request(a.session.resume, {
            sessionId: "sess-old-1",
            cwd: CWD,
            systemPrompt: { mode: "append", content: text("Prefer small diffs.") },
          });
          await ctx.request(a.session.archive, { sessionId: "sess-old-2" });
          await ctx.request(a.session.list, {});
          await ctx.request(a.session.unarchive, { sessionId: "sess-old-2" });
          await ctx.request(a.session.close, { sessionId: f.sessionId });
          await expectError(ctx.request(a.session.status, { sessionId: "sess-missing" }), -32002);
          await expectError(ctx.request(a.session.fork, { sessionId: "sess-missing", cwd: CWD }), -32002);
          await ctx.request(a.auth.logout, {});
          await ctx.request(a.auth.status, {});
        },
      },
    );
  }
  list.sort((x, y) => x.name.localeCompare(y.name));
  return list.map((sc) => ({
    ...sc,
    agent: (sdk, shared) => makeAgent(sdk, shared, unstable),
    client: (sdk, shared) => makeClient(sdk, shared, unstable),
  }));
}
