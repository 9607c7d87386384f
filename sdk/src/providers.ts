// The original SDK's provider view of Core's list_providers answer:
// ProviderInfo {name, code, available, error} and PedelecSettings.

import { ORIGINAL_PROVIDER_CODES, PROVIDER_TITLES } from "./providers.gen.js";
import type { AnyProviderCode, PedelecSettings, ProviderCode, ProviderDetails, ProviderInfo, ProviderList } from "./types.js";

/** Whether code is one of the original SDK's six. */
export function isOriginalProvider(code: string): code is ProviderCode {
  return (ORIGINAL_PROVIDER_CODES as readonly string[]).includes(code);
}

// Names for a picker, generated from Core's registry. Core reports codes; a
// code not listed (a Core newer than this SDK) is shown as it is.
export function displayName(code: string): string {
  return Object.prototype.hasOwnProperty.call(PROVIDER_TITLES, code) ? PROVIDER_TITLES[code as AnyProviderCode] : code;
}

export function providerInfo(p: ProviderDetails): ProviderInfo<AnyProviderCode> {
  return {
    name: displayName(p.name),
    code: p.name as AnyProviderCode,
    available: p.available === true,
    error: p.available ? null : p.reason || "not available",
  };
}

/** What a page not approved yet may know of the providers: their names. */
export function unapprovedProviders(origin: string | null): ProviderList {
  const reason = `this site${origin ? ` (${origin})` : ""} is not approved to use Pedelec Core yet: createSession() asks the user, and once approved listProviders() says which providers run here`;
  return { providers: (Object.keys(PROVIDER_TITLES) as AnyProviderCode[]).map((name) => ({ name, available: false, reason })), defaultProvider: "" };
}

/** The settings, of every provider (all) or of the original's six only. */
export function settingsFrom(list: ProviderList, all: boolean): PedelecSettings<AnyProviderCode> {
  const keep = (code: string) => all || isOriginalProvider(code);
  const defaultModels: Partial<Record<AnyProviderCode, string>> = {};
  for (const p of list.providers) {
    if (p.defaultModel && keep(p.name)) defaultModels[p.name as AnyProviderCode] = p.defaultModel;
  }
  const def = list.defaultProvider && keep(list.defaultProvider) ? (list.defaultProvider as AnyProviderCode) : null;
  return { defaultProvider: def, defaultModels };
}
