// Components rendered to HTML in Node (no DOM): what they show for a given state. Effects do
// not run here, so these check markup and test IDs, not interaction.

import { render } from "preact-render-to-string";
import { beforeEach, describe, expect, it } from "vitest";
import type {
  AgentTokenInfo,
  NoteStatus,
  NoteView as NoteViewData,
  Stats,
  TabStatus,
  TabView,
  VersionInfo,
} from "../api";
import { app } from "../app-state";
import { diffNotes } from "../lib/diff";
import { TID } from "../testids";
import { AgentTokenList, ApprovalRecord } from "./AgentPanel";
import { TabBanner } from "./Banners";
import { MergedResult } from "./ConflictView";
import { NoteChangesView } from "./DiffViews";
import { DraftsLedger } from "./DraftsLedger";
import { SyncStatus } from "./Header";
import { NoteView } from "./NoteView";
import { NotesList } from "./NotesList";
import { searchNotes } from "../lib/notes";
import { GridTable } from "./sheet/GridTable";
import { TabStrip } from "./TabStrip";
import { VersionAuthor } from "./VersionsPanel";
import { FindBar, type SheetFind } from "./sheet/FindBar";
import { findMatches } from "../lib/findReplace";
import { single } from "../lib/grid";
import { cellKey } from "../lib/marks";

const NOTE = "01936f0e-7c1a-7b2e-9f00-2a5c1d3e4f50";

function status(tabId: string, state: TabStatus["state"] = "clean"): TabStatus {
  return { tab_id: tabId, state, last_error: null, base_version: null, theirs_version: null, gone: false, unseen: false };
}

const tabs: TabView[] = [
  { id: "markdown", type: "markdown", label: "Note", data: "# Hi", status: status("markdown") },
  { id: "slides-3-aaa", type: "slides", label: "Deck", data: { theme: "paper", slides: [] }, status: status("slides-3-aaa") },
  { id: "slides-4-bbb", type: "slides", label: "Deck", data: { theme: "ink", slides: [] }, status: status("slides-4-bbb", "dirty") },
  { id: "sources", type: "sources", label: "Sources", data: [], status: status("sources") },
];

const view: NoteViewData = { note_id: NOTE, title: "Trip", version: 7, tabs, orphan_drafts: [] };

function openNote(v: NoteViewData = view): void {
  const content = Object.fromEntries(v.tabs.map((t) => [t.id, { data: t.data, epoch: 0, rev: 0, version: v.version }]));
  app.set({
    open: { noteId: v.note_id, view: v, loading: false, error: null },
    content,
    status: null,
    unsent: [],
    remoteEdits: {},
    renaming: null,
    renamingTab: null,
  });
}

const count = (html: string, needle: string) => html.split(needle).length - 1;

beforeEach(() => openNote());

describe("NoteView routing", () => {
  it("shows exactly the tab named by its instance ID, even with equal labels", () => {
    const html = render(<NoteView noteId={NOTE} tabId="slides-4-bbb" />);
    expect(html).toContain(`data-testid="${TID.editorSlides}" data-tab-id="slides-4-bbb"`);
    expect(html).not.toContain('data-tab-id="slides-3-aaa" data-testid');
    expect(html).not.toContain(TID.tabGone);
  });

  it.each(["slides", "Deck", "slides-9-zzz", "SLIDES-4-BBB"])(
    "shows 'This tab no longer exists' for %s, with every tab as a link, and no editor",
    (unknown) => {
      const html = render(<NoteView noteId={NOTE} tabId={unknown} />);
      expect(html).toContain(`data-testid="${TID.tabGone}"`);
      expect(html).toContain("This tab no longer exists");
      expect(count(html, `data-testid="${TID.tabGoneLink}"`)).toBe(tabs.length);
      for (const t of tabs) expect(html).toContain(`href="#/notes/${NOTE}/tabs/${t.id}"`);
      for (const id of [TID.editorMarkdown, TID.editorSlides, TID.editorSheet, TID.editorSources, TID.editorFiles]) {
        expect(html).not.toContain(`data-testid="${id}"`);
      }
    },
  );

  it("marks no tab active when the route's tab is gone", () => {
    const html = render(<NoteView noteId={NOTE} tabId="slides-9-zzz" />);
    expect(html).not.toContain('data-active="true"');
  });
});

