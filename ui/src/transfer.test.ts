// Export and import's actions against a stand-in for the commands (Tauri's mockIPC, its events
// too): progress events of the running job show, others' are ignored; the summary opens when
// done and an import refreshes the Notes list; a cancelled dialog opens nothing; a refusal is a
// toast; one transfer at a time.

import { clearMocks, mockIPC } from "@tauri-apps/api/mocks";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { NoteSummary, TransferSummary } from "./api";

(globalThis as unknown as { window: typeof globalThis }).window = globalThis;

const { app, runTransfer } = await import("./app-state");
const { emit } = await import("@tauri-apps/api/event");

const NOTE = "01936f0e-7c1a-7b2e-9f00-2a5c1d3e4f99";
let calls: { cmd: string; args: Record<string, unknown> }[] = [];
let answer: () => Promise<unknown> = async () => null;
let listed: NoteSummary[] = [];

const imported: TransferSummary = {
  kind: "import",
  folder: "/home/ann/vault",
  notes: [{ note_id: NOTE, title: "Plan", path: "Plan.md" }],
  skipped: [{ path: "img.png", reason: "not a Markdown or CSV file" }],
};

beforeEach(() => {
  calls = [];
  listed = [];
  mockIPC(
    (cmd, args) => {
      calls.push({ cmd, args: (args ?? {}) as Record<string, unknown> });
      switch (cmd) {
        case "export_note":
        case "export_all_notes":
        case "import_notes":
          return answer();
        case "list_notes":
          return listed;
        default:
          return null;
      }
    },
    { shouldMockEvents: true },
  );
  app.set({ notes: [], toasts: [], dialog: null, transfer: null });
});

afterEach(() => clearMocks());

const sent = () => calls.map((c) => c.cmd);

describe("Import…", () => {
  it("shows its job's progress, then the summary, with the new Notes listed", async () => {
    const seen: unknown[] = [];
    answer = async () => {
      const job = calls.find((c) => c.cmd === "import_notes")?.args.job as number;
      await emit("transfer-progress", { job: job + 1, done: 5, total: 9 });
      await emit("transfer-progress", { job, done: 1, total: 2 });
      seen.push(app.get().transfer?.progress);
      listed = [{ id: NOTE, title: "Plan", version: 2, updated_at: "2026-12-01T10:00:00.000Z", agent_access: false }];
      return imported;
    };
    expect(await runTransfer("import")).toBe(true);
    expect(seen).toEqual([{ done: 1, total: 2 }]);
    expect(sent()).toContain("import_notes");
    expect(app.get().dialog).toEqual({ kind: "transfer", summary: imported });
    expect(app.get().notes.map((n) => n.id)).toEqual([NOTE]);
    expect(app.get().transfer).toBeNull();
  });

  it("opens nothing when the dialog is cancelled", async () => {
    answer = async () => null;
    await runTransfer("import");
    expect(app.get().dialog).toBeNull();
    expect(app.get().toasts).toEqual([]);
    expect(app.get().transfer).toBeNull();
  });

  it("explains a refusal (remote mode) in a toast", async () => {
    answer = async () => Promise.reject({ code: "remote_mode", message: "export and import work on the app's own server" });
    await runTransfer("export-all");
    const [toast] = app.get().toasts;
    expect(toast?.code).toBe("remote_mode");
    expect(toast?.text).toContain("The Notes could not be exported.");
    expect(app.get().transfer).toBeNull();
  });
});

describe("Export Note…", () => {
  it("sends the Note's ID, and runs one transfer at a time", async () => {
    let finish: (s: TransferSummary | null) => void = () => {};
    answer = () => new Promise((resolve) => (finish = resolve));
    const first = runTransfer("export-note", NOTE);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(await runTransfer("import")).toBe(false);
    finish({ kind: "export", folder: "/out", notes: [{ note_id: NOTE, title: "Plan", path: "/out/Plan" }], skipped: [] });
    expect(await first).toBe(true);
    const call = calls.find((c) => c.cmd === "export_note");
    expect(call?.args.noteId).toBe(NOTE);
    expect(typeof call?.args.job).toBe("number");
    expect(sent()).not.toContain("import_notes");
    expect(sent()).not.toContain("list_notes");
    expect(app.get().dialog?.kind).toBe("transfer");
  });
});
