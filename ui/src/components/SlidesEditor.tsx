// The Slides tab: the slide list (reorder with the buttons or Alt+↑/↓), the selected slide's
// title, body, speaker notes and layout, the deck's theme, and a presentation preview. Ctrl+Z
// anywhere in the editor (its fields included) undoes the person's last step of the deck
// (lib/history.ts, lib/deckHistory.ts; typing in one field is one step), Ctrl+Shift+Z or Ctrl+Y
// redoes it; what another writer changed since is kept, and said.

import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { onEditorAction } from "../app-state/commands";
import type { TabView } from "../api";
import type { Deck } from "../bindings";
import {
  LEAVE_ACTIONS,
  adopted,
  closeDialog,
  confirm,
  contentFor,
  engineContent,
  localEdit,
  openDialog,
  runLeaveAction,
  takeReveal,
  toast,
  useApp,
} from "../app-state";
import { DECK_OPS, deckOps } from "../lib/deckHistory";
import { historyFor, historyKey, keptMessage } from "../lib/history";
import { changedSlides } from "../lib/marks";
import { locate } from "../lib/search";
import { LAYOUTS, THEMES, bodyBlocks, layoutLabel, moveSlide, newSlideId, splitColumns, themeLabel } from "../lib/slides";
import { mayTakeFocus } from "../lib/focus";
import { typeNewlineInto } from "../lib/keys";
import { TID } from "../testids";
import { Icon } from "./Icon";
import { MenuButton } from "./Menu";
import { Modal } from "./Modal";
import { useRemoteMarks, useSeen } from "./useRemoteMarks";

export interface SlideData {
  id: string;
  title: string;
  body: string;
  notes: string;
  layout: string;
}

export interface DeckData {
  theme: string;
  slides: SlideData[];
}

/** The slides another writer's change added, changed or moved; null: none. */
function slideMarks(before: unknown, after: unknown): Set<string> | null {
  const slides = changedSlides(asDeck(before) as Deck, asDeck(after) as Deck);
  return slides.size > 0 ? slides : null;
}

function asDeck(data: unknown): DeckData {
  const d = data as Partial<DeckData> | null;
  return {
    theme: typeof d?.theme === "string" ? d.theme : "paper",
    slides: Array.isArray(d?.slides) ? (d.slides as SlideData[]) : [],
  };
}

