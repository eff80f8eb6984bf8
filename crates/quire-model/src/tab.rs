use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{TabId, TabKind, Text};

/// One tab instance in a Note's strip. On the wire: `{id, type, label, data}`, where `data`'s
/// shape follows `type` (a Markdown tab's `data` is its text, a JSON string). Written in place
/// (see `impl Serialize`), read through `RawTab`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(try_from = "RawTab")]
pub struct Tab {
    pub id: TabId,
    pub label: String,
    pub data: TabData,
}

impl Tab {
    pub fn kind(&self) -> TabKind {
        self.data.kind()
    }

    /// The same tab to the bit: ID, label and content (see [`TabData::identical`]).
    pub fn identical(&self, other: &Tab) -> bool {
        self.id == other.id && self.label == other.label && self.data.identical(&other.data)
    }
}

/// The content of a tab, one variant per kind.
#[derive(Debug, Clone, PartialEq)]
pub enum TabData {
    Markdown(Text),
    Sheet(SheetTab),
    Slides(Deck),
    Sources(Vec<Source>),
    Files(Vec<FileMeta>),
}

impl TabData {
    pub fn kind(&self) -> TabKind {
        match self {
            TabData::Markdown(_) => TabKind::Markdown,
            TabData::Sheet(_) => TabKind::Sheet,
            TabData::Slides(_) => TabKind::Slides,
            TabData::Sources(_) => TabKind::Sources,
            TabData::Files(_) => TabKind::Files,
        }
    }

    /// The `data` member of the wire form.
    pub fn to_value(&self) -> Value {
        // Serialising these plain structs cannot fail (no maps with non-string keys).
        serde_json::to_value(self.content()).unwrap_or(Value::Null)
    }

    /// The `data` member of the wire form, to serialise in place (no copy of the content, as
    /// building a [`Value`] makes).
    pub fn content(&self) -> impl Serialize + '_ {
        Content(self)
    }

    /// Whether the two contents are the same to the bit. `==` takes a cell holding `-0.0` for
    /// one holding `0.0` (IEEE equality); a write of one over the other is still a change, so
    /// whether a tab changed is decided here.
    pub fn identical(&self, other: &TabData) -> bool {
        match (self, other) {
            (TabData::Sheet(a), TabData::Sheet(b)) => {
                a.sheets.len() == b.sheets.len()
                    && a.sheets.iter().zip(&b.sheets).all(|(x, y)| {
                        x.id == y.id
                            && x.name == y.name
                            && x.rows.len() == y.rows.len()
                            && x.rows.iter().zip(&y.rows).all(|(r, s)| r.identical(s))
                    })
            }
            _ => self == other,
        }
    }

    /// Parses the `data` member for a tab of `kind`.
    pub fn from_value(kind: TabKind, data: Value) -> Result<Self, serde_json::Error> {
        Ok(match kind {
            TabKind::Markdown => TabData::Markdown(serde_json::from_value(data)?),
            TabKind::Sheet => TabData::Sheet(serde_json::from_value(data)?),
            TabKind::Slides => TabData::Slides(serde_json::from_value(data)?),
            TabKind::Sources => TabData::Sources(serde_json::from_value(data)?),
            TabKind::Files => TabData::Files(serde_json::from_value(data)?),
        })
    }
}

/// See [`TabData::content`].
struct Content<'a>(&'a TabData);

impl Serialize for Content<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            TabData::Markdown(t) => t.serialize(serializer),
            TabData::Sheet(s) => s.serialize(serializer),
            TabData::Slides(d) => d.serialize(serializer),
            TabData::Sources(s) => s.serialize(serializer),
            TabData::Files(f) => f.serialize(serializer),
        }
    }
}

#[derive(Deserialize)]
struct RawTab {
    id: TabId,
    #[serde(rename = "type")]
    kind: TabKind,
    label: String,
    data: Value,
}

impl TryFrom<RawTab> for Tab {
    type Error = serde_json::Error;
    fn try_from(raw: RawTab) -> Result<Self, Self::Error> {
        Ok(Tab {
            id: raw.id,
            label: raw.label,
            data: TabData::from_value(raw.kind, raw.data)?,
        })
    }
}

/// As [`RawTab`] (the same members, in the same order), written from the tab in place: a
/// conversion into `RawTab` copied the whole content twice (the tab, then its data as a
/// [`Value`]) each time a Note was written out, 20 MiB for a 10 MiB text.
impl Serialize for Tab {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut raw = serializer.serialize_struct("RawTab", 4)?;
        raw.serialize_field("id", &self.id)?;
        raw.serialize_field("type", &self.data.kind())?;
        raw.serialize_field("label", &self.label)?;
        raw.serialize_field("data", &self.data.content())?;
        raw.end()
    }
}

/// A cell: a JSON scalar (null, boolean, number or string).
pub type Cell = Value;

/// Two cells are the same: floating-point numbers by their bits, anything else by `==`.
pub fn same_cell(a: &Cell, b: &Cell) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) if x.is_f64() && y.is_f64() => {
            x.as_f64().map(f64::to_bits) == y.as_f64().map(f64::to_bits)
        }
        _ => a == b,
    }
}

