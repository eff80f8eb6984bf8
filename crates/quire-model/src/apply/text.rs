//! The Markdown tab's operation.

use super::{Draft, OpResult, wrong_kind};
use crate::TabId;
use crate::tab::TabData;

pub(super) fn replace_text(d: &mut Draft, tab_id: &TabId, text: &str) -> OpResult {
    let tab = d.tab_mut(tab_id)?;
    let TabData::Markdown(current) = &mut tab.data else {
        return Err(wrong_kind(tab, "replace_text", "a markdown"));
    };
    *current = text.to_owned();
    d.edited(tab_id, format!("replaced the text of {}", d.named(tab_id)))
}
