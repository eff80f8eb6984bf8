// Hash routes. A tab is always addressed by its instance ID: `#/notes/{noteId}/tabs/{tabId}`.
// An ID that is not in the Note resolves to "gone" with the tabs that are there, never to
// another tab of the same type, label or position.

export type Route =
  | { kind: "home" }
  | { kind: "note"; noteId: string }
  | { kind: "tab"; noteId: string; tabId: string }
  | { kind: "settings" }
  | { kind: "agent" }
  | { kind: "about" }
  | { kind: "trash" }
  | { kind: "unknown"; hash: string };

function decode(part: string): string | null {
  try {
    const value = decodeURIComponent(part);
    return value === "" ? null : value;
  } catch {
    return null;
  }
}

export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, "").replace(/^\/+/, "").replace(/\/+$/, "");
  if (path === "") return { kind: "home" };
  const parts = path.split("/");
  if (parts.length === 1 && parts[0] === "settings") return { kind: "settings" };
  if (parts.length === 1 && parts[0] === "agent") return { kind: "agent" };
  if (parts.length === 1 && parts[0] === "about") return { kind: "about" };
  if (parts.length === 1 && parts[0] === "trash") return { kind: "trash" };
  if (parts[0] === "notes" && (parts.length === 2 || (parts.length === 4 && parts[2] === "tabs"))) {
    const noteId = decode(parts[1] ?? "");
    if (noteId === null) return { kind: "unknown", hash };
    if (parts.length === 2) return { kind: "note", noteId };
    const tabId = decode(parts[3] ?? "");
    if (tabId === null) return { kind: "unknown", hash };
    return { kind: "tab", noteId, tabId };
  }
  return { kind: "unknown", hash };
}

export function formatRoute(route: Route): string {
  switch (route.kind) {
    case "home":
      return "#/";
    case "note":
      return `#/notes/${encodeURIComponent(route.noteId)}`;
    case "tab":
      return tabHref(route.noteId, route.tabId);
    case "settings":
      return "#/settings";
    case "agent":
      return "#/agent";
    case "about":
      return "#/about";
    case "trash":
      return "#/trash";
    case "unknown":
      return route.hash;
  }
}

export function tabHref(noteId: string, tabId: string): string {
  return `#/notes/${encodeURIComponent(noteId)}/tabs/${encodeURIComponent(tabId)}`;
}

export type TabResolution<T> = { kind: "found"; tab: T } | { kind: "gone"; tabId: string; tabs: T[] };

/** The tab with exactly this instance ID, or "gone" with the Note's tabs. Nothing else matches. */
export function resolveTab<T extends { id: string }>(tabs: readonly T[], tabId: string): TabResolution<T> {
  const tab = tabs.find((t) => t.id === tabId);
  return tab ? { kind: "found", tab } : { kind: "gone", tabId, tabs: tabs.slice() };
}

/**
 * The tab to show for `#/notes/{id}` (no tab named): the last one the person had open in this
 * Note if it still exists, else the first in the strip. Only for a route without a tab ID.
 */
export function defaultTab<T extends { id: string }>(tabs: readonly T[], lastOpen: string | null): T | undefined {
  return tabs.find((t) => t.id === lastOpen) ?? tabs[0];
}
