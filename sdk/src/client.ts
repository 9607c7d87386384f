// The entry point a page constructs: one connection to Core, the methods
// that do not belong to a session, and the factories for sessions. Its
// public shape is the original SDK's Pedelec class; where the original
// talked to a browser extension and a desktop app, this talks to Core
// (`pedelec serve`), and docs/compat.md maps each method's meaning.

import { Connection, DEFAULT_RESPONSE_TIMEOUT_MS, type ReachabilityProbe, type SocketFactory, type SocketLike } from "./client/connection.js";
import type { CreateSessionParams, OriginApprovalStatus, SessionInfo } from "./client/protocol.gen.js";
import type { KeyStore } from "./client/core-identity.js";
import { DEFAULT_RECONNECT, Reconnector, worthRetrying, type ReconnectOptions } from "./client/reconnect.js";
import { resolveUrl } from "./client/url.js";
import { PedelecError } from "./errors.js";
import { checkedManifest } from "./manifest.js";
import { displayName, isOriginalProvider, providerInfo, settingsFrom, unapprovedProviders } from "./providers.js";
import { PedelecSession, type SessionInit } from "./session.js";
import { carriedCalls, follow, followedSession, forgetFollowed, FOLLOW_GRACE_MS } from "./follow.js";
import { attachPageTools } from "./page-tools.js";
import { exposeToBrowser as exposeToBrowserAgent } from "./webmcp/expose.js";
import { installModelContext, webmcpReady } from "./webmcp/install.js";
import { currentWebMCPTools, manifestOf } from "./webmcp/link.js";
import { refusedTools } from "./webmcp/tools.js";
import type {
  AnyProviderCode,
  AnyToolDefinition,
  ApprovalPending,
  ApprovalStatus,
  CreateSessionInput,
  JsonValue,
  PedelecAvailability,
  PedelecOptions,
  PedelecSettings,
  ProviderInfo,
  ProviderList,
  ProviderListOptions,
  ResumeSessionOptions,
  ToolDefinition,
  ToolNameOf,
} from "./types.js";

/** @internal Options tests use to run the SDK without a browser. */
type InternalOptions = PedelecOptions & {
  socketFactory?: SocketFactory;
  probe?: ReachabilityProbe;
  moduleUrl?: string;
  reconnect?: Partial<ReconnectOptions>;
  keyStore?: KeyStore;
};

function browserSocket(url: string): SocketLike {
  if (typeof WebSocket === "undefined") {
    throw new PedelecError("CORE_UNREACHABLE", "This environment has no WebSocket; Pedelec's SDK runs in a browser");
  }
  return new WebSocket(url) as unknown as SocketLike;
}

function thisModuleUrl(): string | undefined {
  try {
    return import.meta.url;
  } catch {
    return undefined;
  }
}

/** Imported as …/sdk/pedelec.js?providers=all: list every provider by default. */
function moduleAsksAllProviders(moduleUrl: string | undefined): boolean {
  if (!moduleUrl) return false;
  try {
    return new URL(moduleUrl).searchParams.get("providers") === "all";
  } catch {
    return false;
  }
}

function pageOrigin(): string | null {
  return typeof location !== "undefined" && location.origin && location.origin !== "null" ? location.origin : null;
}

/**
 * The manifest with the page's WebMCP tools added (webmcp: true), and
 * what was sent, for the session to follow changes from. The polyfill is
 * installed (or a native modelContext observed) from here on at the
 * latest. A WebMCP tool the session cannot offer rejects createSession
 * with INVALID_INPUT naming it and the keyword.
 */
function withWebMCP(manifest: JsonValue, defined: readonly AnyToolDefinition[]): { manifest: JsonValue; sent: JsonValue[] } {
  installModelContext();
  const { offered, refused } = currentWebMCPTools(defined);
  if (refused.length > 0) throw refusedTools(refused);
  const m = manifest as { guidance: string; tools: JsonValue[] };
  const sent = [...m.tools, ...manifestOf(offered.map((c) => (c as { def: AnyToolDefinition }).def))];
  return { manifest: { guidance: m.guidance, tools: sent }, sent };
}

