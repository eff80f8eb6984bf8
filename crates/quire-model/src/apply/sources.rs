//! The Sources tab: citing a page (once, however its URL is spelled) and removing a source.

use super::{ApplyCtx, Draft, OpResult, check_bytes, check_chars, not_found, wrong_kind};
use crate::error::{OpError, OpErrorCode};
use crate::ids::generated_id;
use crate::op::OpOutcome;
use crate::tab::{Source, TabData};
use crate::url_norm::{normalize_url, web_url};
use crate::{TabId, limits};

pub(super) fn add_source(d: &mut Draft, title: &str, url: &str, ctx: &ApplyCtx<'_>) -> OpResult {
    let title = title.trim();
    if title.is_empty() {
        return Err(OpError::invalid("title", "must not be empty"));
    }
    check_chars("title", title, limits::SOURCE_TITLE_CHARS)?;
    // Measured before normalising: the normaliser's work grows with its input.
    check_bytes("url", url, limits::URL_BYTES)?;
    let invalid_url =
        |e: crate::UrlError| OpError::new(OpErrorCode::InvalidUrl, "url", e.to_string());
    let normalized = normalize_url(url).map_err(invalid_url)?;
    let display = web_url(url).map_err(invalid_url)?;
    check_bytes("url", &normalized, limits::URL_BYTES)?;
    check_bytes("url", &display, limits::URL_BYTES)?;
    let seq = d.note.seq + 1;
    if d.cited.is_none() {
        let by_url = (sources(d, "add_source")?.iter())
            .map(|s| (s.normalized_url.clone(), s.id.clone()))
            .collect();
        d.cited = Some(by_url);
    }
    if let Some(existing) = d.cited.as_ref().and_then(|c| c.get(&normalized)) {
        return Ok((
            OpOutcome::SourceAdded {
                source_id: existing.clone(),
                already_attached: true,
            },
            format!("source already attached: {normalized}"),
        ));
    }
    let sources = sources(d, "add_source")?;
    if sources.len() >= limits::SOURCES {
        return Err(OpError::over_limit(
            "url",
            format!(
                "the Note cites {} pages; at most {}",
                sources.len(),
                limits::SOURCES
            ),
        ));
    }
    let id = generated_id("src", seq, ctx.now);
    sources.push(Source {
        id: id.clone(),
        title: title.to_owned(),
        url: display,
        normalized_url: normalized.clone(),
        added_by: ctx.author.to_owned(),
        added_at: ctx.now.to_rfc3339(),
    });
    d.note.seq = seq;
    if let Some(cited) = &mut d.cited {
        cited.insert(normalized.clone(), id.clone());
    }
    d.touched.push(TabId::new(TabId::SOURCES));
    Ok((
        OpOutcome::SourceAdded {
            source_id: id,
            already_attached: false,
        },
        format!("cited {normalized}"),
    ))
}

pub(super) fn remove_source(d: &mut Draft, source_id: &str) -> OpResult {
    let sources = sources(d, "remove_source")?;
    let at = sources
        .iter()
        .position(|s| s.id == source_id)
        .ok_or_else(|| not_found("source_id", "source", source_id))?;
    let removed = sources.remove(at);
    if let Some(cited) = &mut d.cited {
        cited.remove(&removed.normalized_url);
    }
    d.touched.push(TabId::new(TabId::SOURCES));
    Ok((
        OpOutcome::Removed {
            tab_id: TabId::new(TabId::SOURCES),
            id: source_id.to_owned(),
        },
        format!("removed source {}", removed.normalized_url),
    ))
}

/// The Note's list of sources.
fn sources<'d>(d: &'d mut Draft, op: &str) -> Result<&'d mut Vec<Source>, OpError> {
    let tab = d.fixed_tab_mut(TabId::SOURCES)?;
    if !matches!(tab.data, TabData::Sources(_)) {
        return Err(wrong_kind(tab, op, "the sources"));
    }
    match &mut tab.data {
        TabData::Sources(sources) => Ok(sources),
        _ => Err(OpError::invalid("tab_id", "not the sources tab")),
    }
}
