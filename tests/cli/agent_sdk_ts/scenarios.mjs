// SDK programs for the official TypeScript Claude Agent SDK, run with loopwright as the
// executable. Usage: node scenarios.mjs '<json config>'; prints one JSON line per message
// the SDK yields, then {"record": ...} lines with what the program saw.
import { query, tool, createSdkMcpServer } from "@anthropic-ai/claude-agent-sdk";
import { z } from "zod";

const config = JSON.parse(process.argv[2]);
const records = [];
const base = {
  pathToClaudeCodeExecutable: config.cli,
  model: config.model,
  cwd: config.cwd,
  env: { ...process.env, ...config.env },
  stderr: (text) => process.stderr.write(text),
};

async function* onePrompt(text) {
  yield { type: "user", message: { role: "user", content: text }, parent_tool_use_id: null };
}

const scenarios = {
  oneShot: () => query({ prompt: "say hello", options: base }),
  builtinTool: () => query({ prompt: "run it", options: { ...base, allowedTools: ["Bash"] } }),
  noTools: () => query({ prompt: "hi", options: { ...base, tools: [] } }),
  sdkMcp: () => {
    const add = tool("add", "Add two numbers", { a: z.number(), b: z.number() }, async (args) => {
      records.push({ called: args });
      return { content: [{ type: "text", text: String(args.a + args.b) }] };
    });
    const calc = createSdkMcpServer({ name: "calc", version: "1.0.0", tools: [add] });
    return query({
      prompt: "add",
      options: { ...base, mcpServers: { calc }, allowedTools: ["mcp__calc__add"] },
    });
  },
  canUseTool: () =>
    query({
      prompt: onePrompt("go"),
      options: {
        ...base,
        canUseTool: async (name, input) => {
          records.push({ asked: input.command });
          if (input.command.includes("first")) {
            return { behavior: "allow", updatedInput: { command: "echo rewritten" } };
          }
          return { behavior: "deny", message: "no second command today" };
        },
      },
    }),
  hook: () =>
    query({
      prompt: onePrompt("clean"),
      options: {
        ...base,
        allowedTools: ["Bash"],
        hooks: {
          PreToolUse: [
            {
              matcher: "Bash",
              hooks: [
                async (input) => {
                  records.push({ hookInput: input.tool_input });
                  return {
                    hookSpecificOutput: {
                      hookEventName: "PreToolUse",
                      permissionDecision: "deny",
                      permissionDecisionReason: "rm is not allowed here",
                    },
                  };
                },
              ],
            },
          ],
        },
      },
    }),
  maxTurns: () => query({ prompt: "go", options: { ...base, allowedTools: ["Bash"], maxTurns: 1 } }),
  partial: () =>
    query({ prompt: "go", options: { ...base, includePartialMessages: true, allowedTools: ["Bash"] } }),
  structured: () =>
    query({
      prompt: "what is six times seven",
      options: {
        ...base,
        outputFormat: {
          type: "json_schema",
          schema: { type: "object", properties: { answer: { type: "integer" } }, required: ["answer"] },
        },
      },
    }),
  interrupt: () => {
    // The input stays open until the result: a closed stdin could not carry the interrupt.
    let finished;
    const done = new Promise((resolve) => (finished = resolve));
    async function* input() {
      yield { type: "user", message: { role: "user", content: "start the long command" }, parent_tool_use_id: null };
      await done;
    }
    const q = query({ prompt: input(), options: { ...base, allowedTools: ["Bash"] } });
    return (async function* () {
      for await (const message of q) {
        yield message;
        if (message.type === "assistant") await q.interrupt();
        if (message.type === "result") finished();
      }
    })();
  },
  permissionMode: () => {
    let wake;
    const next = () => new Promise((resolve) => (wake = resolve));
    async function* input() {
      yield { type: "user", message: { role: "user", content: "write it" }, parent_tool_use_id: null };
      await next();
      yield { type: "user", message: { role: "user", content: "write it again" }, parent_tool_use_id: null };
    }
    const q = query({ prompt: input(), options: base });
    return (async function* () {
      let results = 0;
      for await (const message of q) {
        yield message;
        if (message.type === "result") {
          results += 1;
          if (results === 1) {
            await q.setPermissionMode("acceptEdits");
            wake();
          } else {
            break;
          }
        }
      }
    })();
  },
};

const run = scenarios[config.scenario];
if (!run) throw new Error(`unknown scenario ${config.scenario}`);
try {
  for await (const message of run()) console.log(JSON.stringify(message));
} catch (error) {
  records.push({ error: String(error.message || error) });
}
for (const record of records) console.log(JSON.stringify({ record }));
process.exitCode = 0; // not process.exit(): stdout to a pipe is written asynchronously
