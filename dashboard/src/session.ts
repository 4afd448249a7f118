// Who is using the dashboard: the API key (kept for this browser tab only), what the API says
// about it (`viewer`), and the scope picked among those the key acts on.

import { Api } from "./api";

export interface Viewer {
  keyId: string | null;
  keyName: string | null;
  role: string;
  scopeKey: string | null;
  scopes: { edges: { node: { key: string } }[] };
}

export interface Session {
  api: Api;
  viewer: Viewer;
  scopes: string[];
  scope: string;
}

const VIEWER = `query { viewer { keyId keyName role scopeKey scopes(first: 100) { edges { node { key } } } } }`;
const KEY = "hippograph.key";
const SCOPE = "hippograph.scope";

/** Checks the key with the API and returns a session on the remembered (or first) scope. */
export async function openSession(key: string): Promise<Session> {
  const api = new Api(key);
  const { viewer } = await api.query<{ viewer: Viewer }>(VIEWER);
  const listed = viewer.scopes.edges.map((e) => e.node.key);
  const scopes = viewer.scopeKey && !listed.includes(viewer.scopeKey) ? [viewer.scopeKey, ...listed] : listed;
  sessionStorage.setItem(KEY, key);
  const remembered = sessionStorage.getItem(SCOPE);
  const scope = remembered && scopes.includes(remembered) ? remembered : (scopes[0] ?? viewer.scopeKey ?? "");
  return { api, viewer, scopes, scope };
}

export function rememberedKey(): string | null {
  return sessionStorage.getItem(KEY);
}

/**
 * A key handed over in the address (`#key=…`, as `hippograph demo` prints it): taken out of
 * the address bar at once, so it stays in neither the history nor a bookmark, and returned.
 * The fragment never reaches a server log; the key is then kept like a typed one.
 */
export function keyFromAddress(): string | null {
  if (!location.hash.startsWith("#key=")) return null;
  const key = new URLSearchParams(location.hash.slice(1)).get("key")?.trim();
  history.replaceState(null, "", location.pathname + location.search);
  return key || null;
}

export function pickScope(session: Session, scope: string): void {
  session.scope = scope;
  sessionStorage.setItem(SCOPE, scope);
}

export function forget(): void {
  sessionStorage.removeItem(KEY);
  sessionStorage.removeItem(SCOPE);
}

export function canWrite(session: Session): boolean {
  return session.viewer.role === "writer" || session.viewer.role === "admin";
}