function browserError(tool: string, err: unknown): PedelecError {
  const why = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return new PedelecError("INVALID_INPUT", `The browser's document.modelContext refused Pedelec tool ${JSON.stringify(tool)}: ${why}`, { tool });
}

function invalid(message: string, path: string): PedelecError {
  return new PedelecError("INVALID_INPUT", message, { problems: [{ path, message }] });
}

export class Pedelec {
  /** Pedelec Core addition: Core's WebSocket URL this client talks to. */
  readonly url: string;
  private readonly connection: Connection;
  private readonly sessions = new Set<PedelecSession<string, readonly AnyToolDefinition[]>>();
  private readonly reconnector: Reconnector;
  private closed = false;
  private readonly onApprovalPending?: (pending: ApprovalPending) => void;
  /** The approval this client waits for, shared by concurrent calls. */
  private approval: Promise<void> | null = null;
  /** The approval window that wait is for, once Core named it. */
  private pending: ApprovalPending | null = null;
  /** resumeSession() calls in flight, by session id: a second one shares the first's handle. */
  private readonly resuming = new Map<string, Promise<PedelecSession<string, readonly AnyToolDefinition[]>>>();
  /** listProviders()/getSettings() report every provider, not only the original's six. */
  private readonly allProviders: boolean;

  /**
   * Connects lazily: nothing is sent until the first call. With no options
   * it reaches Core at its default address (or the Core that served this
   * module).
   */
  constructor(options?: PedelecOptions) {
    const opts = (options ?? {}) as InternalOptions;
    const moduleUrl = opts.moduleUrl ?? thisModuleUrl();
    this.url = resolveUrl(opts.url, moduleUrl);
    this.allProviders = opts.providers === "all" || (opts.providers === undefined && moduleAsksAllProviders(moduleUrl));
    const timeout = opts.bridgeTimeoutMs;
    const timeoutMs = typeof timeout === "number" && !Number.isNaN(timeout) ? Math.max(1, timeout) : DEFAULT_RESPONSE_TIMEOUT_MS;
    this.connection = new Connection(this.url, opts.socketFactory ?? browserSocket, opts.probe, timeoutMs, opts.keyStore);
    this.onApprovalPending = typeof opts.onApprovalPending === "function" ? opts.onApprovalPending : undefined;
    // When the connection drops, every session waits in a reconnecting
    // state and the client retries with backoff until Core is back, then
    // resumes each one from the last event it handled.
    this.reconnector = new Reconnector(
      async () => {
        if (this.sessions.size === 0) return "done";
        // The resume asks for approval first, as resumeSession() does: the
        // Core that is back may not approve this origin any more (restarted
        // without the --allow-origin that did), and Core would hold the
        // resume without anyone telling the user.
        const approved = await this.reconnectApproval();
        if (approved !== "approved") return approved;
        const outcomes = await Promise.all([...this.sessions].map((s) => s.resumeAfterReconnect()));
        return outcomes.includes("retry") ? "retry" : "done";
      },
      () => {
        const err = new PedelecError("CORE_UNREACHABLE", `Pedelec Core at ${this.url} did not come back; the session was given up`);
        for (const session of [...this.sessions]) session.reconnectFailed(err);
      },
      { ...DEFAULT_RECONNECT, ...opts.reconnect },
    );
    this.connection.onClose((err) => {
      if (this.closed || this.sessions.size === 0) return;
      for (const session of [...this.sessions]) session.connectionLost(err);
      this.reconnector.start();
    });
  }

