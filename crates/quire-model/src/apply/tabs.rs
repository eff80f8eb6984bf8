//! The strip and the Note itself: creating, renaming, moving and deleting tabs, replacing a
//! tab's whole content, and the title.

use serde_json::Value;

use super::{ApplyCtx, Draft, OpResult, clip, deck, sheet};
use crate::bounds::Grid;
use crate::error::OpError;
use crate::ids::generated_id;
use crate::op::{NewTabKind, OpOutcome, SlideInput};
use crate::tab::{Deck, Sheet, SheetTab, Tab, TabData};
use crate::{TabId, TabKind, limits};

pub(super) fn replace_tab_data(d: &mut Draft, tab_id: &TabId, data: &Value) -> OpResult {
    let tab = d.tab_mut(tab_id)?;
    let parsed = parse_tab_data(tab, data)?;
    if let (TabData::Sheet(old), TabData::Sheet(new)) = (&tab.data, &parsed) {
        let (old, new) = (Grid::of_tab(old), Grid::of_tab(new));
        let before = d.grid();
        let after = before.minus(old).plus(new);
        Grid::check(before, after, ("data", "data"))?;
        d.grid = Some(after);
    }
    d.tab_mut(tab_id)?.data = parsed;
    d.edited(
        tab_id,
        format!("replaced the content of {}", d.named(tab_id)),
    )
}

fn parse_tab_data(tab: &Tab, data: &Value) -> Result<TabData, OpError> {
    let kind = tab.kind();
    if matches!(kind, TabKind::Sources | TabKind::Files) {
        return Err(OpError::invalid(
            "tab_id",
            format!(
                "the {kind} tab changes only through its own operations (add/remove), not replace_tab_data"
            ),
        ));
    }
    let parsed = TabData::from_value(kind, data.clone())
        .map_err(|e| OpError::invalid("data", format!("not {kind} tab data: {e}")))?;
    match (&tab.data, &parsed) {
        (TabData::Sheet(old), TabData::Sheet(sheets)) => sheet::check_sheets(old, sheets)?,
        (TabData::Slides(old), TabData::Slides(new)) => deck::check_deck(old, new)?,
        _ => {}
    }
    Ok(parsed)
}

pub(super) fn create_tab(
    d: &mut Draft,
    tab_type: NewTabKind,
    label: Option<&str>,
    slides: Option<&[SlideInput]>,
    ctx: &ApplyCtx<'_>,
) -> OpResult {
    if d.note.tabs.len() >= limits::TABS {
        return Err(OpError::over_limit(
            "tab_type",
            format!(
                "the Note has {} tabs; at most {}",
                d.note.tabs.len(),
                limits::TABS
            ),
        ));
    }
    let kind = TabKind::from(tab_type);
    let label = match label {
        Some(l) => check_label(l)?,
        None => match tab_type {
            NewTabKind::Slides => "Slides".to_owned(),
            NewTabKind::Sheet => "Sheet".to_owned(),
        },
    };
    let note = &mut d.note;
    note.seq += 1;
    let id = TabId::new(generated_id(kind.as_str(), note.seq, ctx.now));
    let data = match (tab_type, slides) {
        (NewTabKind::Sheet, Some(_)) => {
            return Err(OpError::invalid(
                "slides",
                "only a slides tab starts from an outline",
            ));
        }
        (NewTabKind::Sheet, None) => TabData::Sheet(SheetTab {
            sheets: vec![Sheet {
                id: "s1".to_owned(),
                name: "Sheet 1".to_owned(),
                rows: Vec::new(),
            }],
        }),
        (NewTabKind::Slides, outline) => {
            let mut deck = Deck {
                theme: Default::default(),
                slides: Vec::new(),
            };
            if let Some(outline) = outline {
                deck::check_outline(outline)?;
                deck::push_slides(&mut deck, &mut note.seq, outline, ctx.now);
            }
            TabData::Slides(deck)
        }
    };
    note.tabs.push(Tab {
        id: id.clone(),
        label,
        data,
    });
    d.at.insert(id.clone(), d.note.tabs.len() - 1);
    d.touched.push(id.clone());
    Ok((
        OpOutcome::TabCreated { tab_id: id.clone() },
        format!("created {kind} tab {}", d.named(&id)),
    ))
}

pub(super) fn rename_tab(d: &mut Draft, tab_id: &TabId, label: &str) -> OpResult {
    let label = check_label(label)?;
    let summary = format!("renamed {} to \"{}\"", d.named(tab_id), clip(&label, 40));
    let tab = d.tab_mut(tab_id)?;
    tab.label = label;
    d.edited(tab_id, summary)
}

pub(super) fn move_tab(d: &mut Draft, tab_id: &TabId, index: usize) -> OpResult {
    let from = d.position(tab_id)?;
    let last = d.note.tabs.len() - 1;
    if index > last {
        return Err(OpError::invalid(
            "index",
            format!("{index} is past the end of the strip (0 to {last})"),
        ));
    }
    let tab = d.note.tabs.remove(from);
    d.note.tabs.insert(index, tab);
    d.reindex_from(from.min(index));
    d.edited(
        tab_id,
        format!("moved {} to position {index}", d.named(tab_id)),
    )
}

pub(super) fn delete_tab(d: &mut Draft, tab_id: &TabId) -> OpResult {
    let at = d.position(tab_id)?;
    let name = d.named(tab_id);
    let kind = d.note.tabs[at].kind();
    if kind.is_fixed() {
        return Err(OpError::invalid(
            "tab_id",
            format!("the {kind} tab is fixed and cannot be deleted"),
        ));
    }
    if let TabData::Sheet(sheets) = &d.note.tabs[at].data {
        let gone = Grid::of_tab(sheets);
        d.grid = Some(d.grid().minus(gone));
    }
    d.note.tabs.remove(at);
    d.at.remove(tab_id);
    d.reindex_from(at);
    d.touched.push(tab_id.clone());
    Ok((
        OpOutcome::TabDeleted {
            tab_id: tab_id.clone(),
        },
        format!("deleted {kind} tab {name}"),
    ))
}

pub(super) fn set_title(d: &mut Draft, title: &str) -> OpResult {
    let title = title.trim();
    if title.chars().count() > limits::TITLE_CHARS {
        return Err(OpError::invalid(
            "title",
            format!("longer than {} characters", limits::TITLE_CHARS),
        ));
    }
    d.note.title = title.to_owned();
    Ok((
        OpOutcome::TitleSet,
        format!("retitled \"{}\"", clip(title, 40)),
    ))
}

fn check_label(label: &str) -> Result<String, OpError> {
    let label = label.trim();
    if label.is_empty() {
        return Err(OpError::invalid("label", "must not be empty"));
    }
    if label.chars().count() > limits::LABEL_CHARS {
        return Err(OpError::invalid(
            "label",
            format!("longer than {} characters", limits::LABEL_CHARS),
        ));
    }
    Ok(label.to_owned())
}
