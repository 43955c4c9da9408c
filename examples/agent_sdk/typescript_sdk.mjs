// The official TypeScript Claude Agent SDK (npm install @anthropic-ai/claude-agent-sdk zod),
// unchanged, with loopwright as its engine: pathToClaudeCodeExecutable names the loopwright
// console script.
//
//   LOOPWRIGHT_MODEL=openai:gpt-5.5 node examples/agent_sdk/typescript_sdk.mjs
//
// It gives the model an in-process tool (an SDK MCP server) and asks this program
// (canUseTool) about every call that is not read-only.
import { execFileSync } from "node:child_process";
import { query, tool, createSdkMcpServer } from "@anthropic-ai/claude-agent-sdk";
import { z } from "zod";

const loopwright =
  process.env.LOOPWRIGHT_CLI || execFileSync("which", ["loopwright"]).toString().trim();

const wordCount = tool("word_count", "Count the words in a text", { text: z.string() }, async ({ text }) => ({
  content: [{ type: "text", text: String(text.split(/\s+/).filter(Boolean).length) }],
}));

async function* prompt(text) {
  // canUseTool needs streaming input: the control channel stays open for its questions.
  yield { type: "user", message: { role: "user", content: text }, parent_tool_use_id: null };
}

for await (const message of query({
  prompt: prompt("How many words are in 'the quick brown fox'?"),
  options: {
    pathToClaudeCodeExecutable: loopwright,
    mcpServers: { text: createSdkMcpServer({ name: "text", tools: [wordCount] }) },
    canUseTool: async (name, input) =>
      name === "Bash" && String(input.command).startsWith("rm ")
        ? { behavior: "deny", message: "this program never lets the agent delete files" }
        : { behavior: "allow", updatedInput: input },
  },
})) {
  if (message.type === "assistant") {
    for (const block of message.message.content) if (block.type === "text") console.log(block.text);
  } else if (message.type === "result") {
    console.log(`[${message.subtype}, ${message.num_turns} turns]`);
  }
}