  /**
   * The providers, available or not: {name, code, available, error}. Only
   * the original SDK's six codes unless asked for all: `{all: true}`
   * (Pedelec Core addition) adds Core's own (script, openai, ...), typed
   * AnyProviderCode, so code written for the six never meets another.
   */
  listProviders(): Promise<ProviderInfo[]>;
  listProviders(options: ProviderListOptions & { all: true }): Promise<ProviderInfo<AnyProviderCode>[]>;
  listProviders(options?: ProviderListOptions): Promise<ProviderInfo<AnyProviderCode>[]>;
  async listProviders(options?: ProviderListOptions): Promise<ProviderInfo<AnyProviderCode>[]> {
    const all = options?.all ?? this.allProviders;
    const list = await this.listProviderDetails();
    return list.providers.filter((p) => all || isOriginalProvider(p.name)).map(providerInfo);
  }

  /**
   * Pedelec Core addition: Core's whole answer: each provider's version,
   * path, reason, default model and description, and the default provider.
   */
  async listProviderDetails(): Promise<ProviderList> {
    // Asking about providers is no reason to ask the user about the site:
    // a page not approved yet gets at once what it may know (every
    // provider, none usable until createSession() asks and the user
    // approves), never an approval window.
    if ((await this.approvalAnswer()).approved !== true) return unapprovedProviders(pageOrigin());
    const result = await this.connection.request("list_providers", {});
    if (typeof result !== "object" || result === null || !Array.isArray(result.providers)) {
      throw new PedelecError("SDK_PROTOCOL_ERROR", "Pedelec Core answered list_providers without a providers list", { result });
    }
    return { providers: result.providers, defaultProvider: typeof result.defaultProvider === "string" ? result.defaultProvider : "" };
  }

  /**
   * The defaults Core's configuration gives: the default provider and each
   * provider's default model, of the original's six providers unless asked
   * for all (`{all: true}`, Pedelec Core addition): a default that is one of
   * Core's own providers is then null, as "no default" (createSession()
   * without a provider still uses it).
   */
  getSettings(): Promise<PedelecSettings>;
  getSettings(options: ProviderListOptions & { all: true }): Promise<PedelecSettings<AnyProviderCode>>;
  getSettings(options?: ProviderListOptions): Promise<PedelecSettings<AnyProviderCode>>;
  async getSettings(options?: ProviderListOptions): Promise<PedelecSettings<AnyProviderCode>> {
    return settingsFrom(await this.listProviderDetails(), options?.all ?? this.allProviders);
  }

  /**
   * Whether this page may use Core. Never rejects because Core is down or
   * refuses the origin: those are answers ({installed: false} or
   * {approved: false}). Other failures reject.
   */
  async getApprovalStatus(): Promise<ApprovalStatus> {
    const origin = pageOrigin();
    try {
      const answer = await this.approvalAnswer();
      return { installed: true, approved: answer.approved === true, origin, appConnected: true };
    } catch (err) {
      const e = PedelecError.from(err);
      // Core is there and says no (this origin, or the name this page used).
      if (e.code === "ORIGIN_NOT_ALLOWED" || e.code === "HOST_NOT_ALLOWED") return { installed: true, approved: false, origin, appConnected: true };
      if (e.code === "CORE_UNREACHABLE") return { installed: false, approved: false, origin, appConnected: false };
      throw e;
    }
  }

  /**
   * Checks every layer without creating anything: Core answers, this
   * origin is allowed, and (only then) Core answers a settings request.
   * Never rejects; a failure is in `error`.
   */
  async checkAvailability(): Promise<PedelecAvailability> {
    const origin = pageOrigin();
    const result: PedelecAvailability = {
      available: false,
      extension: { available: false },
      approval: { approved: false, origin },
      desktop: { available: false, launchAttempted: false },
    };
    try {
      const answer = await this.approvalAnswer();
      result.extension.available = true;
      result.approval.approved = answer.approved === true;
    } catch (err) {
      const e = PedelecError.from(err);
      result.error = e;
      result.extension.available = e.code === "ORIGIN_NOT_ALLOWED" || e.code === "HOST_NOT_ALLOWED" || (await this.connection.look()) === "core";
      return result;
    }
    if (!result.approval.approved) {
      result.error = new PedelecError("CREATE_SESSION_NOT_APPROVED", `This origin (${origin}) is not approved to use Pedelec Core yet: createSession() asks the user`, { origin });
      return result;
    }
    result.desktop.launchAttempted = true;
    try {
      await this.getSettings();
      result.desktop.available = true;
      result.available = true;
    } catch (err) {
      result.error = PedelecError.from(err);
    }
    return result;
  }

