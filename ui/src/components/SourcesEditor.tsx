// The Sources tab: web pages cited by the Note. An address is normalised as the server does it
// (https, host without www., no fragment, no utm_*, no trailing slash), so a page already
// attached under another spelling is recognised before anything is sent.

import { useMemo, useState } from "preact/hooks";
import type { Source, TabView } from "../api";
import { confirm, openLink, write } from "../app-state";
import { shortUrl, titleFromUrl } from "../lib/format";
import { relativeTime, toDate } from "../lib/status";
import { describeUrlProblem, findAttached, normalizeUrl, webUrl } from "../lib/url";
import { TID } from "../testids";
import { Icon, RemoveButton } from "./Icon";

export const ALREADY_ATTACHED = "This source is already attached";

export function SourcesEditor(props: { tab: TabView }) {
  const sources = (Array.isArray(props.tab.data) ? props.tab.data : []) as Source[];
  const [url, setUrl] = useState("");
  const [title, setTitle] = useState("");
  const [message, setMessage] = useState<{ tone: "error" | "info" | "ok"; text: string; sourceId?: string } | null>(null);
  const [busy, setBusy] = useState(false);

  const check = useMemo(() => (url.trim() === "" ? null : normalizeUrl(url)), [url]);
  const existing = useMemo(() => (url.trim() === "" ? undefined : findAttached(sources, url)), [url, sources]);
  const live: typeof message =
    check && !check.ok
      ? { tone: "error", text: describeUrlProblem(check.problem) }
      : existing
        ? { tone: "info", text: `${ALREADY_ATTACHED}: “${existing.title}”.`, sourceId: existing.id }
        : null;
  const shown = live ?? message;

  const add = async (e: Event) => {
    e.preventDefault();
    if (!check || !check.ok) {
      setMessage({ tone: "error", text: describeUrlProblem(check ? (check.ok ? { kind: "empty" } : check.problem) : { kind: "empty" }) });
      return;
    }
    if (existing) return;
    const open = webUrl(url);
    const address = open.ok ? open.url : url.trim();
    setBusy(true);
    const outcome = await write([{ op: "add_source", title: title.trim() || titleFromUrl(address), url: address }], "the new source");
    setBusy(false);
    if (!outcome) return;
    if (outcome.status === "committed") {
      const added = outcome.result.outcomes.find((o) => o.kind === "source_added");
      if (added && added.kind === "source_added" && added.already_attached) {
        setMessage({ tone: "info", text: `${ALREADY_ATTACHED}.`, sourceId: added.source_id });
        return;
      }
    }
    setMessage({ tone: "ok", text: "Source added." });
    setUrl("");
    setTitle("");
  };

  const remove = async (s: Source) => {
    const ok = await confirm({
      title: "Remove this source?",
      body: `“${s.title}” (${shortUrl(s.url)}) is removed from the Note. The Note's history keeps it.`,
      confirmLabel: "Remove source",
      danger: true,
    });
    if (ok) await write([{ op: "remove_source", source_id: s.id }], "removing the source");
  };

  const now = new Date();
  return (
    <div class="list-editor" data-testid={TID.editorSources} data-tab-id={props.tab.id}>
      <form class="add-form" onSubmit={add}>
        <label class="field grow">
          <span>Web address</span>
          <input
            type="text"
            inputMode="url"
            autoComplete="off"
            spellcheck={false}
            placeholder="https://example.org/report"
            data-testid={TID.sourceUrl}
            value={url}
            onInput={(e) => {
              setUrl(e.currentTarget.value);
              setMessage(null);
            }}
            aria-describedby="source-message"
            aria-invalid={check !== null && !check.ok}
          />
        </label>
        <label class="field grow">
          <span>Title (optional)</span>
          <input
            type="text"
            placeholder="What the page is"
            data-testid={TID.sourceTitle}
            value={title}
            onInput={(e) => setTitle(e.currentTarget.value)}
          />
        </label>
        <button type="submit" class="button primary" data-testid={TID.sourceAdd} disabled={busy || !!existing || url.trim() === ""}>
          <Icon name="plus" /> Add source
        </button>
      </form>
      <p
        id="source-message"
        class={`form-message${shown ? ` is-${shown.tone}` : ""}`}
        data-testid={TID.sourceMessage}
        role="status"
        aria-live="polite"
      >
        {shown?.text ?? (check?.ok ? `Will be kept as ${check.url}` : "")}
      </p>
      {sources.length === 0 ? (
        <div class="empty-state small">
          <Icon name="link" size={22} />
          <p>No sources yet. Paste a link above; the agent can add some too.</p>
        </div>
      ) : (
        <ul class="item-list">
          {sources.map((s) => (
            <li
              key={s.id}
              class={`item${shown?.sourceId === s.id ? " is-highlight" : ""}`}
              data-testid={TID.sourceItem}
              data-source-id={s.id}
            >
              <Icon name="link" />
              <div class="item-main">
                <div class="item-title">{s.title}</div>
                <div class="item-meta">
                  <span title={s.url}>{shortUrl(s.url)}</span>
                  <span>
                    added by {s.added_by || "someone"}
                    {s.added_at ? ` · ${relativeTime(toDate(s.added_at), now)}` : ""}
                  </span>
                </div>
              </div>
              <button
                type="button"
                class="button small"
                data-testid={TID.sourceOpen}
                onClick={() => void openLink(s.url)}
                title="Open in your browser"
              >
                <Icon name="external" /> Open
              </button>
              <RemoveButton testId={TID.sourceRemove} label={`Remove ${s.title}`} onClick={() => void remove(s)} />
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
