use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{Layout, TabId, TabKind, Theme};

/// One change to a Note. The agent's operations and the person's share this vocabulary and the
/// same guarded write; a batch applies all or nothing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum Op {
    /// Replace the whole text of a Markdown tab.
    ReplaceText {
        tab_id: TabId,
        text: String,
    },
    /// Splice a Markdown tab's text: each splice deletes `delete` characters at character `at`
    /// of the text as it was before the operation and inserts `insert` there; splices in
    /// ascending, non-overlapping order, all or none.
    SpliceText {
        tab_id: TabId,
        splices: Vec<TextSplice>,
    },
    /// Edit a Markdown tab's text by quoting it: each `old_text` must occur exactly once in the
    /// text as the edits before it left it, and is replaced by `new_text`; all or none.
    EditText {
        tab_id: TabId,
        edits: Vec<TextEdit>,
    },
    /// Replace the whole content of a Markdown, Sheet or Slides tab (`data` in the tab's wire
    /// shape). Sources and Files change only through their own operations.
    ReplaceTabData {
        tab_id: TabId,
        data: Value,
    },
    /// Append one slide to a deck.
    SlideAdd {
        tab_id: TabId,
        title: String,
        #[serde(default)]
        body: String,
        #[serde(default)]
        notes: String,
    },
    /// Append up to 20 slides to a deck.
    SlidesAddOutline {
        tab_id: TabId,
        slides: Vec<SlideInput>,
    },
    /// Write a block of cells, growing the sheet as needed. `sheet_id` defaults to the first.
    SheetSetRange {
        tab_id: TabId,
        #[serde(default)]
        #[cfg_attr(feature = "ts", ts(optional = nullable))]
        sheet_id: Option<String>,
        start_row: u64,
        start_col: u64,
        values: Vec<Vec<Value>>,
    },
    /// Add a Sheet or Slides tab at the end of the strip; a Slides tab may start from an outline.
    CreateTab {
        tab_type: NewTabKind,
        #[serde(default)]
        #[cfg_attr(feature = "ts", ts(optional = nullable))]
        label: Option<String>,
        #[serde(default)]
        #[cfg_attr(feature = "ts", ts(optional = nullable))]
        slides: Option<Vec<SlideInput>>,
    },
    /// Rename a tab (trimmed; duplicate labels are allowed).
    RenameTab {
        tab_id: TabId,
        label: String,
    },
    /// Move a tab to `index` in the strip.
    MoveTab {
        tab_id: TabId,
        index: usize,
    },
    /// Delete a Sheet or Slides tab (it stays in history).
    DeleteTab {
        tab_id: TabId,
    },
    SetTitle {
        title: String,
    },
    /// Cite a web page. An already attached page (any spelling) is returned, not duplicated.
    AddSource {
        title: String,
        url: String,
    },
    RemoveSource {
        source_id: String,
    },
    AddFile {
        name: String,
        mime: String,
        size: u64,
        sha256: String,
    },
    RemoveFile {
        file_id: String,
    },
    SetSlideLayout {
        tab_id: TabId,
        slide_id: String,
        layout: Layout,
    },
    SetTheme {
        tab_id: TabId,
        theme: Theme,
    },
}

impl Op {
    /// The tab the operation names by its `tab_id`; `None` for those that name none (a new
    /// tab, the title, and the Sources and Files operations, which address their fixed tab).
    pub fn tab_id(&self) -> Option<&TabId> {
        match self {
            Op::ReplaceText { tab_id, .. }
            | Op::SpliceText { tab_id, .. }
            | Op::EditText { tab_id, .. }
            | Op::ReplaceTabData { tab_id, .. }
            | Op::SlideAdd { tab_id, .. }
            | Op::SlidesAddOutline { tab_id, .. }
            | Op::SheetSetRange { tab_id, .. }
            | Op::RenameTab { tab_id, .. }
            | Op::MoveTab { tab_id, .. }
            | Op::DeleteTab { tab_id }
            | Op::SetSlideLayout { tab_id, .. }
            | Op::SetTheme { tab_id, .. } => Some(tab_id),
            Op::CreateTab { .. }
            | Op::SetTitle { .. }
            | Op::AddSource { .. }
            | Op::RemoveSource { .. }
            | Op::AddFile { .. }
            | Op::RemoveFile { .. } => None,
        }
    }

    /// The operation's wire name.
    pub fn name(&self) -> &'static str {
        match self {
            Op::ReplaceText { .. } => "replace_text",
            Op::SpliceText { .. } => "splice_text",
            Op::EditText { .. } => "edit_text",
            Op::ReplaceTabData { .. } => "replace_tab_data",
            Op::SlideAdd { .. } => "slide_add",
            Op::SlidesAddOutline { .. } => "slides_add_outline",
            Op::SheetSetRange { .. } => "sheet_set_range",
            Op::CreateTab { .. } => "create_tab",
            Op::RenameTab { .. } => "rename_tab",
            Op::MoveTab { .. } => "move_tab",
            Op::DeleteTab { .. } => "delete_tab",
            Op::SetTitle { .. } => "set_title",
            Op::AddSource { .. } => "add_source",
            Op::RemoveSource { .. } => "remove_source",
            Op::AddFile { .. } => "add_file",
            Op::RemoveFile { .. } => "remove_file",
            Op::SetSlideLayout { .. } => "set_slide_layout",
            Op::SetTheme { .. } => "set_theme",
        }
    }
}

/// One splice of a text, in characters (Unicode scalar values) of the text before the operation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct TextSplice {
    pub at: u64,
    #[serde(default)]
    pub delete: u64,
    #[serde(default)]
    pub insert: String,
}

/// One quoted edit of a text: `old_text`, found exactly once, becomes `new_text`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct TextEdit {
    pub old_text: String,
    pub new_text: String,
}

/// The kinds of tab that can be created (the fixed tabs exist from the start).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum NewTabKind {
    Slides,
    Sheet,
}

impl From<NewTabKind> for TabKind {
    fn from(k: NewTabKind) -> Self {
        match k {
            NewTabKind::Slides => TabKind::Slides,
            NewTabKind::Sheet => TabKind::Sheet,
        }
    }
}

/// What the agent may put on a slide: title, body, notes. Layout and theme are the person's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct SlideInput {
    pub title: String,
    #[serde(default)]
    pub body: String,
    #[serde(default)]
    pub notes: String,
}

/// What one accepted operation produced, for the write's result (and its replays).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum OpOutcome {
    /// A tab's content, label or position changed.
    Edited {
        tab_id: TabId,
    },
    /// The new tab's exact instance ID.
    TabCreated {
        tab_id: TabId,
    },
    /// IDs of the appended slides.
    SlidesAdded {
        tab_id: TabId,
        slide_ids: Vec<String>,
    },
    /// The source ID; `already_attached` when the page was there under any spelling.
    SourceAdded {
        source_id: String,
        already_attached: bool,
    },
    FileAdded {
        file_id: String,
    },
    Removed {
        tab_id: TabId,
        id: String,
    },
    TabDeleted {
        tab_id: TabId,
    },
    TitleSet,
}