describe("TabStrip", () => {
  it("lists tabs in strip order by instance ID, duplicate labels and all", () => {
    const html = render(<TabStrip noteId={NOTE} tabs={tabs} activeId="slides-3-aaa" />);
    const ids = [...html.matchAll(/data-testid="tab" data-tab-id="([^"]+)"/g)].map((m) => m[1]);
    expect(ids).toEqual(["markdown", "slides-3-aaa", "slides-4-bbb", "sources"]);
    expect(count(html, ">Deck<")).toBe(2);
    expect(html).toMatch(/data-tab-id="slides-3-aaa" data-tab-type="slides" data-active="true"/);
  });

  it("marks a tab with unsaved changes", () => {
    const html = render(<TabStrip noteId={NOTE} tabs={tabs} activeId="markdown" />);
    expect(html).toMatch(/data-tab-id="slides-4-bbb"[^>]*data-mark="dirty"/);
    // An empty attribute renders bare: `data-mark` (its value is "").
    expect(html).toMatch(/data-tab-id="markdown"[^>]*data-mark(="")?[ >]/);
  });
});

describe("SyncStatus", () => {
  /** The Markdown tab in `state`, at version 7, after one save was sent. */
  const noteStatus = (state: "saved" | "conflict", stats: Partial<Stats>): NoteStatus => ({
    note_id: NOTE,
    seq: 1,
    guard: 7,
    offline: false,
    settled: state === "saved",
    tabs: [status("markdown", state)],
    queued_writes: 0,
    stats: { saves_sent: 1, saves_committed: 0, replays: 0, refused: 0, auto_rebased: 0, conflicts_shown: 0, offline_failures: 0, ...stats },
  });

  it("says Saved with the version when everything is on the server", () => {
    app.set({ status: noteStatus("saved", { saves_committed: 1 }) });
    const html = render(<SyncStatus />);
    expect(html).toContain(`data-testid="${TID.syncStatus}" data-state="saved"`);
    expect(html).toContain("Saved (version 7)");
  });

  it("says Conflict while a tab waits for the person's decision", () => {
    app.set({ status: noteStatus("conflict", { refused: 1, conflicts_shown: 1 }) });
    expect(render(<SyncStatus />)).toContain(">Conflict<");
  });
});

describe("TabBanner", () => {
  it("shows the conflict banner with its choices on a tab in conflict", () => {
    const tab: TabView = {
      ...(tabs[0] as TabView),
      status: { ...status("markdown", "conflict"), base_version: 4, theirs_version: 5 },
    };
    const html = render(<TabBanner tab={tab} />);
    expect(html).toContain(`data-testid="${TID.conflictBanner}" data-tab-id="markdown"`);
    for (const id of [TID.conflictReview, TID.conflictKeepMine, TID.conflictTakeTheirs]) {
      expect(html).toContain(`data-testid="${id}"`);
    }
    expect(html).toContain("Your draft is kept (based on version 4; the server is at version 5)");
  });

  it("offers only 'take theirs' when the tab was deleted on the server", () => {
    const tab: TabView = { ...(tabs[0] as TabView), status: { ...status("markdown", "conflict"), gone: true } };
    const html = render(<TabBanner tab={tab} />);
    expect(html).not.toContain(`data-testid="${TID.conflictKeepMine}"`);
    expect(html).toContain("deleted on the server");
  });

  it("marks another writer's edit with its author", () => {
    app.set({ remoteEdits: { markdown: { author: "claude", at: "2026-11-30T10:00:00Z", version: 9, agent: true } } });
    const html = render(<TabBanner tab={tabs[0] as TabView} />);
    expect(html).toContain(`data-testid="${TID.remoteEdit}" data-author="claude" data-tab-id="markdown"`);
    expect(html).toContain("version 9");
  });
});

