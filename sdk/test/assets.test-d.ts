// Type tests of the asset API (tsc --noEmit compiles this; nothing runs):
// the original SDK's signatures, kept so its apps compile unchanged.
import type { JsonValue, PedelecSession, ReadAssetType, SandboxAsset, SandboxAssetPath } from "../src/index.js";

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const expectType = <T extends true>(_: T) => {};

declare const session: PedelecSession;
declare const file: File;

export async function typed() {
  expectType<Equal<Awaited<ReturnType<typeof session.uploadAsset>>, SandboxAssetPath>>(true);
  const path: SandboxAssetPath = await session.uploadAsset(file, "/inputs/data.csv");
  await session.uploadAsset(file);
  // @ts-expect-error target paths start with "/"
  await session.uploadAsset(file, "inputs/data.csv");
  const list: SandboxAsset[] = await session.listAssets();
  expectType<Equal<SandboxAsset, { name: string; path: SandboxAssetPath; sizeBytes: number; modifiedAt: number }>>(true);
  expectType<Equal<Awaited<ReturnType<typeof session.readAsset<JsonValue>>>, JsonValue>>(true);
  const text: string = await session.readAsset(path, "text");
  const json = await session.readAsset<{ ok: boolean }>("/results/result.json", "json");
  const ok: boolean = json.ok;
  const untyped: JsonValue = await session.readAsset("/a.json", "json");
  const f: File = await session.readAsset("/model.glb", "file");
  // @ts-expect-error only text, json or file
  await session.readAsset("/a", "yaml");
  const t: ReadAssetType = "file";
  return [list, text, ok, untyped, f, t];
}
