// The entry point a page constructs: one connection to Core, the methods
// that do not belong to a session, and the factories for sessions.

import { Connection, type ReachabilityProbe, type SocketFactory, type SocketLike } from "./client/connection.js";
import type { SessionInfo } from "./client/protocol.js";
import { resolveUrl } from "./client/url.js";
import { PedelecError } from "./errors.js";
import { checkedManifest } from "./manifest.js";
import { PedelecSession } from "./session.js";
import type {
  AnyToolDefinition,
  CreateSessionOptions,
  PedelecOptions,
  ProviderList,
  ResumeSessionOptions,
} from "./types.js";

/** @internal Options tests use to run the SDK without a browser. */
type InternalOptions = PedelecOptions & { socketFactory?: SocketFactory; probe?: ReachabilityProbe; moduleUrl?: string };

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

export class Pedelec {
  /** Core's WebSocket URL this client talks to. */
  readonly url: string;
  private readonly connection: Connection;
  private readonly sessions = new Set<PedelecSession<readonly AnyToolDefinition[]>>();

  constructor(options: PedelecOptions = {}) {
    const opts = options as InternalOptions;
    this.url = resolveUrl(opts.url, opts.moduleUrl ?? thisModuleUrl());
    this.connection = new Connection(this.url, opts.socketFactory ?? browserSocket, opts.probe);
    this.connection.onClose((err) => {
      for (const session of [...this.sessions]) session.disconnected(err);
    });
  }

  /** The providers Core knows, available or not (with the reason), and the default one. */
  async listProviders(): Promise<ProviderList> {
    const result = await this.connection.request<ProviderList>("list_providers", {});
    return { providers: result.providers ?? [], defaultProvider: result.defaultProvider ?? "" };
  }

  /**
   * Creates a session. The tool definitions are checked here first, and any
   * problem rejects with INVALID_INPUT (details.problems lists every one)
   * before anything is sent. Handlers stay in the page.
   */
  async createSession<const TTools extends readonly AnyToolDefinition[]>(
    options: CreateSessionOptions<TTools>,
  ): Promise<PedelecSession<TTools>> {
    if (typeof options !== "object" || options === null) {
      throw new PedelecError("INVALID_INPUT", "createSession(options): options must be an object with skills");
    }
    const { provider, model, skills, autoEndOnDisconnect } = options;
    for (const [field, value] of [["provider", provider], ["model", model]] as const) {
      if (value !== undefined && typeof value !== "string") {
        throw new PedelecError("INVALID_INPUT", `createSession: ${field} must be a string`, { problems: [{ path: field, message: "must be a string" }] });
      }
    }
    if (autoEndOnDisconnect !== undefined && typeof autoEndOnDisconnect !== "boolean") {
      throw new PedelecError("INVALID_INPUT", "createSession: autoEndOnDisconnect must be a boolean", {
        problems: [{ path: "autoEndOnDisconnect", message: "must be a boolean" }],
      });
    }
    const manifest = checkedManifest(skills);
    const params: Record<string, unknown> = { skills: manifest };
    if (provider) params.provider = provider;
    if (model) params.model = model;
    if (autoEndOnDisconnect !== undefined) params.autoEndOnDisconnect = autoEndOnDisconnect;
    const info = await this.connection.request<SessionInfo>("create_session", params);
    return this.track(new PedelecSession<TTools>({ connection: this.connection, info, tools: skills.tools }));
  }

  /**
   * Attaches to an existing session (after a reload, with
   * autoEndOnDisconnect: false). Pass the same tool definitions to restore
   * their inline handlers, or register named handlers right after this
   * resolves: calls still pending in Core are delivered again.
   */
  async resumeSession<const TTools extends readonly AnyToolDefinition[] = readonly AnyToolDefinition[]>(
    sessionId: string,
    options: ResumeSessionOptions<TTools> = {},
  ): Promise<PedelecSession<TTools>> {
    if (typeof sessionId !== "string" || sessionId === "") {
      throw new PedelecError("INVALID_INPUT", "resumeSession(sessionId): sessionId must be a non-empty string");
    }
    const info = await this.connection.request<SessionInfo>("resume_session", { sessionId });
    return this.track(new PedelecSession<TTools>({ connection: this.connection, info, tools: options.tools ?? [] }));
  }

  /** Closes the connection; sessions with autoEndOnDisconnect end. */
  close(): void {
    this.connection.close();
  }

  private track<TTools extends readonly AnyToolDefinition[]>(session: PedelecSession<TTools>): PedelecSession<TTools> {
    const s = session as unknown as PedelecSession<readonly AnyToolDefinition[]>;
    this.sessions.add(s);
    session.onEnded(() => this.sessions.delete(s));
    return session;
  }
}