describe("DraftsLedger", () => {
  it("lists every unsynced draft with where it is and why it is not saved", () => {
    app.set({
      ledger: [
        {
          note_id: NOTE,
          note_title: "Trip",
          tab_id: "markdown",
          tab_label: "Note",
          state: "offline",
          base_version: 3,
          has_pending_save: true,
          last_error: { kind: "offline", code: "offline", message: "the server cannot be reached" },
          updated_at: Date.parse("2026-11-30T10:00:00Z"),
        },
      ],
    });
    const html = render(<DraftsLedger />);
    expect(html).toContain(`data-testid="${TID.draftsItem}" data-note-id="${NOTE}" data-tab-id="markdown" data-state="offline"`);
    expect(html).toContain("the server cannot be reached");
    expect(html).toContain("based on version 3");
  });

  it("says so when everything is on the server", () => {
    app.set({ ledger: [] });
    expect(render(<DraftsLedger />)).toContain(`data-testid="${TID.draftsEmpty}"`);
  });
});

describe("ApprovalRecord", () => {
  const now = new Date("2026-11-30T12:00:00.000Z");
  const access = (changes: { approved: boolean; by: string; at: string }[]) => ({
    id: NOTE,
    agent_access: changes[changes.length - 1]?.approved ?? false,
    created_at: "2026-11-01T00:00:00.000Z",
    updated_at: "2026-11-01T00:00:00.000Z",
    deleted_at: null,
    changes,
  });

  it("says who last approved or withdrew the Note, and when, with the whole record on hover", () => {
    const html = render(
      <ApprovalRecord
        noteId={NOTE}
        access={access([
          { approved: true, by: "ana", at: "2026-11-30T09:00:00.000Z" },
          { approved: false, by: "ben", at: "2026-11-30T11:50:00.000Z" },
        ])}
        now={now}
      />,
    );
    expect(html).toContain(`data-testid="${TID.agentApprovalRecord}" data-note-id="${NOTE}" data-approved="false"`);
    expect(html).toContain(">Withdrawn by ben · 10 min ago<");
    expect(html).toMatch(/title="Approved by ana, [^"]+\nWithdrawn by ben, /);
  });

  it("shows nothing for a Note nobody approved yet", () => {
    expect(render(<ApprovalRecord noteId={NOTE} access={access([])} now={now} />)).toBe("");
    expect(render(<ApprovalRecord noteId={NOTE} access={undefined} now={now} />)).toBe("");
  });
});

describe("AgentTokenList", () => {
  const now = new Date("2026-11-30T12:00:00.000Z");
  const token = (name: string, state: AgentTokenInfo["state"], last_used_at: string | null): AgentTokenInfo => ({
    name,
    scopes: ["notes:read", "notes:write"],
    state,
    created_at: "2026-11-30T09:00:00.000Z",
    expires_at: null,
    revoked_at: state === "revoked" ? "2026-11-30T11:00:00.000Z" : null,
    last_used_at,
  });
  const list = (tokens: AgentTokenInfo[], revoking: string | null = null) =>
    render(<AgentTokenList tokens={tokens} now={now} revoking={revoking} onRevoke={() => undefined} />);

  it("lists each agent token with its scopes, age and last use, and Revoke on the active ones only", () => {
    const html = list([
      token("claude", "active", "2026-11-30T11:50:00.000Z"),
      token("old-bot", "revoked", null),
      token("cursor", "expired", null),
    ]);
    const rows = [...html.matchAll(/data-testid="agent-token-row" data-name="([^"]+)" data-state="([^"]+)"/g)];
    expect(rows.map((m) => [m[1], m[2]])).toEqual([
      ["claude", "active"],
      ["old-bot", "revoked"],
      ["cursor", "expired"],
    ]);
    expect(html).toContain("<td>notes:read, notes:write</td>");
    expect(html).toContain(">3 h ago<");
    expect(html).toContain(">10 min ago<");
    expect(count(html, ">Never<")).toBe(2);
    const revokes = [...html.matchAll(/data-testid="agent-token-revoke" data-name="([^"]+)"/g)].map((m) => m[1]);
    expect(revokes).toEqual(["claude"]);
    expect(html).not.toContain("qk_");
  });

  it("disables Revoke while one is being revoked, and says so on that one", () => {
    const html = list([token("claude", "active", null), token("cursor", "active", null)], "claude");
    expect(html).toContain("Revoking…");
    expect(count(html, "disabled")).toBe(2);
  });

  it("says when there are none", () => {
    expect(list([])).toContain("No agent tokens yet.");
    expect(list([])).not.toContain(TID.agentTokens);
  });
});

