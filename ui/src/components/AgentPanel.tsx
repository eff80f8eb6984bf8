// "Connect an agent": the MCP URL, a token for the agent (read-write or read-only), config ready
// to paste into Claude Code or Claude Desktop, the agent tokens made so far (scopes, last use,
// Revoke), and which Notes agents may see, with who approved or withdrew each and when (the
// server's record).

import { useEffect, useState } from "preact/hooks";
import * as api from "../api";
import type { AgentAccess, AgentInfo, AgentToken, AgentTokenInfo } from "../api";
import { setAgentAccess, useApp } from "../app-state";
import { copyText } from "../lib/clipboard";
import { explain } from "../lib/errors";
import { byRecent, displayTitle } from "../lib/notes";
import { relativeTime, toDate } from "../lib/status";
import { TID } from "../testids";
import { Icon } from "./Icon";

function CopyButton(props: { text: string; client: string; label?: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      class="button small"
      data-testid={TID.agentCopy}
      data-client={props.client}
      onClick={async () => {
        const ok = await copyText(props.text);
        setDone(ok);
        if (ok) setTimeout(() => setDone(false), 1600);
      }}
    >
      <Icon name={done ? "check" : "copy"} /> {done ? "Copied" : (props.label ?? "Copy")}
    </button>
  );
}

/** The last approval or withdrawal of a Note, with the whole record on hover. */
export function ApprovalRecord(props: { noteId: string; access: AgentAccess | undefined; now: Date }) {
  const changes = props.access?.changes ?? [];
  const last = changes[changes.length - 1];
  if (!last) return null;
  const line = (c: AgentAccess["changes"][number]) =>
    `${c.approved ? "Approved" : "Withdrawn"} by ${c.by} · ${relativeTime(toDate(c.at), props.now)}`;
  return (
    <span
      class="muted small approval-record"
      data-testid={TID.agentApprovalRecord}
      data-note-id={props.noteId}
      data-approved={String(last.approved)}
      title={changes
        .map((c) => `${c.approved ? "Approved" : "Withdrawn"} by ${c.by}, ${toDate(c.at).toLocaleString()}`)
        .join("\n")}
    >
      {line(last)}
    </span>
  );
}

const STATE_LABEL: Record<AgentTokenInfo["state"], string> = {
  active: "Active",
  expired: "Expired",
  revoked: "Revoked",
};

