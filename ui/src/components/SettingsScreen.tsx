// Settings: which server the app talks to (embedded, the default: a server inside the app, on
// this computer; or a remote server: URL and the person's token), and the app's appearance.

import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import * as api from "../api";
import type { ServerCheck } from "../bindings";
import { app, loadSettings, refreshLedger, refreshNotes, refreshView, useApp } from "../app-state";
import { explain } from "../lib/errors";
import { type ThemeChoice, setThemeChoice, themeChoice } from "../lib/theme";
import { Icon } from "./Icon";
import { TID } from "../testids";
import { keyboardHelp } from "../app-state/commands";
import { setSpellcheck, spellcheckOn } from "../lib/spelling";

export function SettingsScreen() {
  const settings = useApp((s) => s.settings);
  const [mode, setMode] = useState<Mode>(settings?.mode ?? "embedded");
  const [url, setUrl] = useState(settings?.remote_url ?? "");
  const [token, setToken] = useState("");
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);

  // The form follows the saved choice when it changes, not when a server check comes back
  // (that would undo a choice being made).
  useEffect(() => {
    if (!settings) return;
    setMode(settings.mode);
    setUrl(settings.remote_url ?? "");
  }, [settings?.mode, settings?.remote_url]);

  // Whom the app reaches now: asked each time the screen opens.
  useEffect(() => {
    let live = true;
    api
      .checkServer()
      .then((next) => live && app.set({ settings: next }))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, []);

  const save = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setMessage(null);
    try {
      const next =
        mode === "embedded"
          ? await api.useEmbeddedServer()
          : await api.setRemoteServer(url.trim() || undefined, token.trim() || undefined);
      app.set({ settings: next });
      setToken("");
      const reached = next.server_check.status !== "failed";
      setMessage({
        ok: reached,
        text:
          next.mode === "embedded"
            ? "Using the server inside the app."
            : reached
              ? `Connected to ${next.server_url}.`
              : `Saved, but ${next.server_url} cannot be reached now: your work is kept on this computer and saved when it is back.`,
      });
      await Promise.all([refreshNotes(), refreshLedger(), refreshView()]);
    } catch (error) {
      const ex = explain(error);
      setMessage({ ok: false, text: ex.text === ex.detail ? ex.text : `${ex.text} (${ex.detail})` });
      await loadSettings();
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="page" data-testid={TID.settings} aria-labelledby="settings-title">
      <h1 id="settings-title">Settings</h1>
      <form class="card" onSubmit={save}>
        <h2>Server</h2>
        <p class="muted">
          Your Notes live on a Quire server. The app carries one inside; point it elsewhere to share Notes across
          computers. Drafts not yet saved stay on this computer either way.
        </p>
        <ModeChoice value="embedded" mode={mode} setMode={setMode} testId={TID.settingsModeEmbedded}>
          <strong>On this computer</strong> (embedded)
          <span class="muted block">
            Runs inside the app, on loopback only
            {settings?.embedded_port != null ? `, port ${settings.embedded_port}` : ""}.
          </span>
        </ModeChoice>
        <ModeChoice value="remote" mode={mode} setMode={setMode} testId={TID.settingsModeRemote}>
          <strong>A remote server</strong>
          <span class="muted block">Its address and your token for it.</span>
        </ModeChoice>
        <fieldset class="remote-fields" disabled={mode !== "remote"}>
          <label class="field">
            <span>Server URL</span>
            <input
              type="url"
              placeholder="https://quire.example.org"
              data-testid={TID.settingsUrl}
              value={url}
              onInput={(e) => setUrl(e.currentTarget.value)}
              required={mode === "remote"}
            />
          </label>
          <label class="field">
            <span>Token</span>
            <input
              type="password"
              autoComplete="off"
              placeholder={settings?.has_remote_token ? "•••••••• (saved; leave empty to keep)" : "Your bearer token"}
              data-testid={TID.settingsToken}
              value={token}
              onInput={(e) => setToken(e.currentTarget.value)}
            />
          </label>
        </fieldset>
        <div class="form-actions">
          <button type="submit" class="button primary" data-testid={TID.settingsSave} disabled={busy}>
            {busy ? "Connecting…" : "Save"}
          </button>
          <p class={`form-message${message ? (message.ok ? " is-ok" : " is-error") : ""}`} data-testid={TID.settingsMessage} role="status">
            {message?.text ?? ""}
          </p>
        </div>
      </form>
      <Appearance />
      <div class="card">
        <h2>Connection</h2>
        <dl class="facts">
          <dt>Connected to</dt>
          <dd class="mono">{settings?.server_url ?? "…"}</dd>
          <dt>Server</dt>
          <dd>{settings ? <ServerIdentityView check={settings.server_check} /> : "…"}</dd>
          {settings?.ca_file ? (
            <>
              <dt>Also trusted</dt>
              <dd class="mono">{settings.ca_file}</dd>
            </>
          ) : null}
          <dt>You appear in history as</dt>
          <dd>{settings?.person_name ?? "…"}</dd>
          <dt>Data folder</dt>
          <dd class="mono">{settings?.data_dir ?? "…"}</dd>
        </dl>
        <p class="muted small">
          Version, data and logs folders: <a href="#/about">About Quire</a> (in the menu at the top right).
        </p>
        <p class="muted small">
          <Icon name="check" size={13} /> Keyboard: {keyboardHelp()}.
        </p>
      </div>
    </section>
  );
}

