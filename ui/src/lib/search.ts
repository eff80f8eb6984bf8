// Content search in the app: what to ask the server (`hasWords`), how to show its answer
// (results grouped by Note, snippets with the matched words marked) and where a result's
// match is in its tab (a Markdown line, a sheet cell, a slide), so opening it selects the match.
//
// Words are read as the server reads them (crates/quire-store/src/search.rs): runs of letters
// and digits, case- and accent-folded; the query's last bare word also matches longer words it
// begins; quotes make phrases, which are marked word by word.

import type { SearchHit } from "../bindings/SearchHit";

const WORD = /[\p{L}\p{N}\p{M}]+/gu;

/** Case- and accent-folded, as the server folds. */
export function fold(word: string): string {
  return word.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
}

/** The query's words (folded); `prefix`: the last bare word, which may still be being typed. */
export interface QueryWords {
  words: string[];
  prefix: string | null;
}

export function queryWords(q: string): QueryWords {
  const words: string[] = [];
  let prefix: string | null = null;
  q.split('"').forEach((piece, i) => {
    for (const m of piece.matchAll(WORD)) {
      const w = fold(m[0]);
      if (w !== "") words.push(w);
      prefix = i % 2 === 0 ? w : null;
    }
  });
  if (q.trimEnd().endsWith('"')) prefix = null;
  if (prefix !== null) words.pop();
  return { words, prefix };
}

/** Whether the query has a word to search for (the server refuses one that has none). */
export function hasWords(q: string): boolean {
  const { words, prefix } = queryWords(q);
  return words.length > 0 || prefix !== null;
}

function matches(word: string, query: QueryWords): boolean {
  const w = fold(word);
  return query.words.includes(w) || (query.prefix !== null && w.startsWith(query.prefix));
}

/** A snippet cut into plain and matched pieces, in order. */
export interface Piece {
  text: string;
  hit: boolean;
}

export function highlight(snippet: string, q: string): Piece[] {
  const query = queryWords(q);
  const pieces: Piece[] = [];
  let at = 0;
  const push = (text: string, hit: boolean) => {
    if (text === "") return;
    const last = pieces[pieces.length - 1];
    if (last && last.hit === hit) last.text += text;
    else pieces.push({ text, hit });
  };
  for (const m of snippet.matchAll(WORD)) {
    const start = m.index ?? 0;
    push(snippet.slice(at, start), false);
    push(m[0], matches(m[0], query));
    at = start + m[0].length;
  }
  push(snippet.slice(at), false);
  return pieces;
}

/** The results of one Note, in the server's order. */
export interface NoteResults {
  noteId: string;
  title: string;
  hits: SearchHit[];
}

/** Results grouped by Note: Notes in the order of their best result, tabs in rank order. */
export function groupByNote(hits: SearchHit[]): NoteResults[] {
  const groups = new Map<string, NoteResults>();
  for (const hit of hits) {
    let group = groups.get(hit.note_id);
    if (!group) {
      group = { noteId: hit.note_id, title: hit.title, hits: [] };
      groups.set(hit.note_id, group);
    }
    group.hits.push(hit);
  }
  return [...groups.values()];
}

/** Where a match is in its tab. */
export type Place =
  | { kind: "line"; line: number; from: number; to: number }
  | { kind: "cell"; sheetId: string; row: number; col: number }
  | { kind: "slide"; slideId: string };

/** The first word of `text` the query matches, as a character range. */
function firstMatch(text: string, query: QueryWords): { from: number; to: number } | null {
  for (const m of text.matchAll(WORD)) {
    if (matches(m[0], query)) {
      const from = m.index ?? 0;
      return { from, to: from + m[0].length };
    }
  }
  return null;
}

interface SheetLike {
  sheets?: { id: string; rows?: unknown[][] }[];
}
interface DeckLike {
  slides?: { id: string; title?: string; body?: string; notes?: string }[];
}

/** Where the query's first match is in a tab's content (its `type` and `data`), if anywhere. */
export function locate(type: string, data: unknown, q: string): Place | null {
  const query = queryWords(q);
  if (type === "markdown" && typeof data === "string") {
    const lines = data.split("\n");
    for (let line = 0; line < lines.length; line++) {
      const found = firstMatch(lines[line] ?? "", query);
      if (found) return { kind: "line", line, ...found };
    }
    return null;
  }
  if (type === "sheet") {
    for (const sheet of (data as SheetLike)?.sheets ?? []) {
      const rows = sheet.rows ?? [];
      for (let row = 0; row < rows.length; row++) {
        const cells = rows[row] ?? [];
        for (let col = 0; col < cells.length; col++) {
          const cell = cells[col];
          if ((typeof cell === "string" || typeof cell === "number") && firstMatch(String(cell), query)) {
            return { kind: "cell", sheetId: sheet.id, row, col };
          }
        }
      }
    }
    return null;
  }
  if (type === "slides") {
    for (const slide of (data as DeckLike)?.slides ?? []) {
      const text = [slide.title, slide.body, slide.notes].join("\n");
      if (firstMatch(text, query)) return { kind: "slide", slideId: slide.id };
    }
    return null;
  }
  return null;
}
