// The route (the window's hash) and the tab last used in each Note.

import { type Route, defaultTab, formatRoute, parseRoute, tabHref } from "../lib/route";
import { ensureOpen } from "./notes";
import { app } from "./state";

export function navigate(route: Route, replace = false): void {
  const hash = formatRoute(route);
  if (location.hash === hash) return;
  if (replace) history.replaceState(null, "", hash);
  else location.hash = hash;
  if (replace) onRoute();
}

export function goTab(noteId: string, tabId: string): void {
  navigate({ kind: "tab", noteId, tabId });
}

const LAST_TAB_KEY = "quire.lastTab";

function lastTabs(): Record<string, string> {
  try {
    const raw = localStorage.getItem(LAST_TAB_KEY);
    return raw ? (JSON.parse(raw) as Record<string, string>) : {};
  } catch {
    return {};
  }
}

/** The tab a Note opens on: the route's, else the last one used there (null: its first). */
export function tabToShow(noteId: string): string | null {
  const route = app.get().route;
  if (route.kind === "tab" && route.noteId === noteId) return route.tabId;
  return lastTabs()[noteId] ?? null;
}

function rememberTab(noteId: string, tabId: string): void {
  try {
    localStorage.setItem(LAST_TAB_KEY, JSON.stringify({ ...lastTabs(), [noteId]: tabId }));
  } catch {
    // Private mode or a full storage: only the convenience is lost.
  }
}

const LAST_ROUTE_KEY = "quire.lastRoute";

export function onRoute(): void {
  const route = parseRoute(location.hash);
  app.set({ route });
  try {
    if (route.kind === "tab") localStorage.setItem(LAST_ROUTE_KEY, location.hash);
    else if (route.kind === "home") localStorage.removeItem(LAST_ROUTE_KEY);
  } catch {
    // Only the convenience of reopening where the person was is lost.
  }
  if (route.kind === "note" || route.kind === "tab") void ensureOpen(route.noteId);
  settleRoute();
}

/** `#/notes/{id}` names no tab: go to the last one used there, or the first. Only then. */
export function settleRoute(): void {
  const { route, open } = app.get();
  const view = open?.view;
  if (!view || !open || (route.kind !== "note" && route.kind !== "tab") || route.noteId !== open.noteId) return;
  if (route.kind === "note") {
    const tab = defaultTab(view.tabs, lastTabs()[open.noteId] ?? null);
    if (tab) navigate({ kind: "tab", noteId: open.noteId, tabId: tab.id }, true);
    return;
  }
  if (view.tabs.some((t) => t.id === route.tabId)) rememberTab(open.noteId, route.tabId);
}

/** A fresh start opens where the person was (with a draft there, they see it at once). */
export function restoreLastRoute(): void {
  if (location.hash === "" || location.hash === "#" || location.hash === "#/") {
    try {
      const last = localStorage.getItem(LAST_ROUTE_KEY);
      const route = last ? parseRoute(last) : null;
      if (route?.kind === "tab" && app.get().notes.some((n) => n.id === route.noteId)) {
        history.replaceState(null, "", last);
      }
    } catch {
      // Start at home.
    }
  }
}

/** Navigating to a tab of the open Note by instance ID (links, ledger, gone view). */
export function tabLink(noteId: string, tabId: string): string {
  return tabHref(noteId, tabId);
}

/** Opens a search result: its tab, whose editor then selects the first match of `q`. */
export function openSearchResult(noteId: string, tabId: string, q: string): void {
  app.set({ reveal: { noteId, tabId, q }, dialog: null });
  goTab(noteId, tabId);
}

/**
 * Selects a search result's match in the editor of `tabId`, once: `select(q)` tries (false:
 * not there, e.g. the content is still loading; asked again on the next change).
 */
export function takeReveal(tabId: string, select: (q: string) => boolean): void {
  const reveal = app.get().reveal;
  if (!reveal || reveal.tabId !== tabId) return;
  if (select(reveal.q)) app.set({ reveal: null });
}
