// State the SDK's copies in one page share: the classic script
// (webmcp.js, run before the page's own scripts) and the module
// (pedelec.js) each bundle the webmcp/ files, and what one records (a
// registration, a tool of the SDK's own) the other must see.

/** The one value for key in this page, made by the first copy that asks. */
export function pageShared<T>(key: string, make: () => T): T {
  const sym = Symbol.for(`pedelec.webmcp.${key}`);
  const g = globalThis as unknown as Record<symbol, T | undefined>;
  let v = g[sym];
  if (v === undefined) {
    v = make();
    Object.defineProperty(globalThis, sym, { value: v, configurable: false, enumerable: false, writable: false });
  }
  return v;
}
