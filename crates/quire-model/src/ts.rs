//! TypeScript shapes of the types whose serde form is hand-written (feature `ts`): a tab is
//! `{id, type, label, data}` with `data` following `type`, which no derive can see.

use ts_rs::TS;

use crate::{Deck, FileMeta, SheetTab, Source, TabId};

/// A tab's content with its kind: `{"type": "markdown", "data": "..."}`. The TypeScript name is
/// `TabData` (a union discriminated by `type`).
#[derive(TS)]
#[ts(
    rename = "TabData",
    tag = "type",
    content = "data",
    rename_all = "lowercase"
)]
pub enum TabDataShape {
    Markdown(String),
    Sheet(SheetTab),
    Slides(Deck),
    Sources(Vec<Source>),
    Files(Vec<FileMeta>),
}

/// A tab on the wire: `{id, type, label, data}` (TypeScript name `Tab`).
#[derive(TS)]
#[ts(rename = "Tab")]
pub struct TabShape {
    pub id: TabId,
    pub label: String,
    #[ts(flatten)]
    pub data: TabDataShape,
}