/** The agent tokens: name, scopes, when made, last use, and Revoke on each one still active. */
export function AgentTokenList(props: {
  tokens: AgentTokenInfo[];
  now: Date;
  revoking: string | null;
  onRevoke: (name: string) => void;
}) {
  if (props.tokens.length === 0) return <p class="muted">No agent tokens yet.</p>;
  return (
    <table class="token-list" data-testid={TID.agentTokens}>
      <thead>
        <tr>
          <th>Name</th>
          <th>Scopes</th>
          <th>Created</th>
          <th>Last used</th>
          <th>State</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {props.tokens.map((t, i) => (
          <tr key={`${t.name}-${i}`} data-testid={TID.agentTokenRow} data-name={t.name} data-state={t.state}>
            <td>{t.name}</td>
            <td>{t.scopes.join(", ")}</td>
            <td title={toDate(t.created_at).toLocaleString()}>{relativeTime(toDate(t.created_at), props.now)}</td>
            <td title={t.last_used_at ? toDate(t.last_used_at).toLocaleString() : undefined}>
              {t.last_used_at ? relativeTime(toDate(t.last_used_at), props.now) : "Never"}
            </td>
            <td>{STATE_LABEL[t.state]}</td>
            <td>
              {t.state === "active" && (
                <button
                  type="button"
                  class="button small danger"
                  data-testid={TID.agentTokenRevoke}
                  data-name={t.name}
                  disabled={props.revoking !== null}
                  onClick={() => props.onRevoke(t.name)}
                >
                  {props.revoking === t.name ? "Revoking…" : "Revoke"}
                </button>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function AgentPanel() {
  const notes = useApp((s) => s.notes);
  const [info, setInfo] = useState<AgentInfo | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [name, setName] = useState("claude");
  const [readOnly, setReadOnly] = useState(false);
  const [token, setToken] = useState<AgentToken | null>(null);
  const [busy, setBusy] = useState(false);
  const [access, setAccess] = useState<Record<string, AgentAccess>>({});
  const [revoking, setRevoking] = useState<string | null>(null);
  const noteIds = notes.map((n) => n.id).join(" ");

  useEffect(() => {
    api.agentInfo().then(setInfo, (e: unknown) => setError(explain(e).text));
  }, []);

  const revoke = async (tokenName: string) => {
    setRevoking(tokenName);
    setError(null);
    try {
      const tokens = await api.revokeAgentToken(tokenName);
      setInfo((i) => (i ? { ...i, tokens } : i));
    } catch (err) {
      setError(explain(err).text);
    } finally {
      setRevoking(null);
    }
  };

  // Who approved or withdrew each Note, and when. A record that cannot be read is left out: the
  // switch still shows whether the Note is approved.
  useEffect(() => {
    let live = true;
    for (const id of noteIds.split(" ").filter(Boolean)) {
      api.agentAccess(id).then(
        (a) => live && setAccess((all) => ({ ...all, [id]: a })),
        () => undefined,
      );
    }
    return () => {
      live = false;
    };
  }, [noteIds]);

  const approve = async (noteId: string, approved: boolean) => {
    const changed = await setAgentAccess(noteId, approved);
    if (changed) setAccess((all) => ({ ...all, [noteId]: changed }));
  };
  const now = new Date();

  const create = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const scopes: api.Scope[] = readOnly ? ["notes:read"] : ["notes:read", "notes:write"];
      setToken(await api.createAgentToken(name.trim() || "agent", scopes));
      // The new token joins the list.
      setInfo(await api.agentInfo());
    } catch (err) {
      setError(explain(err).text);
    } finally {
      setBusy(false);
    }
  };

  const snippets = token?.snippets ?? info?.snippets ?? null;
  const mcpUrl = token?.mcp_url ?? info?.mcp_url ?? "";

  return (
    <section class="page" data-testid={TID.agentPanel} aria-labelledby="agent-title">
      <h1 id="agent-title">Connect an agent</h1>
      <p class="muted lead">
        An agent (Claude Code, Claude Desktop, any MCP client) edits your Notes through the same server as you. Every
        write it makes is checked against the version it read, so it cannot silently overwrite your work — and you see
        its edits live, marked with its name.
      </p>
      {error && (
        <p class="form-message is-error" role="alert">
          {error}
        </p>
      )}
      <div class="card">
        <h2>1. The MCP address</h2>
        <div class="copy-row">
          <code class="copy-value" data-testid={TID.agentMcpUrl}>
            {mcpUrl || "…"}
          </code>
          {mcpUrl && <CopyButton text={mcpUrl} client="url" />}
        </div>
      </div>
      <form class="card" onSubmit={create}>
        <h2>2. A token for the agent</h2>
        {info && !info.can_create_tokens ? (
          <p class="muted">{info.remote_hint ?? "Agent tokens for a remote server are made on that server."}</p>
        ) : (
          <>
            <div class="inline-fields">
              <label class="field">
                <span>Name (the author in history)</span>
                <input data-testid={TID.agentTokenName} value={name} onInput={(e) => setName(e.currentTarget.value)} />
              </label>
              <label class="check">
                <input
                  type="checkbox"
                  data-testid={TID.agentTokenReadonly}
                  checked={readOnly}
                  onChange={(e) => setReadOnly(e.currentTarget.checked)}
                />
                <span>Read-only (the agent can read but not write)</span>
              </label>
              <button type="submit" class="button primary" data-testid={TID.agentTokenCreate} disabled={busy}>
                {busy ? "Creating…" : "Create token"}
              </button>
            </div>
            {token && (
              <div class="token-box" role="status">
                <p>
                  <strong>Token for “{token.name}”</strong> ({token.scopes.join(", ")}). It is shown only now: copy it or
                  the config below.
                </p>
                <div class="copy-row">
                  <code class="copy-value" data-testid={TID.agentToken}>
                    {token.token}
                  </code>
                  <CopyButton text={token.token} client="token" />
                </div>
              </div>
            )}
          </>
        )}
      </form>
      <div class="card">
        <h2>3. Paste into your client</h2>
        {!token && <p class="muted">Create a token first: the snippets below will then carry it instead of &lt;TOKEN&gt;.</p>}
        {snippets && (
          <>
            <h3>Claude Code (terminal)</h3>
            <div class="snippet">
              <pre data-testid={TID.agentConfig} data-client="claude_code">
                {snippets.claude_code}
              </pre>
              <CopyButton text={snippets.claude_code} client="claude_code" />
            </div>
            <h3>Claude Desktop (claude_desktop_config.json)</h3>
            <div class="snippet">
              {/* JSON: never wrapped (a wrapped token starts an unindented line that reads as broken JSON); it scrolls. */}
              <pre class="no-wrap" data-testid={TID.agentConfig} data-client="claude_desktop">
                {snippets.claude_desktop}
              </pre>
              <CopyButton text={snippets.claude_desktop} client="claude_desktop" />
            </div>
          </>
        )}
      </div>
      {info?.can_create_tokens && (
        <div class="card">
          <h2>Agent tokens</h2>
          <p class="muted">
            Revoke a token to cut its agent off: the server refuses it from the next request on. The last use is
            recorded to the minute.
          </p>
          <AgentTokenList tokens={info.tokens} now={now} revoking={revoking} onRevoke={(n) => void revoke(n)} />
        </div>
      )}
      <div class="card">
        <h2>4. Which Notes agents may see</h2>
        <p class="muted">Only approved Notes are visible over MCP. You can change this at any time.</p>
        {notes.length === 0 && <p class="muted">No Notes yet.</p>}
        <ul class="approvals">
          {byRecent(notes).map((n) => (
            <li key={n.id}>
              <label class="switch">
                <input
                  type="checkbox"
                  role="switch"
                  data-testid={TID.agentApproval}
                  data-note-id={n.id}
                  checked={n.agent_access}
                  onChange={(e) => void approve(n.id, e.currentTarget.checked)}
                />
                <span class="switch-track" aria-hidden="true" />
                <span>{displayTitle(n.title)}</span>
              </label>
              <ApprovalRecord noteId={n.id} access={access[n.id]} now={now} />
            </li>
          ))}
        </ul>
      </div>
    </section>
  );
}
