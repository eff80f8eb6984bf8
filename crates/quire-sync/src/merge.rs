//! The merge of one tab as the person reviews it: the three-way merges themselves are
//! `quire_model::merge` (pure, shared with the server's revert), re-exported here.

use serde::{Deserialize, Serialize};

use quire_model::TabData;
pub use quire_model::merge::*;

use crate::content::Content;

// ---------------------------------------------------------------------------------------------
// Any tab

/// The merge of one tab, by kind, as the person reviews it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum TabMerge {
    Markdown(TextMerge),
    Sheet(SheetMerge),
    Slides(DeckMerge),
}

impl TabMerge {
    pub fn of(base: &Content, mine: &Content, theirs: &Content) -> Result<Self, MergeError> {
        match (&*base.0, &*mine.0, &*theirs.0) {
            (TabData::Markdown(o), TabData::Markdown(a), TabData::Markdown(b)) => {
                Ok(TabMerge::Markdown(merge_text(o, a, b)))
            }
            (TabData::Sheet(o), TabData::Sheet(a), TabData::Sheet(b)) => {
                Ok(TabMerge::Sheet(merge_sheets(o, a, b)))
            }
            (TabData::Slides(o), TabData::Slides(a), TabData::Slides(b)) => {
                Ok(TabMerge::Slides(merge_decks(o, a, b)))
            }
            (TabData::Sources(_), _, _) => Err(MergeError::NotMergeable("sources")),
            (TabData::Files(_), _, _) => Err(MergeError::NotMergeable("files")),
            _ => Err(MergeError::KindMismatch),
        }
    }

    pub fn clash_count(&self) -> usize {
        match self {
            TabMerge::Markdown(m) => m.clash_count(),
            TabMerge::Sheet(m) => m.clashes.len(),
            TabMerge::Slides(m) => m.clashes.len(),
        }
    }

    /// The merged content with one choice per clash.
    pub fn resolve(&self, choices: &[ClashChoice]) -> Result<Content, MergeError> {
        Ok(Content::new(match self {
            TabMerge::Markdown(m) => TabData::Markdown(m.resolve(choices)?.into()),
            TabMerge::Sheet(m) => TabData::Sheet(m.resolve(choices)?),
            TabMerge::Slides(m) => TabData::Slides(m.resolve(choices)?),
        }))
    }

    /// What Merge would save for the person's picks so far: one per clash, `None` while
    /// undecided. Once every clash is decided, `content` is what [`Self::resolve`] gives.
    pub fn preview(&self, picks: &[Option<ClashChoice>]) -> Result<MergePreview, MergeError> {
        let refs: Vec<Option<&ClashChoice>> = picks.iter().map(Option::as_ref).collect();
        let (data, lines) = match self {
            TabMerge::Markdown(m) => {
                let lines = m.lines_for(&refs)?;
                (TabData::Markdown(joined(&lines).into()), lines)
            }
            TabMerge::Sheet(m) => (TabData::Sheet(m.apply(&refs)?), Vec::new()),
            TabMerge::Slides(m) => (TabData::Slides(m.apply(&refs)?), Vec::new()),
        };
        Ok(MergePreview {
            content: Content::new(data),
            lines,
            undecided: picks.iter().filter(|p| p.is_none()).count(),
        })
    }
}

/// The merged result for the picks so far, as the conflict review shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct MergePreview {
    /// The merged content; an undecided clash shows mine then theirs in a text, mine in a Sheet
    /// or a deck.
    pub content: Content,
    /// Markdown only (empty otherwise): `content`'s lines and where each comes from.
    pub lines: Vec<PreviewLine>,
    /// Clashes still undecided: Merge needs none.
    pub undecided: usize,
}