describe("VersionAuthor", () => {
  const version = (author: string, author_kind: "person" | "agent"): VersionInfo => ({
    version: 4,
    author,
    author_kind,
    created_at: "2026-11-30T10:00:00.000Z",
    summary: "edited markdown",
    changed_tab_ids: ["markdown"],
  });

  it.each([
    ["an agent, even one named like the person", version("ana", "agent"), "is-agent", "ana", true],
    ["the person", version("ana", "person"), "is-person", "You", false],
    ["another person", version("ben", "person"), "is-person", "ben", false],
  ])("shows %s as the server recorded", (_who, v, cls, label, icon) => {
    const html = render(<VersionAuthor version={v} person="ana" />);
    expect(html).toContain(`class="author ${cls}"`);
    expect(html.replace(/<svg[\s\S]*<\/svg>/, "")).toMatch(new RegExp(`>${label}</span>$`));
    expect(html.includes("<svg")).toBe(icon);
  });
});

describe("SheetEditor", () => {
  const sheetTab: TabView = {
    id: "sheet-5-ccc",
    type: "sheet",
    label: "Budget",
    data: { sheets: [{ id: "s1", name: "Q1", rows: [[1, "a"], [null, true]] }, { id: "s2", name: "Q2", rows: [] }] },
    status: status("sheet-5-ccc"),
  };

  it("draws the first sheet's cells by position, a switch per sheet and the toolbar's test IDs", () => {
    openNote({ ...view, tabs: [...tabs, sheetTab] });
    const html = render(<NoteView noteId={NOTE} tabId="sheet-5-ccc" />);
    expect(html).toContain(`data-testid="${TID.editorSheet}" data-tab-id="sheet-5-ccc" data-sheet-id="s1"`);
    expect(html).toContain(`class="is-focus is-sel is-num" data-testid="${TID.sheetCell}" data-row="0" data-col="0"`);
    expect(html).toMatch(new RegExp(`data-testid="${TID.sheetCell}" data-row="0" data-col="1"[^>]*>a</td>`));
    expect(count(html, `data-testid="${TID.sheetSwitch}"`)).toBe(2);
    expect(html).toContain(`data-testid="${TID.sheetSwitch}" data-sheet-id="s2"`);
    for (const id of [TID.sheetAdd, TID.sheetAddRow, TID.sheetAddColumn]) expect(count(html, `data-testid="${id}"`)).toBe(1);
    expect(html).toContain('<span class="formula-name">A1</span>');
  });

  it("marks the cells another writer's announced change touched, with the author, when opened on it", () => {
    openNote({ ...view, tabs: [...tabs, sheetTab] });
    const before = { sheets: [{ id: "s1", name: "Q1", rows: [[1, "old"], [null, true]] }, { id: "s2", name: "Q2", rows: [] }] };
    const announced = { author: "claude", at: "2026-12-02T02:00:00Z", version: 7, agent: true };
    app.set({ remoteEdits: { "sheet-5-ccc": { ...announced, before } } });
    const html = render(<NoteView noteId={NOTE} tabId="sheet-5-ccc" />);
    expect(count(html, `data-testid="${TID.remoteChange}"`)).toBe(1);
    expect(html).toMatch(
      new RegExp(`class=" is-remote is-agent" title="Changed by claude" data-testid="${TID.sheetCell}" data-row="0" data-col="1"`),
    );
    expect(html).toContain(`data-testid="${TID.remoteChange}" data-author="claude" title="Changed by claude"`);
    // Already shown once (no content to compare with): nothing is marked.
    app.set({ remoteEdits: { "sheet-5-ccc": announced } });
    expect(render(<NoteView noteId={NOTE} tabId="sheet-5-ccc" />)).not.toContain(TID.remoteChange);
  });
});