  /**
   * Creates a session. With no provider, Core's default provider (and its
   * default model); DEFAULT_PROVIDER_NOT_SET when there is none,
   * DEFAULT_PROVIDER_UNAVAILABLE when it cannot run here. A model without a
   * provider is INVALID_INPUT. The tool definitions are checked here first,
   * and any problem rejects with INVALID_INPUT (details.problems lists every
   * one) before anything is sent. Handlers stay in the page.
   */
  createSession(): Promise<PedelecSession<string>>;
  createSession<const TTools extends readonly AnyToolDefinition[]>(
    input: CreateSessionInput<TTools, AnyProviderCode>,
  ): Promise<PedelecSession<ToolNameOf<TTools>, TTools>>;
  async createSession<const TTools extends readonly AnyToolDefinition[]>(
    input?: CreateSessionInput<TTools, AnyProviderCode>,
  ): Promise<PedelecSession<ToolNameOf<TTools>, TTools>> {
    if (input !== undefined && (typeof input !== "object" || input === null || Array.isArray(input))) {
      throw invalid("createSession(input): input must be an object such as {provider, model, skills, autoEndOnDisconnect}", "(root)");
    }
    const { provider, model, skills, autoEndOnDisconnect, webmcp, exposeToBrowser, followPage } = (input ?? {}) as {
      provider?: unknown;
      model?: unknown;
      skills?: unknown;
      autoEndOnDisconnect?: unknown;
      webmcp?: unknown;
      exposeToBrowser?: unknown;
      followPage?: unknown;
    };
    if (provider !== undefined && (typeof provider !== "string" || provider === "")) {
      throw invalid("createSession: provider must be a provider code such as \"codex\" (see listProviders())", "provider");
    }
    if (model !== undefined && typeof model !== "string") throw invalid("createSession: model must be a string", "model");
    if (model !== undefined && provider === undefined) {
      throw invalid("createSession: model needs a provider: a model name only means something to one provider; pass {provider, model}", "model");
    }
    if (autoEndOnDisconnect !== undefined && typeof autoEndOnDisconnect !== "boolean") {
      throw invalid("createSession: autoEndOnDisconnect must be a boolean", "autoEndOnDisconnect");
    }
    if (webmcp !== undefined && typeof webmcp !== "boolean") throw invalid("createSession: webmcp must be a boolean", "webmcp");
    if (exposeToBrowser !== undefined && typeof exposeToBrowser !== "boolean") throw invalid("createSession: exposeToBrowser must be a boolean", "exposeToBrowser");
    if (followPage !== undefined && typeof followPage !== "boolean") throw invalid("createSession: followPage must be a boolean", "followPage");
    if (followPage === true && autoEndOnDisconnect === false) {
      throw invalid("createSession: followPage ends the session when the tab closes for good, which autoEndOnDisconnect: false would not; leave autoEndOnDisconnect out", "followPage");
    }
    const manifest = checkedManifest(skills === undefined ? { guidance: "", tools: [] } : skills);
    const defined = ((skills as { tools?: readonly AnyToolDefinition[] } | undefined)?.tools ?? []) as readonly AnyToolDefinition[];
    if (webmcp === true) await webmcpReady();
    const web = webmcp === true ? withWebMCP(manifest, defined) : null;
    if (followPage === true) {
      // The previous page of this tab had a session: this page continues it.
      const resumed = await this.resumeFollowed(defined as TTools, webmcp === true);
      if (resumed) return resumed as unknown as PedelecSession<ToolNameOf<TTools>, TTools>;
    }
    await this.ensureApproved();
    const params: CreateSessionParams = { skills: web?.manifest ?? manifest };
    if (provider !== undefined) {
      params.provider = provider;
      if (model) params.model = model;
    } else {
      const list = await this.listProviderDetails();
      const name = list.defaultProvider;
      if (!name) {
        throw new PedelecError("DEFAULT_PROVIDER_NOT_SET", "Pedelec Core has no default provider: pass {provider} to createSession, or set default_provider in Core's config file", {});
      }
      const entry = list.providers.find((p) => p.name === name);
      if (!entry?.available) {
        const reason = entry?.reason ?? "Core does not know it";
        throw new PedelecError(
          "DEFAULT_PROVIDER_UNAVAILABLE",
          `Core's default provider ${displayName(name)} (${name}) is not available: ${reason}. Pass another {provider} (see listProviders()) or change default_provider in Core's config file`,
          { provider: name, reason },
        );
      }
      params.provider = name;
      if (entry.defaultModel) params.model = entry.defaultModel;
    }
    if (autoEndOnDisconnect !== undefined) params.autoEndOnDisconnect = autoEndOnDisconnect;
    if (followPage === true) {
      params.autoEndOnDisconnect = true;
      params.disconnectGraceMs = FOLLOW_GRACE_MS;
    }
    const info = await this.connection.request("create_session", params);
    const trusted = this.connection.trustCore(); // Core approved this page: remember its key
    const session = this.track(info, defined as TTools);
    attachPageTools(session as never, defined, web?.sent ?? (manifest as { tools: JsonValue[] }).tools, web !== null);
    if (exposeToBrowser !== false) exposeToBrowserAgent(session, defined, browserError);
    if (followPage === true && session.getStatus() !== "ended") follow(session as never, this.url, null);
    await trusted;
    return session;
  }

