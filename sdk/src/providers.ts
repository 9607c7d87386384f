// The original SDK's provider view of Core's list_providers answer:
// ProviderInfo {name, code, available, error} and PedelecSettings.

import type { PedelecSettings, ProviderCode, ProviderDetails, ProviderInfo, ProviderList } from "./types.js";

// Names for a picker. Core reports codes; a code not listed here is shown as it is.
const DISPLAY_NAMES: Record<string, string> = {
  codex: "Codex",
  claude: "Claude Code",
  ollama: "Ollama",
  opencode: "opencode",
  cursor: "Cursor",
  antigravity: "Antigravity",
  openai: "OpenAI-compatible endpoint",
  script: "Script (deterministic, built in)",
  gemini: "Gemini CLI",
  copilot: "GitHub Copilot CLI",
  mcp: "MCP client",
};

export function displayName(code: string): string {
  return DISPLAY_NAMES[code] ?? code;
}

export function providerInfo(p: ProviderDetails): ProviderInfo {
  return {
    name: displayName(p.name),
    code: p.name as ProviderCode,
    available: p.available === true,
    error: p.available ? null : p.reason || "not available",
  };
}

export function settingsFrom(list: ProviderList): PedelecSettings {
  const defaultModels: Partial<Record<ProviderCode, string>> = {};
  for (const p of list.providers) {
    if (p.defaultModel) defaultModels[p.name as ProviderCode] = p.defaultModel;
  }
  return { defaultProvider: list.defaultProvider ? (list.defaultProvider as ProviderCode) : null, defaultModels };
}
