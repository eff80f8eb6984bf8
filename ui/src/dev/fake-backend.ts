// DEV ONLY: an in-memory stand-in for the app's commands, so `npm run dev` in a plain browser
// shows every screen. main.tsx installs it only when `import.meta.env.DEV` and not inside Tauri;
// production builds drop it (the dynamic import sits behind a constant-false branch), and no test
// of the real app uses it. It is not the engine: no debounce, no drafts on disk, no real merge.
//
// `window.__quireDev` drives what a person cannot do from the UI: an agent's write, a conflict,
// going offline.

import { emit } from "@tauri-apps/api/event";
import { mockIPC } from "@tauri-apps/api/mocks";
import type {
  AgentAccess,
  AgentTokenInfo,
  AuthorKind,
  ClashChoice,
  ConflictChoice,
  ConflictView,
  Content,
  EngineEvent,
  LedgerEntry,
  LineSource,
  MergePreview,
  Note,
  NoteStatus,
  NoteSummary,
  NoteView,
  Op,
  OpOutcome,
  PreviewLine,
  Scope,
  Tab,
  TabState,
  TabStatus,
  TabView,
  VersionInfo,
  WriteOutcome,
} from "../api";
import { normalizeUrl } from "../lib/url";

interface Entry {
  info: VersionInfo;
  snapshot: Note;
}

interface FakeNote {
  note: Note;
  updatedAt: string;
  agentAccess: boolean;
  accessChanges: AgentAccess["changes"];
  /** When it went to the trash; null: not in it. */
  deletedAt: string | null;
  history: Entry[];
  states: Map<string, TabState>;
  conflicts: Map<string, ConflictView>;
}

const PERSON = "you";

/** Who writes: a version's author and whether that is the person or an agent. */
interface Author {
  name: string;
  kind: AuthorKind;
}
const YOU: Author = { name: PERSON, kind: "person" };
const CLAUDE: Author = { name: "claude", kind: "agent" };
/** The seeded Note's fixed ID, so dev links (`#/notes/<id>/tabs/markdown`) stay valid. */
export const DEMO_NOTE = "01936f0e-7c1a-7b2e-9f00-2a5c1d3e4f50";
const notes = new Map<string, FakeNote>();
const agentTokens: AgentTokenInfo[] = [];
let offline = false;
let clock = Date.now() - 3 * 86_400_000;

function now(): string {
  clock = Math.max(clock + 61_000, Math.min(Date.now(), clock + 3_600_000 * 7));
  return new Date(clock).toISOString();
}

