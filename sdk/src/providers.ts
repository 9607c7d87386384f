// The original SDK's provider view of Core's list_providers answer:
// ProviderInfo {name, code, available, error} and PedelecSettings.

import { PROVIDER_TITLES } from "./providers.gen.js";
import type { PedelecSettings, ProviderCode, ProviderDetails, ProviderInfo, ProviderList } from "./types.js";

// Names for a picker, generated from Core's registry. Core reports codes; a
// code not listed (a Core newer than this SDK) is shown as it is.
export function displayName(code: string): string {
  return Object.prototype.hasOwnProperty.call(PROVIDER_TITLES, code) ? PROVIDER_TITLES[code as ProviderCode] : code;
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