  /**
   * The session this tab followed from its previous page, resumed with
   * this page's tools, or null when there is none or it ended meanwhile.
   */
  private async resumeFollowed<TTools extends readonly AnyToolDefinition[]>(defined: TTools, webmcp: boolean): Promise<PedelecSession<string, TTools> | null> {
    const stored = followedSession(this.url);
    if (!stored) return null;
    const held = [...this.sessions].find((s) => s.sessionId === stored.sessionId && s.getStatus() !== "ended");
    if (held) return held as unknown as PedelecSession<string, TTools>; // StrictMode's second createSession
    const carried = carriedCalls(stored);
    try {
      const session = await this.resumeRouted(stored.sessionId, { tools: defined, webmcp }, carried.route, stored.seq);
      if (session.getStatus() !== "ended") {
        follow(session as never, this.url, carried);
        return session;
      }
    } catch (err) {
      const e = PedelecError.from(err);
      if (e.code !== "SESSION_ENDED" && e.code !== "THREAD_NOT_FOUND") throw e;
    }
    forgetFollowed(this.url, stored.sessionId);
    return null;
  }

  /**
   * Attaches to an existing session (after a reload, with
   * autoEndOnDisconnect: false). Register the handlers again right after it
   * resolves, or pass the same tool definitions to restore their inline
   * handlers (a Pedelec Core addition): calls still pending in Core are
   * delivered again.
   */
  async resumeSession<const TTools extends readonly AnyToolDefinition[] = readonly ToolDefinition[]>(
    sessionId: string,
    options?: ResumeSessionOptions<TTools>,
  ): Promise<PedelecSession<string, TTools>> {
    return this.resumeRouted(sessionId, options, undefined);
  }