function uuid(): string {
  const hex = [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const clone = <T>(x: T): T => structuredClone(x);

function fail(code: string, message: string, extra: Record<string, unknown> = {}): never {
  throw { code, message, ...extra };
}

function get(noteId: string): FakeNote {
  return notes.get(noteId) ?? fail("not_found", `note_id: no note ${noteId}`);
}

function tabOf(n: FakeNote, tabId: string): Tab {
  return (
    n.note.tabs.find((t) => t.id === tabId) ??
    fail("tab_gone", `tab_id: no tab ${tabId} in this note`, {
      tabs: n.note.tabs.map((t) => ({ id: t.id, type: t.type, label: t.label })),
    })
  );
}

function commit(n: FakeNote, by: Author, summary: string, changed: string[]): number {
  n.note.version += 1;
  n.updatedAt = now();
  n.history.push({
    info: {
      version: n.note.version,
      author: by.name,
      author_kind: by.kind,
      created_at: n.updatedAt,
      summary,
      changed_tab_ids: changed,
    },
    snapshot: clone(n.note),
  });
  return n.note.version;
}

function agentAccess(n: FakeNote): AgentAccess {
  return {
    id: n.note.id,
    agent_access: n.agentAccess,
    created_at: n.history[0]?.info.created_at ?? n.updatedAt,
    updated_at: n.updatedAt,
    deleted_at: n.deletedAt,
    changes: clone(n.accessChanges),
  };
}

function status(n: FakeNote, tabId: string): TabStatus {
  const state = n.states.get(tabId) ?? "clean";
  const c = n.conflicts.get(tabId);
  return {
    tab_id: tabId,
    state,
    last_error: state === "offline" ? { kind: "offline", code: "offline", message: "the server cannot be reached" } : null,
    base_version: c ? c.base_version : state === "clean" || state === "saved" ? null : n.note.version,
    theirs_version: c ? c.theirs_version : null,
    gone: false,
    unseen: false,
  };
}

let statusSeq = 0;

function noteStatus(n: FakeNote): NoteStatus {
  return {
    note_id: n.note.id,
    seq: ++statusSeq,
    guard: n.note.version,
    offline,
    settled: [...n.states.values()].every((s) => s === "clean" || s === "saved"),
    tabs: n.note.tabs.map((t) => status(n, t.id)),
    queued_writes: 0,
    stats: { saves_sent: 0, saves_committed: 0, replays: 0, refused: 0, auto_rebased: 0, conflicts_shown: 0, offline_failures: 0 },
  };
}

function tabView(n: FakeNote, t: Tab): TabView {
  const c = n.conflicts.get(t.id);
  const data = c ? c.mine.data : t.data;
  return { ...t, data, status: status(n, t.id) } as TabView;
}

function noteView(n: FakeNote): NoteView {
  return {
    note_id: n.note.id,
    title: n.note.title,
    version: n.note.version,
    tabs: n.note.tabs.map((t) => tabView(n, t)),
    orphan_drafts: [],
  };
}

function summary(n: FakeNote): NoteSummary {
  const listed: NoteSummary = {
    id: n.note.id,
    title: n.note.title,
    version: n.note.version,
    updated_at: n.updatedAt,
    agent_access: n.agentAccess,
  };
  return n.deletedAt ? { ...listed, deleted_at: n.deletedAt } : listed;
}

function send(event: EngineEvent): void {
  void emit("engine-event", event);
}

function sendStatus(n: FakeNote): void {
  send({ kind: "status", ...noteStatus(n) });
}

function newNote(title: string, by: Author = YOU, id = uuid()): FakeNote {
  const note: Note = {
    id,
    title,
    version: 1,
    seq: 0,
    tabs: [
      { id: "markdown", label: "Note", type: "markdown", data: "" },
      { id: "files", label: "Files", type: "files", data: [] },
      { id: "sources", label: "Sources", type: "sources", data: [] },
    ],
  };
  const n: FakeNote = {
    note,
    updatedAt: now(),
    agentAccess: false,
    accessChanges: [],
    deletedAt: null,
    history: [],
    states: new Map(),
    conflicts: new Map(),
  };
  n.history.push({
    info: {
      version: 1,
      author: by.name,
      author_kind: by.kind,
      created_at: n.updatedAt,
      summary: `created "${title}"`,
      changed_tab_ids: [],
    },
    snapshot: clone(note),
  });
  notes.set(note.id, n);
  return n;
}

function applyOp(n: FakeNote, op: Op, by: Author): { outcome: OpOutcome; summary: string; tab?: string } {
  const note = n.note;
  const id = (prefix: string) => `${prefix}-${++note.seq}-${clock.toString(36)}`;
  switch (op.op) {
    case "create_tab": {
      const tabId = id(op.tab_type);
      const tab: Tab =
        op.tab_type === "sheet"
          ? { id: tabId, label: op.label ?? "Sheet", type: "sheet", data: { sheets: [{ id: "s1", name: "Sheet 1", rows: [] }] } }
          : { id: tabId, label: op.label ?? "Slides", type: "slides", data: { theme: "paper", slides: [] } };
      note.tabs.push(tab);
      return { outcome: { kind: "tab_created", tab_id: tabId }, summary: `created ${op.tab_type} tab "${tab.label}"`, tab: tabId };
    }
    case "rename_tab": {
      const renamed = tabOf(n, op.tab_id);
      const was = renamed.label;
      renamed.label = op.label.trim();
      return { outcome: { kind: "edited", tab_id: op.tab_id }, summary: `renamed "${was}" to "${renamed.label}"`, tab: op.tab_id };
    }
    case "move_tab": {
      const from = note.tabs.findIndex((t) => t.id === op.tab_id);
      if (from < 0) tabOf(n, op.tab_id);
      const [t] = note.tabs.splice(from, 1);
      note.tabs.splice(op.index, 0, t as Tab);
      return { outcome: { kind: "edited", tab_id: op.tab_id }, summary: `moved "${(t as Tab).label}" to position ${op.index}`, tab: op.tab_id };
    }
    case "delete_tab": {
      const t = tabOf(n, op.tab_id);
      if (t.type === "markdown" || t.type === "sources" || t.type === "files") fail("invalid_op", `tab_id: the ${t.type} tab is fixed`);
      note.tabs = note.tabs.filter((x) => x.id !== op.tab_id);
      return { outcome: { kind: "tab_deleted", tab_id: op.tab_id }, summary: `deleted ${t.type} tab "${t.label}"`, tab: op.tab_id };
    }
    case "set_title":
      note.title = op.title.trim();
      return { outcome: { kind: "title_set" }, summary: `set the title to "${note.title}"` };
    case "add_source": {
      const key = normalizeUrl(op.url);
      if (!key.ok) fail("invalid_op", "url: not a web address");
      const tab = tabOf(n, "sources");
      const list = tab.data as Extract<Tab, { type: "sources" }>["data"];
      const existing = list.find((s) => s.normalized_url === key.url);
      if (existing) return { outcome: { kind: "source_added", source_id: existing.id, already_attached: true }, summary: "source already attached" };
      const sid = id("source");
      list.push({ id: sid, title: op.title, url: op.url, normalized_url: key.url, added_by: by.name, added_at: new Date(clock).toISOString() });
      return { outcome: { kind: "source_added", source_id: sid, already_attached: false }, summary: `added source "${op.title}"`, tab: "sources" };
    }
    case "remove_source": {
      const tab = tabOf(n, "sources");
      tab.data = (tab.data as { id: string }[]).filter((s) => s.id !== op.source_id) as never;
      return { outcome: { kind: "removed", tab_id: "sources", id: op.source_id }, summary: "removed a source", tab: "sources" };
    }
    case "remove_file": {
      const tab = tabOf(n, "files");
      tab.data = (tab.data as { id: string }[]).filter((s) => s.id !== op.file_id) as never;
      return { outcome: { kind: "removed", tab_id: "files", id: op.file_id }, summary: "removed a file", tab: "files" };
    }
    case "replace_text": {
      const t = tabOf(n, op.tab_id);
      t.data = op.text;
      return { outcome: { kind: "edited", tab_id: op.tab_id }, summary: `replaced the text of "${t.label}"`, tab: op.tab_id };
    }
    default:
      return fail("invalid_op", `op: ${op.op} is not in the dev stand-in`);
  }
}

function writeOps(n: FakeNote, ops: Op[], by: Author): WriteOutcome {
  if (offline) return { status: "queued", id: `q-${clock}` };
  const backup = clone(n.note);
  const outcomes: OpOutcome[] = [];
  const changed: string[] = [];
  const summaries: string[] = [];
  try {
    for (const op of ops) {
      const r = applyOp(n, op, by);
      outcomes.push(r.outcome);
      summaries.push(r.summary);
      if (r.tab) changed.push(r.tab);
    }
  } catch (e) {
    n.note = backup;
    throw e;
  }
  const version = commit(n, by, summaries.join("; "), changed);
  return { status: "committed", result: { note_id: n.note.id, version, changed_tab_ids: changed, outcomes, replayed: false } };
}

function ledger(): LedgerEntry[] {
  const out: LedgerEntry[] = [];
  for (const n of notes.values()) {
    for (const [tabId, state] of n.states) {
      if (state === "clean" || state === "saved") continue;
      const tab = n.note.tabs.find((t) => t.id === tabId);
      out.push({
        note_id: n.note.id,
        note_title: n.note.title,
        tab_id: tabId,
        tab_label: tab?.label ?? null,
        state,
        base_version: n.conflicts.get(tabId)?.base_version ?? n.note.version,
        has_pending_save: state === "saving",
        last_error: state === "offline" ? { kind: "offline", code: "offline", message: "the server cannot be reached" } : null,
        updated_at: clock,
      });
    }
  }
  return out;
}

let handOvers = 0;

function editTab(n: FakeNote, tabId: string, content: unknown): TabStatus {
  const tab = tabOf(n, tabId);
  const c = n.conflicts.get(tabId);
  if (c) {
    (c.mine as { data: unknown }).data = content;
    return status(n, tabId);
  }
  if (offline) {
    tab.data = content as never;
    n.states.set(tabId, "offline");
    sendStatus(n);
    return status(n, tabId);
  }
  tab.data = content as never;
  n.states.set(tabId, "saving");
  sendStatus(n);
  setTimeout(() => {
    if (n.conflicts.has(tabId)) return;
    const version = commit(n, YOU, `edited ${tabId}`, [tabId]);
    n.states.set(tabId, "saved");
    sendStatus(n);
    send({ kind: "saved", note_id: n.note.id, tab_id: tabId, version, replayed: false, unseen: false });
  }, 250);
  return status(n, tabId);
}

function seed(): void {
  const trip = newNote("Trip to Lisbon", YOU, DEMO_NOTE);
  trip.agentAccess = true;
  trip.accessChanges.push({ approved: true, by: PERSON, at: now() });
  const t = trip.note;
  (t.tabs[0] as Tab).data = `# Trip to Lisbon

Four days in late March. **Goal:** see the city on foot, eat well, keep the budget under 1,500 €.

## Plan

- Day 1: Alfama, the castle, fado in the evening
- Day 2: Belém — the tower, the monastery, pastéis
- Day 3: Sintra by train (go early)
- Day 4: LX Factory, then the river at sunset

## Open questions

1. Which neighbourhood to stay in? Baixa is central; Príncipe Real is quieter.
2. Is the Lisboa Card worth it for two museums and the trams?

> Pack comfortable shoes: the hills are real.

See the [tourism office](https://www.visitlisboa.com/) for opening hours.
`;
  t.tabs.splice(1, 0, {
    id: "sheet-1-mh8z1k2a",
    label: "Budget",
    type: "sheet",
    data: {
      sheets: [
        {
          id: "s1",
          name: "Costs",
          rows: [
            ["Item", "Per person", "People", "Total"],
            ["Flights", 180, 2, 360],
            ["Hotel (4 nights)", 260, 2, 520],
            ["Food", 160, 2, 320],
            ["Sintra train", 9.5, 2, 19],
            ["Museums", 35, 2, 70],
            ["Total", null, null, 1289],
          ],
        },
        { id: "s2", name: "Ideas", rows: [["Place", "Why"], ["Time Out Market", "lunch"], ["Miradouro da Graça", "view"]] },
      ],
    },
  });
  t.tabs.splice(2, 0, {
    id: "slides-2-mh8z1k3b",
    label: "Pitch",
    type: "slides",
    data: {
      theme: "ocean",
      slides: [
        { id: "slide-3-a", title: "Lisbon in four days", body: "A walking trip, late March", notes: "Open with the photo.", layout: "section" },
        {
          id: "slide-4-b",
          title: "Why Lisbon",
          body: "- Walkable, if hilly\n- Great food for the price\n- Day trips: Sintra, Cascais",
          notes: "",
          layout: "title_and_body",
        },
        { id: "slide-5-c", title: "Fernando Pessoa", body: "To travel is to live.", notes: "", layout: "quote" },
      ],
    },
  });
  (t.tabs.find((x) => x.id === "sources") as Tab).data = [
    {
      id: "source-6-x",
      title: "Visit Lisboa",
      url: "https://www.visitlisboa.com/",
      normalized_url: "https://visitlisboa.com",
      added_by: "claude",
      added_at: new Date(clock - 3_600_000).toISOString(),
    },
    {
      id: "source-7-y",
      title: "Sintra day trip guide",
      url: "https://example.org/sintra?utm_source=newsletter",
      normalized_url: "https://example.org/sintra",
      added_by: PERSON,
      added_at: new Date(clock - 7_200_000).toISOString(),
    },
  ];
  (t.tabs.find((x) => x.id === "files") as Tab).data = [
    {
      id: "file-8-z",
      name: "boarding-pass.pdf",
      mime: "application/pdf",
      size: 184_320,
      sha256: "9f2c1e7a44b0d3c8e1f2a6b7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091",
      added_by: PERSON,
      added_at: new Date(clock - 86_400_000).toISOString(),
    },
  ];
  t.seq = 8;
  commit(trip, YOU, "wrote the plan, budget and pitch", t.tabs.map((x) => x.id));
  commit(trip, CLAUDE, 'added source "Visit Lisboa"', ["sources"]);
  const reading = newNote("Reading list");
  (reading.note.tabs[0] as Tab).data = "# Reading list\n\n- *The Book of Disquiet*, Pessoa\n- *Night Train to Lisbon*, Mercier\n";
  commit(reading, YOU, "edited markdown", ["markdown"]);
  newNote("Budget 2027");
}

function demoConflict(noteId: string, tabId: string): void {
  const n = get(noteId);
  const tab = tabOf(n, tabId);
  if (tab.type !== "markdown") return;
  const base = tab.data;
  const lines = base.split("\n");
  const at = Math.min(4, lines.length - 1);
  const mineLines = lines.slice();
  mineLines[at] = "Four days in late March. **Goal:** walk everywhere, eat well, keep the budget under 1,400 €.";
  const theirsLines = lines.slice();
  theirsLines[at] = "Four days in early April (cheaper flights). **Goal:** see the city on foot, keep the budget under 1,500 €.";
  theirsLines.push("", "## Added by the agent", "", "- Book the Sintra train the day before.");
  const mine = mineLines.join("\n");
  const theirs = theirsLines.join("\n");
  const baseVersion = n.note.version;
  tab.data = theirs;
  commit(n, CLAUDE, `replaced the text of "${tab.label}"`, [tabId]);
  n.conflicts.set(tabId, {
    tab_id: tabId,
    base_version: baseVersion,
    base: { type: "markdown", data: base },
    mine: { type: "markdown", data: mine },
    theirs_version: n.note.version,
    theirs: { type: "markdown", data: theirs },
    merge: {
      type: "markdown",
      hunks: [
        { kind: "clean", lines: lines.slice(0, at) },
        { kind: "clash", base: [lines[at] ?? ""], mine: [mineLines[at] ?? ""], theirs: [theirsLines[at] ?? ""] },
        { kind: "clean", lines: [...lines.slice(at + 1), "", "## Added by the agent", "", "- Book the Sintra train the day before."] },
      ],
    },
  });
  n.states.set(tabId, "conflict");
  sendStatus(n);
  send({ kind: "conflict_shown", note_id: noteId, tab_id: tabId });
}

/**
 * A rough stand-in for the engine's `TabMerge::preview`: Markdown picks as named (undecided:
 * mine then theirs); a Sheet or deck always shows `merged` (mine at each clash).
 */
function fakePreview(c: ConflictView, picks: readonly (ClashChoice | null)[]): MergePreview {
  const merge = c.merge ?? fail("choice_unavailable", `tab ${c.tab_id} is gone on the server`);
  const undecided = picks.filter((p) => p === null).length;
  if (merge.type !== "markdown") return { content: { type: merge.type, data: merge.merged } as Content, lines: [], undecided };
  const lines: PreviewLine[] = [];
  let clash = 0;
  for (const h of merge.hunks) {
    if (h.kind === "clean") {
      lines.push(...h.lines.map((text) => ({ text, from: "clean" as const, clash: null })));
      continue;
    }
    const side = (texts: string[], from: LineSource) => lines.push(...texts.map((text) => ({ text, from, clash })));
    const pick = picks[clash]?.pick ?? null;
    if (pick === null) {
      side(h.mine, "undecided");
      side(h.theirs, "undecided");
    }
    if (pick === "mine" || pick === "mine_then_theirs") side(h.mine, "mine");
    if (pick === "theirs" || pick === "mine_then_theirs" || pick === "theirs_then_mine") side(h.theirs, "theirs");
    if (pick === "theirs_then_mine") side(h.mine, "mine");
    if (pick === "base") side(h.base, "base");
    clash++;
  }
  return { content: { type: "markdown", data: lines.map((l) => l.text).join("\n") }, lines, undecided };
}

function handle(cmd: string, args: Record<string, unknown>): unknown {
  const noteId = args.noteId as string;
  const tabId = args.tabId as string;
  switch (cmd) {
    case "app_info":
      return { name: "Quire", version: "0.1.0-dev" };
    case "report_first_paint":
    case "enable_spelling":
      return null;
    case "get_settings":
    case "check_server":
    case "use_embedded_server":
      return {
        mode: "embedded",
        server_url: "http://127.0.0.1:7391",
        person_name: PERSON,
        remote_url: null,
        has_remote_token: false,
        embedded_port: 7391,
        preferred_port: 7391,
        data_dir: "/home/you/.local/share/dev.quire.app",
        ca_file: null,
        server_check: { status: "reached", identity: { url: "http://127.0.0.1:7391/", certificate: null } },
      };
    case "set_remote_server":
      return fail("offline", "url: the server cannot be reached (dev stand-in)");
    case "agent_info":
    case "create_agent_token": {
      const token = cmd === "create_agent_token" ? "qr_dev_3f9a1c7e5b2d4f60" : "<TOKEN>";
      const snippets = {
        claude_code: `claude mcp add --transport http quire http://127.0.0.1:7391/mcp --header "Authorization: Bearer ${token}"`,
        claude_desktop: JSON.stringify(
          { mcpServers: { quire: { command: "/usr/bin/quire-app", args: ["mcp-stdio", "--url", "http://127.0.0.1:7391/mcp"], env: { QUIRE_TOKEN: token } } } },
          null,
          2,
        ),
      };
      if (cmd === "agent_info") {
        return {
          mode: "embedded",
          mcp_url: "http://127.0.0.1:7391/mcp",
          can_create_tokens: true,
          remote_hint: null,
          approved_notes: [...notes.values()].filter((n) => n.agentAccess).map(summary),
          snippets,
          tokens: agentTokens,
        };
      }
      agentTokens.push({
        name: args.name as string,
        scopes: args.scopes as Scope[],
        state: "active",
        created_at: now(),
        expires_at: null,
        revoked_at: null,
        last_used_at: null,
      });
      return { name: args.name, scopes: args.scopes, token, mcp_url: "http://127.0.0.1:7391/mcp", snippets };
    }
    case "revoke_agent_token": {
      const named = agentTokens.filter((t) => t.name === args.name);
      if (named.length === 0) return fail("not_found", `no token named "${String(args.name)}" (dev stand-in)`);
      for (const t of named) {
        if (t.state === "active") Object.assign(t, { state: "revoked", revoked_at: now() });
      }
      return agentTokens;
    }
    case "set_agent_access": {
      const n = get(noteId);
      const approved = args.approved as boolean;
      if (n.agentAccess !== approved) n.accessChanges.push({ approved, by: PERSON, at: now() });
      n.agentAccess = approved;
      return agentAccess(n);
    }
    case "agent_access":
      return agentAccess(get(noteId));
    case "list_notes":
      return [...notes.values()].filter((n) => !n.deletedAt).map(summary);
    case "list_trash":
      return [...notes.values()].filter((n) => n.deletedAt).map(summary);
    case "delete_note": {
      const n = get(noteId);
      if (n.deletedAt) return fail("note_in_trash", `note ${noteId} is in the trash`);
      n.deletedAt = now();
      const version = commit(n, YOU, "moved to trash", []);
      return { id: noteId, version, deleted_at: n.deletedAt };
    }
    case "undelete_note": {
      const n = get(noteId);
      if (!n.deletedAt) return fail("note_not_in_trash", `note ${noteId} is not in the trash`);
      n.deletedAt = null;
      const version = commit(n, YOU, "restored from trash", []);
      return { note_id: noteId, version, changed_tab_ids: [], outcomes: [], replayed: false };
    }
    case "empty_trash": {
      const erased = [...notes.values()].filter((n) => n.deletedAt).map((n) => n.note.id);
      for (const id of erased) notes.delete(id);
      return erased;
    }
    case "create_note":
      return noteView(newNote(args.title as string));
    case "rename_note":
      return writeOps(get(noteId), [{ op: "set_title", title: args.title as string }], YOU);
    case "open_note":
      return noteView(get(noteId));
    case "close_note":
      return null;
    case "note_status":
    case "flush":
      return noteStatus(get(noteId));
    case "tab_view": {
      const n = get(noteId);
      return tabView(n, tabOf(n, tabId));
    }
    case "edit_tab":
      return editTab(get(noteId), tabId, args.content);
    case "hand_over":
      // Whole texts only: a change is refused, and the UI then hands the whole text over.
      if (args.change) fail("change_refused", "the fake backend takes whole texts only");
      return { status: editTab(get(noteId), tabId, args.content), token: ++handOvers };
    case "retry":
      return status(get(noteId), tabId);
    case "conflict":
      return get(noteId).conflicts.get(tabId) ?? fail("no_conflict", `tab ${tabId} has no conflict to resolve`);
    case "preview_conflict_resolution": {
      const c = get(noteId).conflicts.get(tabId) ?? fail("no_conflict", `tab ${tabId} has no conflict to resolve`);
      return fakePreview(c, args.picks as (ClashChoice | null)[]);
    }
    case "resolve_conflict": {
      const n = get(noteId);
      const c = n.conflicts.get(tabId) ?? fail("no_conflict", `tab ${tabId} has no conflict to resolve`);
      const choice = args.choice as ConflictChoice;
      const tab = tabOf(n, tabId);
      if (choice.choice === "keep_mine") tab.data = c.mine.data as never;
      if (choice.choice === "merge") tab.data = fakePreview(c, choice.choices).content.data as never;
      n.conflicts.delete(tabId);
      if (choice.choice !== "take_theirs") commit(n, YOU, `resolved a conflict in ${tabId}`, [tabId]);
      n.states.set(tabId, choice.choice === "take_theirs" ? "clean" : "saved");
      sendStatus(n);
      return status(n, tabId);
    }
    case "discard_draft": {
      const n = get(noteId);
      n.conflicts.delete(tabId);
      n.states.set(tabId, "clean");
      sendStatus(n);
      return status(n, tabId);
    }
    case "apply_ops": {
      const n = get(noteId);
      const out = writeOps(n, args.ops as Op[], YOU);
      sendStatus(n);
      return out;
    }
    case "history":
      return get(noteId).history.map((e) => e.info);
    case "version_at": {
      const e = get(noteId).history.find((x) => x.info.version === args.version);
      return e ? clone(e.snapshot) : fail("not_found", `version: no version ${String(args.version)}`);
    }
    case "restore": {
      const n = get(noteId);
      const e = n.history.find((x) => x.info.version === args.version) ?? fail("not_found", "version: no such version");
      if (offline) return { status: "queued", id: `q-${clock}` };
      n.note = { ...clone(e.snapshot), version: n.note.version, seq: n.note.seq };
      const version = commit(n, YOU, `restored version ${e.info.version}`, n.note.tabs.map((t) => t.id));
      sendStatus(n);
      return { status: "committed", result: { note_id: noteId, version, changed_tab_ids: [], outcomes: [], replayed: false } };
    }
    case "revert": {
      // A coarse stand-in for the server's three-way merge: a tab the version changed goes back
      // only when nothing changed it since; otherwise the undo clashes, nothing written.
      const n = get(noteId);
      const at = n.history.find((x) => x.info.version === args.version) ?? fail("version_not_found", "version: no such version");
      const before = n.history.find((x) => x.info.version === (args.version as number) - 1) ?? fail("invalid_field", "version: the first version");
      if (offline) return { status: "queued", id: `q-${clock}` };
      const changed = at.snapshot.tabs.filter((t) => JSON.stringify(t.data) !== JSON.stringify(before.snapshot.tabs.find((b) => b.id === t.id)?.data));
      const clashing = changed.filter((t) => JSON.stringify(n.note.tabs.find((x) => x.id === t.id)?.data) !== JSON.stringify(t.data));
      if (clashing.length > 0) {
        fail("revert_conflict", `version ${at.info.version} cannot be undone: later changes touched the same lines, cells or slides in ${clashing.map((t) => `“${t.label}”`).join(", ")}; nothing was changed`);
      }
      for (const t of changed) {
        const back = before.snapshot.tabs.find((b) => b.id === t.id);
        const now = n.note.tabs.find((x) => x.id === t.id);
        if (back && now) now.data = clone(back.data);
      }
      const version = commit(n, YOU, `reverted version ${at.info.version}`, changed.map((t) => t.id));
      sendStatus(n);
      return { status: "committed", result: { note_id: noteId, version, changed_tab_ids: [], outcomes: [], replayed: false } };
    }
    case "drafts":
      return ledger();
    case "archived":
      return [];
    case "attach_file":
    case "attach_dropped": {
      const n = get(noteId);
      const tab = tabOf(n, "files");
      const fid = `file-${++n.note.seq}-${clock.toString(36)}`;
      const name = "itinerary.pdf";
      (tab.data as unknown[]).push({
        id: fid,
        name,
        mime: "application/pdf",
        size: 52_113,
        sha256: "0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8",
        added_by: PERSON,
        added_at: new Date(clock).toISOString(),
      });
      const version = commit(n, YOU, `attached ${name}`, ["files"]);
      const attached = {
        file_id: fid,
        name,
        mime: "application/pdf",
        size: 52_113,
        sha256: "0e57",
        outcome: { status: "committed", result: { note_id: noteId, version, changed_tab_ids: ["files"], outcomes: [], replayed: false } },
      };
      return cmd === "attach_file" ? attached : [attached];
    }
    case "open_file":
    case "open_url":
      console.info(`[dev] ${cmd}`, args);
      return null;
    case "save_file_copy":
      return "/home/you/Downloads/copy.pdf";
    default:
      return fail("internal", `the dev stand-in has no command ${cmd}`);
  }
}

export function installDevBackend(): void {
  seed();
  mockIPC((cmd, args) => handle(cmd, (args ?? {}) as Record<string, unknown>), { shouldMockEvents: true });
  const dev = {
    notes: () => [...notes.values()].map((n) => ({ id: n.note.id, title: n.note.title })),
    /** An agent rewrites a tab's text (or appends a line), as claude. */
    agentEdit(noteId: string, tabId: string, text?: string) {
      const n = get(noteId);
      const tab = tabOf(n, tabId);
      if (tab.type === "markdown") tab.data = text ?? `${tab.data}\n- Added by the agent at ${new Date().toLocaleTimeString()}`;
      const version = commit(n, CLAUDE, `replaced the text of "${tab.label}"`, [tabId]);
      send({ kind: "remote_applied", note_id: noteId, tab_ids: [tabId], version });
      sendStatus(n);
    },
    conflict: demoConflict,
    offline(on: boolean) {
      offline = on;
      for (const n of notes.values()) sendStatus(n);
    },
  };
  (window as unknown as { __quireDev: typeof dev }).__quireDev = dev;
  // `?demo=agent|conflict|offline` plays a scene a second after start (for screenshots).
  const demo = new URLSearchParams(location.search).get("demo");
  const tab = new URLSearchParams(location.search).get("tab") ?? "markdown";
  if (demo) {
    setTimeout(() => {
      if (demo === "agent") dev.agentEdit(DEMO_NOTE, tab);
      if (demo === "conflict" || demo === "conflict-view") dev.conflict(DEMO_NOTE, tab);
      if (demo === "offline") dev.offline(true);
    }, 800);
  }
}