describe("GridTable", () => {
  it("shows a formula by its result, an error styled as one, and the formula before a result comes", () => {
    const rows = [[1, "=A1*2", "=1/0", "=A1+"]];
    const results = new Map<string, import("../lib/formulas").Computed>([
      ["0:1", 2],
      ["0:2", { error: "#DIV/0!" }],
    ]);
    const sel = { anchor: { row: 5, col: 5 }, focus: { row: 5, col: 5 } };
    const html = render(
      <GridTable
        rows={rows}
        extent={{ rows: 6, cols: 6 }}
        shown={{ firstRow: 0, lastRow: 5, firstCol: 0, lastCol: 5 }}
        sel={sel}
        range={{ top: 5, bottom: 5, left: 5, right: 5 }}
        editing={null}
        results={results}
        onEditText={() => {}}
        onEditDone={() => {}}
      />,
    );
    const cell = (col: number) => new RegExp(`class="([^"]*)"(?: title="([^"]*)")? data-testid="${TID.sheetCell}" data-row="0" data-col="${col}"[^>]*>([^<]*)</td>`);
    expect(html.match(cell(1))?.slice(1)).toEqual([" is-num", undefined, "2"]);
    expect(html.match(cell(2))?.slice(1)).toEqual([" is-error", "=1/0: #DIV/0!", "#DIV/0!"]);
    // Not computed yet: empty, never the formula's text.
    expect(html).toMatch(new RegExp(`data-testid="${TID.sheetCell}" data-row="0" data-col="3"[^>]*></td>`));
  });
});

describe("SlidesEditor", () => {
  it("marks the slides another writer's announced change touched, with the author", () => {
    const slide = (id: string, title: string) => ({ id, title, body: "", notes: "", layout: "title_and_body" as const });
    const deckTab: TabView = {
      id: "slides-6-ddd",
      type: "slides",
      label: "Talk",
      data: { theme: "paper", slides: [slide("a", "Intro"), slide("b", "Results (agent)"), slide("c", "End")] },
      status: status("slides-6-ddd"),
    };
    openNote({ ...view, tabs: [...tabs, deckTab] });
    const before = { theme: "paper", slides: [slide("a", "Intro"), slide("b", "Results"), slide("c", "End")] };
    app.set({ remoteEdits: { "slides-6-ddd": { author: "ana", at: "2026-12-02T02:00:00Z", version: 7, agent: false, before } } });
    const html = render(<NoteView noteId={NOTE} tabId="slides-6-ddd" />);
    expect(count(html, `data-testid="${TID.remoteChange}"`)).toBe(1);
    expect(html).toMatch(new RegExp(`class="slide-item is-remote" data-testid="${TID.slideItem}" data-slide-id="b"`));
    expect(html).toContain(`data-testid="${TID.remoteChange}" data-author="ana" title="Changed by ana">ana</span>`);
  });
});

