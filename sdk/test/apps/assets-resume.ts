// Assets with resume, as written against the original SDK: a session that
// outlives the page, resumed after a reload, files in and out.
import { Pedelec, type PedelecSession, type SandboxAsset, type SandboxAssetPath, type ReadAssetType, type JsonValue } from "@kaoruisaac/pedelec";

const KEY = "pedelec-session";

export async function openSession(pedelec: Pedelec): Promise<PedelecSession> {
  const saved = localStorage.getItem(KEY);
  if (saved) {
    try {
      return await pedelec.resumeSession(saved);
    } catch {
      localStorage.removeItem(KEY);
    }
  }
  const session = await pedelec.createSession({ provider: "codex", autoEndOnDisconnect: false });
  localStorage.setItem(KEY, session.sessionId);
  return session;
}

export async function roundTrip(session: PedelecSession, file: File): Promise<{ path: SandboxAssetPath; listed: SandboxAsset[]; report: { ok: boolean }; raw: JsonValue; blob: File; text: string }> {
  const path = await session.uploadAsset(file, "/inputs/data.csv");
  await session.uploadAsset(file);
  const listed = await session.listAssets();
  const report = await session.readAsset<{ ok: boolean }>("/results/report.json", "json");
  const raw = await session.readAsset("/results/report.json", "json");
  const blob = await session.readAsset("/model.glb", "file");
  const kind: ReadAssetType = "text";
  const text = await session.readAsset("/report.txt", kind as "text");
  return { path, listed, report, raw, blob, text };
}

export function newest(assets: SandboxAsset[]): SandboxAsset | undefined {
  return [...assets].sort((a, b) => b.modifiedAt - a.modifiedAt || a.name.localeCompare(b.name))[0];
}
