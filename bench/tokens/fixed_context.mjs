// fixed_context.mjs — the fixed context of a code-mode server: what an agent reads before it
// writes its first program, tools/list plus the start_code_mode prompt, in o200k_base tokens
// (gpt-tokenizer 4.0.0), counted exactly as run.mjs counts them (each tool's name, description
// and inputSchema as JSON; each prompt message's text). Issue 26 caps it at 1,000 tokens on every
// surface whatever the size of the schema.
//
//   node bench/tokens/fixed_context.mjs --sluice BIN --config FILE [--env K=V ...]
// prints {"tools": n, "prompt": n, "total": n, ..., "startup_ms": n, "peak_rss_kib": n}. As a module: fixedContext(bin, config, env).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";

const require = createRequire(new URL("../../tests/node/package.json", import.meta.url));
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
const { countTokens } = require("gpt-tokenizer/encoding/o200k_base");

export const FIXED_CONTEXT_LIMIT = 1000;

export const toolsText = (tools) =>
  JSON.stringify(tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })));

export const promptText = (prompt) =>
  prompt.messages.map((m) => (m.content.type === "resource" ? m.content.resource.text : m.content.text)).join("\n");

// Connects, reads tools/list and the start prompt (with no question), and closes. Also the
// server's start-up (spawn to initialized, ms) and its peak RSS by then (VmHWM, KiB): a large
// spec must not cost the server its memory (issue 26: 200 MB for GitHub's 10 MB spec before).
export async function fixedContext(bin, config, env) {
  const transport = new StdioClientTransport({ command: bin, args: ["serve", "-c", config, "--stdio"],
                                               stderr: "pipe", env: { ...process.env, ...env } });
  let log = "";
  transport.stderr?.on("data", (d) => (log += d));
  const client = new Client({ name: "fixed-context", version: "1.0.0" }, { capabilities: {} });
  try {
    const started = performance.now();
    await client.connect(transport);
    const startupMs = Math.round(performance.now() - started);
    const { tools } = await client.listTools();
    // a server without code mode (query mode alone) has no start prompt: its tools are all of it
    const prompts = client.getServerCapabilities()?.prompts ? (await client.listPrompts()).prompts : [];
    const prompt = prompts.some((x) => x.name === "start_code_mode")
      ? await client.getPrompt({ name: "start_code_mode", arguments: {} }) : { messages: [] };
    const t = countTokens(toolsText(tools));
    const p = countTokens(promptText(prompt));
    const peakKiB = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${transport.pid}/status`, "utf8"))?.[1]);
    return { tools: t, prompt: p, total: t + p, toolNames: tools.map((x) => x.name), promptText: promptText(prompt),
             startupMs, peakKiB };
  } catch (e) {
    throw new Error(`${config}: ${e.message}\n${log}`);
  } finally {
    await client.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values: opt } = parseArgs({ options: { sluice: { type: "string" }, config: { type: "string" },
                                                 env: { type: "string", multiple: true }, show: { type: "boolean" } } });
  const env = Object.fromEntries((opt.env ?? []).map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]));
  const r = await fixedContext(opt.sluice, opt.config, env);
  if (opt.show) process.stderr.write(r.promptText + "\n");
  console.log(JSON.stringify({ tools: r.tools, prompt: r.prompt, total: r.total, toolNames: r.toolNames,
                               startup_ms: r.startupMs, peak_rss_kib: r.peakKiB }));
}