describe("the conflict review's merged result", () => {
  it("shows the engine's preview line by line, marked by where each line comes from", () => {
    const html = render(
      <MergedResult
        base="a\nb"
        preview={{
          content: { type: "markdown", data: "a\nmine\ntheirs" },
          lines: [
            { text: "a", from: "clean", clash: null },
            { text: "mine", from: "undecided", clash: 0 },
            { text: "theirs", from: "theirs", clash: 1 },
          ],
          undecided: 1,
        }}
      />,
    );
    expect(html).toContain('<div class="merged-line from-clean">a</div>');
    expect(html).toContain('<div class="merged-line from-undecided">mine</div>');
    expect(html).toContain('<div class="merged-line from-theirs">theirs</div>');
  });

  it("compares the engine's merged Sheet with the base", () => {
    const sheets = (cell: string) => ({ sheets: [{ id: "s1", name: "Q1", rows: [[cell]] }] });
    const html = render(
      <MergedResult base={sheets("before")} preview={{ content: { type: "sheet", data: sheets("merged") }, lines: [], undecided: 0 }} />,
    );
    expect(html).toContain('<td class="cell-before">before</td><td class="cell-after">merged</td>');
  });

  it("says while it asks, and why the engine refused", () => {
    expect(render(<MergedResult base="" preview={null} />)).toContain("Loading…");
    const html = render(<MergedResult base="" preview={{ error: "choices: 2 clashes need 2 choices, got 1" }} />);
    expect(html).toContain('role="alert"');
    expect(html).toContain("2 clashes need 2 choices");
  });
});

describe("the diff of one version, marked as the editors mark a change", () => {
  const before = {
    title: "Trip",
    tabs: [
      { id: "markdown", type: "markdown", label: "Note", data: "one\ntwo\nthree" },
      { id: "sheet-1", type: "sheet", label: "Budget", data: { sheets: [{ id: "s1", name: "Sheet 1", rows: [["a", "1"]] }] } },
    ],
  };
  const after = {
    title: "Trip",
    tabs: [
      { id: "markdown", type: "markdown", label: "Note", data: "one\nTWO\nthree\nfour" },
      { id: "sheet-1", type: "sheet", label: "Budget", data: { sheets: [{ id: "s1", name: "Sheet 1", rows: [["a", "2"]] }] } },
    ],
  };

  it("marks the lines and cells it brought with the author's name, and not what it removed", () => {
    const html = render(
      <NoteChangesView
        change={diffNotes(before, after)}
        olderLabel="version 3"
        newerLabel="version 4"
        by={{ author: "claude", agent: true }}
      />,
    );
    const marks = html.match(/data-testid="diff-mark"/g) ?? [];
    // "TWO" and "four" (lines), and the cell B1.
    expect(marks.length).toBe(3);
    expect(html).toContain('class="diff-line diff-add is-marked is-agent" role="row" data-testid="diff-mark" data-author="claude"');
    expect(html).toMatch(/class="cell-after is-marked is-agent"[^>]*data-author="claude"/);
    expect(html).toMatch(/class="diff-line diff-del" role="row">/);
  });

  it("marks nothing where no author is given (a span of several versions)", () => {
    const html = render(<NoteChangesView change={diffNotes(before, after)} olderLabel="version 3" newerLabel="now" />);
    expect(html).not.toContain(TID.diffMark);
  });
});

