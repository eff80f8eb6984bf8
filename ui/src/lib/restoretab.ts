// "Restore this tab" in the versions panel: which tabs a version deleted (for good: they are not
// in the Note now), and the writes that bring one back. A tab comes back as a new tab (IDs are
// never reused) with the label and content it had just before it was deleted.

import type { Op, Tab, VersionInfo } from "../bindings";

/**
 * For each version that deleted a tab still missing now: the IDs of those tabs. A tab's last
 * change is its deletion when the Note no longer has it (the fixed tabs are never deleted).
 */
export function deletedTabs(versions: VersionInfo[], currentTabIds: string[]): Map<number, string[]> {
  const now = new Set(currentTabIds);
  const last = new Map<string, number>();
  for (const v of versions) {
    for (const id of v.changed_tab_ids) {
      if (!now.has(id)) last.set(id, Math.max(v.version, last.get(id) ?? 0));
    }
  }
  const out = new Map<number, string[]>();
  for (const [id, version] of last) {
    if (version <= 1) continue; // made and gone in one version: nothing before it to bring back
    out.set(version, [...(out.get(version) ?? []), id].sort());
  }
  return out;
}

/** The two writes that bring `tab` back: a new tab of its kind and label, then its content. */
export function restoreTabOps(tab: Tab): { create: Op; fill: (newId: string) => Op } | null {
  if (tab.type !== "sheet" && tab.type !== "slides") return null;
  return {
    create: { op: "create_tab", tab_type: tab.type, label: tab.label, slides: null },
    fill: (newId) => ({ op: "replace_tab_data", tab_id: newId, data: tab.data }),
  };
}
