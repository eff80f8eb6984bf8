use serde::{Deserialize, Serialize};

use crate::{NoteId, Tab, TabData, TabId, Text, Version};

/// A Note: a title and a strip of tabs, at one version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Note {
    pub id: NoteId,
    pub title: String,
    pub version: Version,
    #[cfg_attr(feature = "ts", ts(as = "Vec<crate::ts::TabShape>"))]
    pub tabs: Vec<Tab>,
    /// The counter behind generated IDs (tabs, slides, sources, files). Never goes back, so no
    /// ID is ever reused, not even after a restore.
    #[serde(default)]
    pub seq: u64,
}

/// A Note as listed: no tab contents.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct NoteSummary {
    pub id: NoteId,
    pub title: String,
    pub version: Version,
    pub updated_at: String,
    pub agent_access: bool,
    /// When the Note was moved to the trash (RFC 3339); `None`: it is not in the trash.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub deleted_at: Option<String>,
}

impl Note {
    /// A new Note at version 1 with the fixed tabs `markdown`, `files`, `sources`.
    pub fn new(id: NoteId, title: String) -> Self {
        Note {
            id,
            title,
            version: Version(1),
            tabs: vec![
                Tab {
                    id: TabId::new(TabId::MARKDOWN),
                    label: "Note".to_owned(),
                    data: TabData::Markdown(Text::default()),
                },
                Tab {
                    id: TabId::new(TabId::FILES),
                    label: "Files".to_owned(),
                    data: TabData::Files(Vec::new()),
                },
                Tab {
                    id: TabId::new(TabId::SOURCES),
                    label: "Sources".to_owned(),
                    data: TabData::Sources(Vec::new()),
                },
            ],
            seq: 0,
        }
    }

    /// The tab with exactly this instance ID. Never matches by type, label or position.
    pub fn tab(&self, id: &TabId) -> Option<&Tab> {
        self.tabs.iter().find(|t| &t.id == id)
    }

    pub fn tab_ids(&self) -> Vec<TabId> {
        self.tabs.iter().map(|t| t.id.clone()).collect()
    }

    /// The first few tab IDs in strip order, and how many more: enough for a refusal to show
    /// what an ID looks like, short whatever the Note holds.
    pub fn tab_ids_in_brief(&self) -> String {
        const SHOWN: usize = 6;
        let mut out: Vec<&str> = self
            .tabs
            .iter()
            .take(SHOWN)
            .map(|t| t.id.as_str())
            .collect();
        let more = self.tabs.len().saturating_sub(SHOWN);
        let more = format!("and {more} more");
        if self.tabs.len() > SHOWN {
            out.push(&more);
        }
        out.join(", ")
    }
}
