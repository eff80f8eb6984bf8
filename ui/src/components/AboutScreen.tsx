// About Quire (from the app's menu): the version, where the data and the log files are, and
// "Open logs folder" (the system's file manager), for a person asked to send their logs.

import { navigate, openLogsFolder, useApp } from "../app-state";
import { TID } from "../testids";
import { Icon } from "./Icon";
import { keyboardHelp } from "../app-state/commands";

export function AboutScreen() {
  const appInfo = useApp((s) => s.appInfo);
  const settings = useApp((s) => s.settings);
  return (
    <section class="page" data-testid={TID.about} aria-labelledby="about-title">
      <h1 id="about-title">About Quire</h1>
      <div class="card">
        <dl class="facts">
          <dt>Version</dt>
          <dd data-testid={TID.aboutVersion}>{appInfo ? `${appInfo.name} ${appInfo.version}` : "…"}</dd>
          <dt>Connected to</dt>
          <dd class="mono">{settings?.server_url ?? "…"}</dd>
          <dt>You appear in history as</dt>
          <dd>{settings?.person_name ?? "…"}</dd>
          <dt>Data folder</dt>
          <dd class="mono">{settings?.data_dir ?? "…"}</dd>
          <dt>Logs folder</dt>
          <dd class="mono" data-testid={TID.aboutLogDir}>
            {appInfo?.log_dir ?? "…"}
          </dd>
        </dl>
        <div class="form-actions">
          <button type="button" class="button" data-testid={TID.aboutOpenLogs} onClick={() => void openLogsFolder()}>
            <Icon name="external" /> Open logs folder
          </button>
          <p class="muted small">One file a day, the last seven kept. They hold no Note content.</p>
        </div>
      </div>
      <div class="card about-more">
        <p class="muted small">
          <Icon name="check" size={13} /> Keyboard: {keyboardHelp()}.
        </p>
        <p class="muted small">
          Which server Quire uses: <a href="#/settings" onClick={(e) => (e.preventDefault(), navigate({ kind: "settings" }))}>Settings</a>.
        </p>
      </div>
    </section>
  );
}