export function SlidesEditor(props: { tab: TabView }) {
  const { tab } = props;
  const rev = useApp((s) => s.content[tab.id]?.rev ?? 0);
  const [deck, setDeck] = useState<DeckData>(() => asDeck(contentFor(tab.id)));
  const latest = useRef(deck);
  latest.current = deck;
  const [current, setCurrent] = useState<string | null>(() => deck.slides[0]?.id ?? null);
  const listRef = useRef<HTMLOListElement>(null);
  const host = useRef<HTMLDivElement>(null);
  const remote = useRemoteMarks(tab.id, deck, slideMarks);
  useSeen(host, remote.marks !== null, remote.seen);
  const marks = remote.marks;

  useEffect(() => {
    if (rev === 0) return;
    const incoming = engineContent(tab.id);
    if (incoming === undefined) return;
    const next = asDeck(incoming);
    remote.took(latest.current, next);
    latest.current = next;
    setDeck(next);
    adopted(tab.id);
    if (!next.slides.some((s) => s.id === current)) setCurrent(next.slides[0]?.id ?? null);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [rev]);

  const noteId = useApp((s) => s.open?.noteId ?? "");
  const history = historyFor(noteId, tab.id, DECK_OPS);

  /** Shows and hands over `next`; unless `record` is false, it is one undo step (`key`: typing coalesces). */
  const commit = (next: DeckData, key?: string, record = true) => {
    if (record) history.record(deckOps(latest.current, next), key, Date.now());
    latest.current = next;
    setDeck(next);
    localEdit(tab.id, () => latest.current);
  };

  /**
   * Keeps the focus in the editor across an undo or redo: a slide moved back in the list loses
   * the focus with its node (the next Ctrl+Z would then reach nothing).
   */
  const refocus = useRef<HTMLElement | null>(null);
  const keepFocus = () => {
    const el = host.current;
    const active = document.activeElement as HTMLElement | null;
    if (!el || !active || !el.contains(active)) return;
    refocus.current = active;
  };
  // After the undo or redo is drawn (a moved slide's node loses the focus as it moves): the
  // focus goes back where it was, or to the slide shown.
  useLayoutEffect(() => {
    const el = host.current;
    const was = refocus.current;
    refocus.current = null;
    if (!el || !was || el.contains(document.activeElement)) return;
    if (was.isConnected && el.contains(was)) was.focus();
    else el.querySelector<HTMLElement>(`[data-testid="${TID.slideItem}"][aria-current="true"]`)?.focus();
  });

  const undoRedo = (undo: boolean) => {
    const out = undo ? history.undo(latest.current) : history.redo(latest.current);
    if (!out) return;
    keepFocus();
    if (out.changed) {
      const next = out.doc as DeckData;
      commit(next, undefined, false);
      if (!next.slides.some((s) => s.id === current)) setCurrent(next.slides[0]?.id ?? null);
    }
    const message = keptMessage(undo ? "Undo" : "Redo", out.kept, out.changed);
    if (message) toast("info", message);
  };

  // The command palette's Undo and Redo.
  useEffect(() =>
    onEditorAction(tab.id, (action) => {
      if (action === "undo" || action === "redo") undoRedo(action === "undo");
    }),
  );

  const onEditorKey = (e: KeyboardEvent) => {
    const which = historyKey(e);
    if (!which) return;
    e.preventDefault();
    undoRedo(which === "undo");
  };

  // A search result opened here: show the first slide that matches.
  const reveal = useApp((s) => s.reveal);
  useEffect(() => {
    takeReveal(tab.id, (q) => {
      const place = locate("slides", deck, q);
      if (place?.kind !== "slide") return false;
      setCurrent(place.slideId);
      return true;
    });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [reveal, deck]);

  const index = deck.slides.findIndex((s) => s.id === current);
  const slide = index >= 0 ? deck.slides[index] : undefined;

  /** Changes the slide shown; typing in one of its fields (`typing`) is one undo step. */
  const update = (patch: Partial<SlideData>, typing?: keyof SlideData) => {
    if (!slide) return;
    const cur = latest.current;
    const key = typing ? `${slide.id}:${typing}` : undefined;
    commit({ ...cur, slides: cur.slides.map((s) => (s.id === slide.id ? { ...s, ...patch } : s)) }, key);
  };

  const addSlide = () => {
    const cur = latest.current;
    const id = newSlideId(cur.slides, Date.now());
    const at = index >= 0 ? index + 1 : cur.slides.length;
    const slides = cur.slides.slice();
    slides.splice(at, 0, { id, title: "", body: "", notes: "", layout: "title_and_body" });
    commit({ ...cur, slides });
    setCurrent(id);
    requestAnimationFrame(() => {
      if (mayTakeFocus(listRef.current?.closest(".slides-editor") ?? null)) {
        document.querySelector<HTMLInputElement>(`[data-testid="${TID.slideTitle}"]`)?.focus();
      }
    });
  };

  const move = (delta: number) => {
    if (index < 0) return;
    const cur = latest.current;
    commit({ ...cur, slides: moveSlide(cur.slides, index, delta) });
    requestAnimationFrame(() =>
      listRef.current?.querySelector<HTMLElement>(`[data-slide-id="${CSS.escape(current ?? "")}"]`)?.focus(),
    );
  };

  const remove = async () => {
    if (!slide) return;
    const ok = await confirm({
      title: `Delete slide ${index + 1}?`,
      body: `“${slide.title || "Untitled slide"}” is removed from the deck. The Note's history keeps it.`,
      confirmLabel: "Delete slide",
      danger: true,
    });
    if (!ok) return;
    const cur = latest.current;
    const slides = cur.slides.filter((s) => s.id !== slide.id);
    commit({ ...cur, slides });
    setCurrent(slides[Math.min(index, slides.length - 1)]?.id ?? null);
  };

  const onListKey = (e: KeyboardEvent, i: number) => {
    if (e.altKey && (e.key === "ArrowUp" || e.key === "ArrowDown")) {
      e.preventDefault();
      move(e.key === "ArrowUp" ? -1 : 1);
      return;
    }
    if (e.key === "ArrowUp" || e.key === "ArrowDown") {
      e.preventDefault();
      const next = deck.slides[Math.max(0, Math.min(deck.slides.length - 1, i + (e.key === "ArrowUp" ? -1 : 1)))];
      if (next) {
        setCurrent(next.id);
        requestAnimationFrame(() =>
          listRef.current?.querySelector<HTMLElement>(`[data-slide-id="${CSS.escape(next.id)}"]`)?.focus(),
        );
      }
    } else if (e.key === "Delete") {
      e.preventDefault();
      void remove();
    }
  };

  return (
    <div class="slides-editor" ref={host} data-testid={TID.editorSlides} data-tab-id={tab.id} onKeyDown={onEditorKey}>
      <div class="editor-toolbar">
        <button type="button" class="button small" data-testid={TID.slideAdd} onClick={addSlide}>
          <Icon name="plus" /> Slide
        </button>
        <label class="toolbar-field">
          <span>Theme</span>
          <select
            data-testid={TID.slideTheme}
            value={deck.theme}
            onChange={(e) => commit({ ...latest.current, theme: e.currentTarget.value })}
          >
            {THEMES.map((t) => (
              <option key={t} value={t}>
                {themeLabel(t)}
              </option>
            ))}
          </select>
        </label>
        <div class="toolbar-spacer" />
        <button
          type="button"
          class="button small"
          data-testid={TID.slidesPresent}
          disabled={deck.slides.length === 0}
          onClick={() => openDialog({ kind: "present", tabId: tab.id, start: Math.max(0, index) })}
          title="Present from this slide (Esc to leave)"
        >
          <Icon name="play" /> Present
        </button>
        <MenuButton
          label="Deck menu"
          testId={TID.deckMenu}
          className="deck-menu"
          align="right"
          items={LEAVE_ACTIONS.filter((a) => a.scope === "deck").map((a) => ({
            label: a.label,
            testId: `leave-${a.id}`,
            disabled: deck.slides.length === 0,
            onSelect: () => void runLeaveAction(a.id, tab.id),
          }))}
        >
          <Icon name="more" />
        </MenuButton>
      </div>
      <div class="slides-body">
        <ol class="slide-list" ref={listRef} aria-label="Slides">
          {deck.slides.map((s, i) => {
            const mark = marks?.marks.has(s.id) ? marks.by : null;
            return (
              <li key={s.id}>
                <button
                  type="button"
                  class={`slide-item${s.id === current ? " is-on" : ""}${
                    mark ? (mark.agent ? " is-remote is-agent" : " is-remote") : ""
                  }`}
                  data-testid={TID.slideItem}
                  data-slide-id={s.id}
                  aria-current={s.id === current}
                  tabIndex={s.id === current || (current === null && i === 0) ? 0 : -1}
                  onClick={() => setCurrent(s.id)}
                  onKeyDown={(e) => onListKey(e, i)}
                  title="Alt+↑/↓ to move"
                >
                  <span class="slide-num">{i + 1}</span>
                  <span class="slide-thumb">
                    <SlideCanvas slide={s} theme={deck.theme} small />
                  </span>
                  {mark && (
                    <span
                      class={`remote-slide-mark${mark.agent ? " is-agent" : ""}`}
                      data-testid={TID.remoteChange}
                      data-author={mark.author}
                      title={`Changed by ${mark.author}`}
                    >
                      {mark.author}
                    </span>
                  )}
                </button>
              </li>
            );
          })}
          {deck.slides.length === 0 && (
            <li class="slide-list-empty muted">
              No slides yet.
              <br />
              <button type="button" class="link-button" onClick={addSlide}>
                Add the first slide
              </button>
            </li>
          )}
        </ol>
        {slide ? (
          <div class="slide-detail">
            <div class="slide-stage">
              <SlideCanvas slide={slide} theme={deck.theme} />
            </div>
            <div class="slide-fields">
              <div class="slide-field-row">
                <label class="field grow">
                  <span>Title</span>
                  <input
                    data-testid={TID.slideTitle}
                    value={slide.title}
                    placeholder="Slide title"
                    onInput={(e) => update({ title: e.currentTarget.value }, "title")}
                  />
                </label>
                <label class="field">
                  <span>Layout</span>
                  <select
                    data-testid={TID.slideLayout}
                    value={slide.layout}
                    onChange={(e) => update({ layout: e.currentTarget.value })}
                  >
                    {LAYOUTS.map((l) => (
                      <option key={l} value={l}>
                        {layoutLabel(l)}
                      </option>
                    ))}
                  </select>
                </label>
              </div>
              <label class="field">
                <span>Body {slide.layout === "two_column" && <em class="muted">(a line with --- splits the columns)</em>}</span>
                <textarea
                  data-testid={TID.slideBody}
                  rows={5}
                  value={slide.body}
                  placeholder="- A point&#10;- Another point"
                  onInput={(e) => update({ body: e.currentTarget.value }, "body")}
                  onKeyDown={typeNewlineInto}
                />
              </label>
              <label class="field">
                <span>Speaker notes</span>
                <textarea
                  data-testid={TID.slideNotes}
                  rows={3}
                  value={slide.notes}
                  placeholder="What to say (not shown on the slide)"
                  onInput={(e) => update({ notes: e.currentTarget.value }, "notes")}
                  onKeyDown={typeNewlineInto}
                />
              </label>
              <div class="slide-actions">
                <button
                  type="button"
                  class="button small"
                  data-testid={TID.slideMoveUp}
                  disabled={index <= 0}
                  onClick={() => move(-1)}
                >
                  <Icon name="up" /> Move up
                </button>
                <button
                  type="button"
                  class="button small"
                  data-testid={TID.slideMoveDown}
                  disabled={index >= deck.slides.length - 1}
                  onClick={() => move(1)}
                >
                  <Icon name="down" /> Move down
                </button>
                <div class="toolbar-spacer" />
                <button type="button" class="button small danger-quiet" data-testid={TID.slideDelete} onClick={() => void remove()}>
                  <Icon name="trash" /> Delete slide
                </button>
              </div>
            </div>
          </div>
        ) : (
          <div class="empty-state">
            <h2>An empty deck</h2>
            <p>Add a slide, or ask the agent for an outline.</p>
            <button type="button" class="button primary" onClick={addSlide}>
              <Icon name="plus" /> Add a slide
            </button>
          </div>
        )}
      </div>
    </div>
  );
}

function Body(props: { text: string }) {
  return (
    <>
      {bodyBlocks(props.text).map((b, i) =>
        b.kind === "bullets" ? (
          <ul key={i}>
            {b.items.map((item, j) => (
              <li key={j}>{item}</li>
            ))}
          </ul>
        ) : (
          <p key={i}>{b.text}</p>
        ),
      )}
    </>
  );
}

/** A slide drawn with its deck's theme and its layout (16:9). */
export function SlideCanvas(props: { slide: SlideData; theme: string; small?: boolean }) {
  const { slide } = props;
  const title = slide.title || (props.small ? "" : "Untitled slide");
  const layout = (LAYOUTS as readonly string[]).includes(slide.layout) ? slide.layout : "title_and_body";
  return (
    <div class={`slide theme-${props.theme} layout-${layout}${props.small ? " is-small" : ""}`} aria-hidden={props.small}>
      {layout === "title_and_body" && (
        <>
          <h2 class="slide-title">{title}</h2>
          <div class="slide-text">
            <Body text={slide.body} />
          </div>
        </>
      )}
      {layout === "title_only" && <h2 class="slide-title">{title}</h2>}
      {layout === "section" && (
        <>
          <div class="slide-rule" />
          <h2 class="slide-title">{title}</h2>
          {slide.body && <p class="slide-sub">{slide.body.split("\n")[0]}</p>}
        </>
      )}
      {layout === "two_column" && (
        <>
          <h2 class="slide-title">{title}</h2>
          <div class="slide-columns">
            {splitColumns(slide.body).map((col, i) => (
              <div key={i} class="slide-text">
                <Body text={col} />
              </div>
            ))}
          </div>
        </>
      )}
      {layout === "quote" && (
        <>
          <blockquote class="slide-quote">“{slide.body || title}”</blockquote>
          {slide.body && slide.title && <p class="slide-cite">— {slide.title}</p>}
        </>
      )}
    </div>
  );
}

/** The presentation: one slide filling the screen; arrows, Space, PageUp/PageDown, Home/End; Esc leaves. */
export function Presentation(props: { tabId: string; start: number }) {
  const data = useApp((s) => s.content[props.tabId]?.data);
  const [deck] = useState<DeckData>(() => asDeck(contentFor(props.tabId) ?? data));
  const [at, setAt] = useState(Math.min(props.start, Math.max(0, deck.slides.length - 1)));
  const [notes, setNotes] = useState(false);
  const stage = useRef<HTMLDivElement>(null);
  const slide = deck.slides[at];

  useEffect(() => {
    const el = stage.current;
    el?.requestFullscreen?.().catch(() => undefined);
    const onFs = () => {
      if (!document.fullscreenElement) closeDialog();
    };
    document.addEventListener("fullscreenchange", onFs);
    return () => {
      document.removeEventListener("fullscreenchange", onFs);
      if (document.fullscreenElement) void document.exitFullscreen().catch(() => undefined);
    };
  }, []);

  const go = (n: number) => setAt(Math.max(0, Math.min(deck.slides.length - 1, n)));
  const onKeyDown = (e: KeyboardEvent) => {
    switch (e.key) {
      case "ArrowRight":
      case "ArrowDown":
      case "PageDown":
      case " ":
        e.preventDefault();
        go(at + 1);
        break;
      case "ArrowLeft":
      case "ArrowUp":
      case "PageUp":
        e.preventDefault();
        go(at - 1);
        break;
      case "Home":
        go(0);
        break;
      case "End":
        go(deck.slides.length - 1);
        break;
      case "n":
      case "N":
        setNotes(!notes);
        break;
    }
  };

  return (
    <Modal label="Presentation" onClose={closeDialog} testId={TID.presentation} className="presentation">
      <div class="presentation-stage" ref={stage} onKeyDown={onKeyDown} tabIndex={0} data-autofocus onClick={() => go(at + 1)}>
        {slide && <SlideCanvas slide={slide} theme={deck.theme} />}
        <div class="presentation-bar" onClick={(e) => e.stopPropagation()}>
          <button type="button" onClick={() => go(at - 1)} disabled={at === 0} aria-label="Previous slide">
            ‹
          </button>
          <span>
            {at + 1} / {deck.slides.length}
          </span>
          <button type="button" onClick={() => go(at + 1)} disabled={at >= deck.slides.length - 1} aria-label="Next slide">
            ›
          </button>
          <button type="button" onClick={() => setNotes(!notes)} aria-pressed={notes}>
            Notes (N)
          </button>
          <button type="button" onClick={closeDialog}>
            Exit (Esc)
          </button>
        </div>
        {notes && slide?.notes && <div class="presentation-notes">{slide.notes}</div>}
      </div>
    </Modal>
  );
}