/// A Sheet tab holds one or more sheets (grids of cells).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct SheetTab {
    pub sheets: Vec<Sheet>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct Sheet {
    pub id: String,
    pub name: String,
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Vec<Vec<Cell>>"))]
    pub rows: Vec<Row>,
}

/// One row of a sheet, shared between the versions of a Note that hold it unchanged: a copy of
/// a Note copies a pointer per row, and writing a cell copies only its row (copy on write,
/// through `DerefMut`). On the wire and everywhere else it is its cells (`Deref<Target =
/// Vec<Cell>>`).
#[derive(Clone, Default)]
pub struct Row(Arc<Vec<Cell>>);

impl std::fmt::Debug for Row {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl Row {
    /// The same row to the bit (see [`TabData::identical`]); a row shared with `other` is, at
    /// the cost of a pointer comparison.
    pub fn identical(&self, other: &Row) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
            || (self.len() == other.len()
                && self.iter().zip(other.iter()).all(|(c, d)| same_cell(c, d)))
    }

    /// Whether the two are one row shared, not two rows alike.
    pub fn shares(&self, other: &Row) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl From<Vec<Cell>> for Row {
    fn from(cells: Vec<Cell>) -> Self {
        Row(Arc::new(cells))
    }
}

impl std::ops::Deref for Row {
    type Target = Vec<Cell>;
    fn deref(&self) -> &Vec<Cell> {
        &self.0
    }
}

impl std::ops::DerefMut for Row {
    /// The row's own cells, copied first if another version shares them.
    fn deref_mut(&mut self) -> &mut Vec<Cell> {
        Arc::make_mut(&mut self.0)
    }
}

impl AsRef<[Cell]> for Row {
    fn as_ref(&self) -> &[Cell] {
        &self.0
    }
}

impl PartialEq for Row {
    fn eq(&self, other: &Row) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0 == other.0
    }
}

impl PartialEq<Vec<Cell>> for Row {
    fn eq(&self, other: &Vec<Cell>) -> bool {
        *self.0 == *other
    }
}

impl Serialize for Row {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Row {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Vec::<Cell>::deserialize(deserializer).map(Row::from)
    }
}

/// A Slides deck: the person picks the theme and per-slide layouts; the agent writes only
/// titles, bodies and speaker notes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct Deck {
    #[serde(default)]
    pub theme: Theme,
    #[serde(default)]
    pub slides: Vec<Slide>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct Slide {
    pub id: String,
    pub title: String,
    #[serde(default)]
    pub body: String,
    #[serde(default)]
    pub notes: String,
    #[serde(default)]
    pub layout: Layout,
}

/// The five deck themes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Theme {
    #[default]
    Paper,
    Ink,
    Ocean,
    Forest,
    Sunset,
}

impl Theme {
    pub const ALL: [Theme; 5] = [
        Theme::Paper,
        Theme::Ink,
        Theme::Ocean,
        Theme::Forest,
        Theme::Sunset,
    ];
}

/// Per-slide layouts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Layout {
    #[default]
    TitleAndBody,
    TitleOnly,
    Section,
    TwoColumn,
    Quote,
}

/// A web citation. `normalized_url` is the Note-wide key: one source per page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct Source {
    pub id: String,
    pub title: String,
    pub url: String,
    pub normalized_url: String,
    pub added_by: String,
    pub added_at: String,
}

/// Attachment metadata. The content never travels through the agent's channel.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct FileMeta {
    pub id: String,
    pub name: String,
    pub mime: String,
    pub size: u64,
    pub sha256: String,
    #[serde(default)]
    pub added_by: String,
    #[serde(default)]
    pub added_at: String,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use serde_json::json;

    /// Every kind of tab is written as `{id, type, label, data}` (members in that order, `data`
    /// in the kind's shape) and reads back the same.
    #[test]
    fn a_tab_is_written_in_place_as_its_wire_form() {
        let sheet: SheetTab = serde_json::from_value(
            json!({"sheets": [{"id": "s1", "name": "Sheet 1", "rows": [[1, "a", null]]}]}),
        )
        .unwrap();
        let cases = [
            (
                TabData::Markdown("# Hi \"there\"\n".into()),
                "markdown",
                r##""# Hi \"there\"\n""##,
            ),
            (
                TabData::Sheet(sheet),
                "sheet",
                r#"{"sheets":[{"id":"s1","name":"Sheet 1","rows":[[1,"a",null]]}]}"#,
            ),
            (
                TabData::Slides(Deck {
                    theme: Theme::Paper,
                    slides: Vec::new(),
                }),
                "slides",
                r#"{"theme":"paper","slides":[]}"#,
            ),
            (TabData::Sources(Vec::new()), "sources", "[]"),
            (TabData::Files(Vec::new()), "files", "[]"),
        ];
        for (data, kind, wire_data) in cases {
            let tab = Tab {
                id: TabId::new(format!("{kind}-1")),
                label: "Label \u{e9}".into(),
                data,
            };
            let written = serde_json::to_string(&tab).unwrap();
            assert_eq!(
                written,
                format!(
                    r#"{{"id":"{kind}-1","type":"{kind}","label":"Label é","data":{wire_data}}}"#
                )
            );
            let back: Tab = serde_json::from_str(&written).unwrap();
            assert!(back.identical(&tab), "{kind}");
        }
    }
}