const THEMES: { value: ThemeChoice; label: string; hint: string; testId: string }[] = [
  { value: "system", label: "System", hint: "light or dark, as this computer is set", testId: TID.settingsThemeSystem },
  { value: "light", label: "Light", hint: "always", testId: TID.settingsThemeLight },
  { value: "dark", label: "Dark", hint: "always", testId: TID.settingsThemeDark },
];

/** Light, dark, or as the system is: applied at once, kept on this computer. */
function Appearance() {
  const [choice, setChoice] = useState<ThemeChoice>(themeChoice());
  return (
    <div class="card">
      <h2>Appearance</h2>
      <div class="choices" role="radiogroup" aria-label="Theme">
        {THEMES.map((t) => (
          <label class="choice" key={t.value}>
            <input
              type="radio"
              name="theme"
              value={t.value}
              checked={choice === t.value}
              data-testid={t.testId}
              onChange={() => {
                setThemeChoice(t.value);
                setChoice(t.value);
              }}
            />
            <span>
              <strong>{t.label}</strong> <span class="muted">{t.hint}</span>
            </span>
          </label>
        ))}
      </div>
      <Spelling />
    </div>
  );
}

/** Spell-check in Markdown (the system's checker; never in code): on unless turned off here. */
function Spelling() {
  const [on, setOn] = useState(spellcheckOn());
  return (
    <label class="choice spelling-choice">
      <input
        type="checkbox"
        checked={on}
        data-testid={TID.settingsSpellcheck}
        onChange={(e) => {
          setSpellcheck(e.currentTarget.checked);
          setOn(e.currentTarget.checked);
        }}
      />
      <span>
        <strong>Check spelling</strong> <span class="muted">as I write in Markdown (never in code)</span>
      </span>
    </label>
  );
}

/** Whom the app reached: the certificate it verified over HTTPS, or why it could not. */
type Mode = "embedded" | "remote";

/** One of the server choices: a radio button and what it means. */
function ModeChoice(props: {
  value: Mode;
  mode: Mode;
  setMode: (mode: Mode) => void;
  testId: string;
  children: ComponentChildren;
}) {
  return (
    <label class="choice">
      <input
        type="radio"
        name="server-mode"
        value={props.value}
        checked={props.mode === props.value}
        data-testid={props.testId}
        onChange={() => props.setMode(props.value)}
      />
      <span>{props.children}</span>
    </label>
  );
}

function ServerIdentityView({ check }: { check: ServerCheck }) {
  if (check.status === "unchecked") {
    return (
      <span data-testid={TID.settingsServerCheck} data-status="unchecked" class="muted">
        Checking…
      </span>
    );
  }
  if (check.status === "failed") {
    const ex = explain(check.error);
    return (
      <span data-testid={TID.settingsServerCheck} data-status="failed" data-code={check.error.code} class="server-check is-error">
        {ex.text} <span class="muted small block">{ex.detail}</span>
      </span>
    );
  }
  const { identity } = check;
  const certificate = identity.certificate;
  return (
    <span data-testid={TID.settingsServerCheck} data-status="reached">
      {certificate ? (
        <>
          <strong>Verified HTTPS</strong>
          <span class="muted small block" data-testid={TID.settingsCertificate}>
            Issued to {certificate.subject} by {certificate.issuer}; valid until {certificate.not_after}.
          </span>
        </>
      ) : identity.url.startsWith("http://127.0.0.1") || identity.url.startsWith("http://localhost") ? (
        "Reached on this computer (plain HTTP on loopback)."
      ) : (
        "Reached over plain HTTP: not encrypted."
      )}
    </span>
  );
}