describe("FindBar and the grid's found cells", () => {
  it("shows '2 of 3' and highlights the matched cells, the current one more", () => {
    const rows = [["apple", "pear"], ["Apple pie", null], [null, "pineapple"]];
    const matches = findMatches(rows, "apple", { matchCase: false });
    const find = {
      query: "apple",
      replacement: "",
      matchCase: false,
      matches,
      current: 1,
      setReplacement: () => undefined,
    } as unknown as SheetFind;
    const bar = render(
      <FindBar
        find={find}
        onSearch={() => undefined}
        onStep={() => undefined}
        onReplace={() => undefined}
        onReplaceAll={() => undefined}
        onClose={() => undefined}
        manySheets={false}
      />,
    );
    expect(bar).toContain(`data-testid="${TID.sheetFindCount}"`);
    expect(bar).toContain("2 of 3");
    expect(bar).toContain('placeholder="Find in sheet"');
    expect(bar).not.toContain(TID.sheetFindWhere);
    const grid = render(
      <GridTable
        rows={rows}
        extent={{ rows: 3, cols: 2 }}
        shown={{ firstRow: 0, lastRow: 2, firstCol: 0, lastCol: 1 }}
        sel={single({ row: 1, col: 0 })}
        range={{ top: 1, bottom: 1, left: 0, right: 0 }}
        editing={null}
        found={new Set(matches.map((m) => cellKey(m.row, m.col)))}
        foundAt={matches[1] ?? null}
        onEditText={() => undefined}
        onEditDone={() => undefined}
      />,
    );
    expect(count(grid, "is-found")).toBe(4);
    expect(count(grid, "is-found-current")).toBe(1);
  });

  it("says which sheet the match is on when the tab has several", () => {
    const find = {
      query: "apple",
      replacement: "",
      matchCase: false,
      matches: [{ sheetId: "a", row: 0, col: 0 }, { sheetId: "b", row: 2, col: 1 }],
      current: 1,
      where: "on Stock",
      setReplacement: () => undefined,
    } as unknown as SheetFind;
    const bar = render(
      <FindBar
        find={find}
        onSearch={() => undefined}
        onStep={() => undefined}
        onReplace={() => undefined}
        onReplaceAll={() => undefined}
        onClose={() => undefined}
        manySheets
      />,
    );
    expect(bar).toContain("2 of 2");
    expect(bar).toContain('placeholder="Find in all sheets"');
    expect(bar).toMatch(new RegExp(`data-testid="${TID.sheetFindWhere}"[^>]*>on Stock<`));
  });
});

describe("NotesList", () => {
  const summaries = (n: number) =>
    Array.from({ length: n }, (_, i) => ({
      id: `01936f0e-7c1a-7b2e-9f00-${String(i).padStart(12, "0")}`,
      title: `Note ${i}`,
      version: 1,
      updated_at: "2026-11-30T10:00:00Z",
      agent_access: false,
    }));

  it("draws only the Notes in view of a long list, the rest kept as scroll height", () => {
    app.set({ notes: summaries(10_000), notesLoaded: true, notesError: null, search: "" });
    const html = render(<NotesList />);
    const drawn = count(html, `data-testid="${TID.notesItem}"`);
    expect(drawn).toBeGreaterThan(10);
    expect(drawn).toBeLessThan(60);
    expect(html).toContain('data-count="10000"');
    expect(html).toContain('aria-setsize="10000"');
    expect(html).toContain(">Note 0<");
    expect(html).not.toContain(">Note 9999<");
    // A spacer below as high as the Notes not drawn (an estimate until they are).
    const spacer = /class="notes-spacer" aria-hidden="true" style="height: ?(\d+)px;?"/.exec(html);
    expect(Number(spacer?.[1])).toBeGreaterThan((10_000 - drawn) * 40);
  });

  it("draws the whole of a short list, with no spacer", () => {
    app.set({ notes: summaries(5), notesLoaded: true, notesError: null, search: "" });
    const html = render(<NotesList />);
    expect(count(html, `data-testid="${TID.notesItem}"`)).toBe(5);
    expect(html).not.toContain("notes-spacer");
  });

  it("windows the titles a search leaves", () => {
    app.set({ notes: summaries(10_000), notesLoaded: true, notesError: null, search: "Note 99" });
    const html = render(<NotesList />);
    // The search's matches (lib/notes.ts), best first; the first ones are drawn.
    const matches = searchNotes(summaries(10_000), "Note 99");
    expect(matches.length).toBeGreaterThan(100);
    expect(html).toContain(`data-count="${matches.length}"`);
    expect(html).toContain(">Note 99<");
    expect(count(html, `data-testid="${TID.notesItem}"`)).toBeLessThan(60);
  });
});