  /** resumeSession, with the router follow.ts gives for the calls the previous page was running. */
  private async resumeRouted<const TTools extends readonly AnyToolDefinition[] = readonly ToolDefinition[]>(
    sessionId: string,
    options: ResumeSessionOptions<TTools> | undefined,
    router: SessionInit["router"],
    followedSeq?: number,
  ): Promise<PedelecSession<string, TTools>> {
    if (typeof sessionId !== "string" || sessionId === "") {
      throw invalid("resumeSession(sessionId): sessionId must be a non-empty string", "sessionId");
    }
    if (options?.webmcp !== undefined && typeof options.webmcp !== "boolean") throw invalid("resumeSession: options.webmcp must be a boolean", "webmcp");
    const defined = (options?.tools ?? []) as TTools;
    if (options?.webmcp) withWebMCP(checkedManifest({ guidance: "", tools: defined }), defined); // refused tools reject here, before anything is sent
    // The same handle for a session this client holds (or is resuming), as
    // the original: React StrictMode runs an effect twice, and a second
    // handle would take the session's events from the first, whose
    // sendText would then never settle.
    const held = [...this.sessions].find((s) => s.sessionId === sessionId && s.getStatus() !== "ended");
    if (held) return held as unknown as PedelecSession<string, TTools>;
    const inFlight = this.resuming.get(sessionId);
    if (inFlight) return (await inFlight) as unknown as PedelecSession<string, TTools>;
    const resumed = (async () => {
      await this.ensureApproved();
      // The next page of a session that follows the page: the events after
      // the last one the previous page handled (what the agent did while
      // no page was loaded), then the calls that page was running.
      const followed = typeof followedSeq === "number" && Number.isSafeInteger(followedSeq) && followedSeq >= 0;
      const info = await this.connection.request("resume_session", followed ? { sessionId, lastSeq: followedSeq, redeliver: true } : { sessionId });
      const trusted = this.connection.trustCore();
      const session = this.track(info, defined, router);
      // Core's list is the one before the reload. With webmcp, or when
      // following the page (router), the page's list replaces it now; a
      // plain resume keeps it until the page changes its tools (addTool).
      const replace = options?.webmcp === true || router !== undefined;
      if (session.getStatus() !== "ended") attachPageTools(session as never, defined, replace ? null : manifestOf(defined), options?.webmcp === true);
      await trusted;
      return session as unknown as PedelecSession<string, readonly AnyToolDefinition[]>;
    })();
    this.resuming.set(sessionId, resumed);
    try {
      return (await resumed) as unknown as PedelecSession<string, TTools>;
    } finally {
      this.resuming.delete(sessionId);
    }
  }

  /**
   * Sends one request of Core's WebSocket protocol (docs/protocol.md) and
   * resolves with its result. `T` is not checked. Prefer the typed methods.
   * For the original's `request("create_session", {input})`, the input is
   * unwrapped into Core's parameters.
   */
  async request<T>(type: string, payload?: Record<string, unknown>): Promise<T> {
    if (typeof type !== "string" || type === "") throw invalid("request(type, payload): type must be a method name such as \"list_providers\"", "type");
    // The original's operations that are methods of this client, not
    // requests Core answers as the original's bridge did.
    if (type === "get_settings") return (await this.getSettings()) as T;
    if (type === "get_approval_status") return (await this.getApprovalStatus()) as T;
    let params: Record<string, unknown> = payload ?? {};
    const input = params.input;
    if (type === "create_session" && Object.keys(params).length === 1 && typeof input === "object" && input !== null) {
      params = { ...(input as Record<string, unknown>) };
      if (params.skills === undefined) params.skills = { guidance: "", tools: [] };
    }
    return this.connection.send<T>(type, params);
  }

  /** get_approval_status; a Core from before approvals that answers at all approved the origin. */
  private async approvalAnswer(): Promise<OriginApprovalStatus> {
    try {
      return await this.connection.request("get_approval_status", {});
    } catch (err) {
      if (PedelecError.from(err).code === "UNKNOWN_METHOD") return { approved: true, origin: pageOrigin() ?? "" };
      throw err;
    }
  }

  /**
   * Waits until this page's origin may use Core. An origin Core does not
   * know yet asks the user: the approval window opens (window.open; the
   * call usually follows a click, so the browser lets it), and the call
   * waits for the decision (concurrent calls share one wait):
   * APPROVAL_REJECTED, APPROVAL_TIMEOUT. A blocked window is reported to
   * onApprovalPending (and the console) as OPEN_POPUP_FAILED with the URL,
   * and the call keeps waiting. A reconnect's resume waits here too, with
   * no click before it, so its window is usually the blocked kind.
   */
  private ensureApproved(): Promise<void> {
    if (!this.approval) {
      this.approval = this.waitForApproval().finally(() => {
        this.approval = null;
        this.pending = null;
      });
    }
    return this.approval;
  }

