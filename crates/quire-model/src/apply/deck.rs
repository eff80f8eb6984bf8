//! The Slides tab: adding slides, a slide's layout, the deck's theme, and what a deck may hold.

use std::collections::HashSet;

use super::{ApplyCtx, Draft, OpResult, check_id, clip, not_found, wrong_kind};
use crate::bounds::grows_past;
use crate::error::OpError;
use crate::ids::generated_id;
use crate::op::{OpOutcome, SlideInput};
use crate::tab::{Deck, Layout, Slide, TabData, Theme};
use crate::{TabId, Timestamp, limits};

pub(super) fn slide_add(
    d: &mut Draft,
    tab_id: &TabId,
    title: &str,
    body: &str,
    notes: &str,
    ctx: &ApplyCtx<'_>,
) -> OpResult {
    let input = SlideInput {
        title: title.to_owned(),
        body: body.to_owned(),
        notes: notes.to_owned(),
    };
    let slide_ids = add_slides(d, tab_id, std::slice::from_ref(&input), ctx)?;
    let summary = format!("added slide \"{}\" to {}", clip(title, 40), d.named(tab_id));
    added(d, tab_id, slide_ids, summary)
}

pub(super) fn slides_add_outline(
    d: &mut Draft,
    tab_id: &TabId,
    slides: &[SlideInput],
    ctx: &ApplyCtx<'_>,
) -> OpResult {
    check_outline(slides)?;
    let slide_ids = add_slides(d, tab_id, slides, ctx)?;
    let summary = format!("added {} slides to {}", slides.len(), d.named(tab_id));
    added(d, tab_id, slide_ids, summary)
}

fn added(d: &mut Draft, tab_id: &TabId, slide_ids: Vec<String>, summary: String) -> OpResult {
    d.touched.push(tab_id.clone());
    Ok((
        OpOutcome::SlidesAdded {
            tab_id: tab_id.clone(),
            slide_ids,
        },
        summary,
    ))
}

pub(super) fn set_slide_layout(
    d: &mut Draft,
    tab_id: &TabId,
    slide_id: &str,
    layout: Layout,
) -> OpResult {
    let deck = deck_mut(d, tab_id, "set_slide_layout")?;
    let slide = deck
        .slides
        .iter_mut()
        .find(|s| s.id == slide_id)
        .ok_or_else(|| not_found("slide_id", "slide", slide_id))?;
    slide.layout = layout;
    d.edited(
        tab_id,
        format!("changed a slide layout in {}", d.named(tab_id)),
    )
}

pub(super) fn set_theme(d: &mut Draft, tab_id: &TabId, theme: Theme) -> OpResult {
    let deck = deck_mut(d, tab_id, "set_theme")?;
    deck.theme = theme;
    d.edited(tab_id, format!("changed the theme of {}", d.named(tab_id)))
}

fn deck_mut<'d>(d: &'d mut Draft, id: &TabId, op: &str) -> Result<&'d mut Deck, OpError> {
    let tab = d.tab_mut(id)?;
    if !matches!(tab.data, TabData::Slides(_)) {
        return Err(wrong_kind(tab, op, "a slides"));
    }
    match &mut tab.data {
        TabData::Slides(deck) => Ok(deck),
        _ => Err(OpError::invalid("tab_id", "not a slides tab")),
    }
}

/// Refuses an outline (`slides`) that is empty or longer than [`limits::OUTLINE_SLIDES`].
pub(super) fn check_outline(slides: &[SlideInput]) -> Result<(), OpError> {
    if slides.is_empty() {
        return Err(OpError::invalid(
            "slides",
            "minItems 1: an outline needs a slide",
        ));
    }
    if slides.len() > limits::OUTLINE_SLIDES {
        return Err(OpError::invalid(
            "slides",
            format!(
                "maxItems {}: {} slides given; send the rest with another call",
                limits::OUTLINE_SLIDES,
                slides.len()
            ),
        ));
    }
    Ok(())
}

fn check_slide_count(field: &str, before: usize, after: usize) -> Result<(), OpError> {
    if grows_past(before, after, limits::DECK_SLIDES) {
        return Err(OpError::over_limit(
            field,
            format!(
                "the deck would hold {after} slides; at most {}",
                limits::DECK_SLIDES
            ),
        ));
    }
    Ok(())
}

/// What a deck's new content (`replace_tab_data`) must be, given the old one.
pub(super) fn check_deck(old: &Deck, deck: &Deck) -> Result<(), OpError> {
    check_slide_count("data.slides", old.slides.len(), deck.slides.len())?;
    let mut ids = HashSet::new();
    for (i, slide) in deck.slides.iter().enumerate() {
        check_id(&mut ids, "data.slides", i, &slide.id)?;
    }
    Ok(())
}

fn add_slides(
    d: &mut Draft,
    tab_id: &TabId,
    slides: &[SlideInput],
    ctx: &ApplyCtx<'_>,
) -> Result<Vec<String>, OpError> {
    let mut seq = d.note.seq;
    let deck = deck_mut(d, tab_id, "adding slides")?;
    check_slide_count(
        "tab_id",
        deck.slides.len(),
        deck.slides.len() + slides.len(),
    )?;
    let ids = push_slides(deck, &mut seq, slides, ctx.now);
    d.note.seq = seq;
    Ok(ids)
}

/// Appends `slides` to `deck`, each with an ID from the Note's counter `seq`.
pub(super) fn push_slides(
    deck: &mut Deck,
    seq: &mut u64,
    slides: &[SlideInput],
    now: Timestamp,
) -> Vec<String> {
    slides
        .iter()
        .map(|s| {
            *seq += 1;
            let id = generated_id("slide", *seq, now);
            deck.slides.push(Slide {
                id: id.clone(),
                title: s.title.clone(),
                body: s.body.clone(),
                notes: s.notes.clone(),
                layout: Default::default(),
            });
            id
        })
        .collect()
}