  private async waitForApproval(): Promise<void> {
    let answer: OriginApprovalStatus;
    try {
      answer = await this.connection.request("request_approval", {});
    } catch (err) {
      // A Core from before approvals gates origins at the connection.
      if (PedelecError.from(err).code === "UNKNOWN_METHOD") return;
      throw err;
    }
    if (answer.approved || !answer.requestId || !answer.url) return;
    const pending: ApprovalPending = { origin: answer.origin, requestId: answer.requestId, url: answer.url };
    let popup: unknown = null;
    try {
      popup = typeof window !== "undefined" && typeof window.open === "function" ? window.open(answer.url, "pedelec-approval-" + answer.requestId, "popup,width=520,height=560") : null;
    } catch {
      popup = null;
    }
    if (!popup) {
      pending.error = new PedelecError(
        "OPEN_POPUP_FAILED",
        `The browser blocked Pedelec's approval window. Open ${answer.url} to decide, or run \`pedelec approve ${answer.origin}\`; this call keeps waiting`,
        { url: answer.url, origin: answer.origin, requestId: answer.requestId },
      );
      if (typeof console !== "undefined") console.warn(pending.error.message);
    }
    this.pending = pending;
    try {
      this.onApprovalPending?.(pending);
    } catch {
      // a listener's failure is not the approval's
    }
    // Sessions waiting to resume after a reconnect wait on this too.
    this.tellSessions(pending);
    // The user's time to decide, not the bridge timeout: Core answers
    // await_approval only when the user decided or the request expired.
    const waitMs = (answer.timeoutMs ?? 120_000) + 30_000;
    await this.connection.request("await_approval", {}, waitMs);
  }

  /**
   * The approval step of a reconnect. While the user decides, the sessions
   * say so (status waiting_approval, still reconnecting); a rejection or a
   * timeout ends them with that error; a Core still away is retried.
   */
  private async reconnectApproval(): Promise<"approved" | "done" | "retry"> {
    const waiting = this.ensureApproved();
    // Joined a wait that a createSession() started: its window is known.
    if (this.pending) this.tellSessions(this.pending);
    try {
      await waiting;
      return "approved";
    } catch (err) {
      const e = PedelecError.from(err);
      if (worthRetrying(e)) {
        for (const session of [...this.sessions]) session.approvalInterrupted();
        return "retry";
      }
      for (const session of [...this.sessions]) session.approvalFailed(e);
      return "done";
    }
  }

  private tellSessions(pending: ApprovalPending) {
    for (const session of [...this.sessions]) session.approvalPending(pending);
  }

  /**
   * Pedelec Core addition: forgets the Core this page trusts. The page
   * remembers the key of the Core that first approved it and refuses any
   * other (CORE_NOT_AUTHENTIC); after Core's state directory was reset on
   * purpose, call this once, and the next connection trusts the Core it
   * finds, as the first one did.
   */
  forgetCore(): void {
    this.connection.identity.forget();
  }

  /** Pedelec Core addition: closes the connection; sessions with autoEndOnDisconnect end. */
  close(): void {
    this.closed = true;
    this.reconnector.stop();
    for (const session of [...this.sessions]) session.clientClosed();
    this.connection.close();
  }

  private track<TTools extends readonly AnyToolDefinition[]>(info: SessionInfo, tools: TTools, router?: SessionInit["router"]): PedelecSession<ToolNameOf<TTools>, TTools> {
    let session: PedelecSession<string, readonly AnyToolDefinition[]> | undefined = undefined;
    const s = new PedelecSession<ToolNameOf<TTools>, TTools>({
      connection: this.connection,
      info,
      tools,
      router,
      onForget: () => {
        if (session) this.sessions.delete(session);
      },
    });
    session = s as unknown as PedelecSession<string, readonly AnyToolDefinition[]>;
    if (s.getStatus() !== "ended") this.sessions.add(session);
    return s;
  }
}
