//! Typed tool arguments, read after the arguments passed the advertised schema, and their
//! mapping to the domain's operations.

use quire_model::{NewTabKind, Op, SlideInput, TabId, TextEdit};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::schema::Violation;

#[derive(Debug, Deserialize)]
pub(crate) struct NoteArgs {
    pub note_id: String,
}

#[derive(Debug, Deserialize)]
pub(crate) struct SearchArgs {
    pub query: String,
    #[serde(default)]
    pub limit: Option<u64>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct TabArgs {
    pub note_id: String,
    pub tab_id: TabId,
}

#[derive(Debug, Deserialize)]
pub(crate) struct LinesArgs {
    pub note_id: String,
    pub tab_id: TabId,
    #[serde(default)]
    pub start_line: Option<u64>,
    #[serde(default)]
    pub line_count: Option<u64>,
    #[serde(default)]
    pub find: Option<String>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct SheetRangeArgs {
    pub note_id: String,
    pub tab_id: TabId,
    #[serde(default)]
    pub sheet_id: Option<String>,
    pub start_row: u64,
    pub start_col: u64,
    pub rows: u64,
    pub cols: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum AttachmentKind {
    Sources,
    Files,
}

#[derive(Debug, Deserialize)]
pub(crate) struct AttachmentsArgs {
    pub note_id: String,
    #[serde(default)]
    pub kind: Option<AttachmentKind>,
    #[serde(default)]
    pub limit: Option<u64>,
    #[serde(default)]
    pub cursor: Option<String>,
}

/// What every write tool carries: which Note, the version it was read at, and the intent's key.
#[derive(Debug, Deserialize)]
pub(crate) struct Guard {
    pub note_id: String,
    pub expected_version: u64,
    pub idempotency_key: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Operation {
    ReplaceText,
    ReplaceTabData,
    SlideAdd,
    SlidesAddOutline,
    SheetSetRange,
}

impl Operation {
    #[cfg(test)]
    pub(crate) const ALL: [Operation; 5] = [
        Operation::ReplaceText,
        Operation::ReplaceTabData,
        Operation::SlideAdd,
        Operation::SlidesAddOutline,
        Operation::SheetSetRange,
    ];

    pub(crate) fn name(self) -> &'static str {
        match self {
            Operation::ReplaceText => "replace_text",
            Operation::ReplaceTabData => "replace_tab_data",
            Operation::SlideAdd => "slide_add",
            Operation::SlidesAddOutline => "slides_add_outline",
            Operation::SheetSetRange => "sheet_set_range",
        }
    }

    /// The arguments this operation takes beyond the common ones; the first `required` are
    /// required. The advertised schema is flat (as the reference product's is), so this table
    /// is where "replace_text needs text" lives.
    pub(crate) fn fields(self) -> (&'static [&'static str], usize) {
        match self {
            Operation::ReplaceText => (&["text"], 1),
            Operation::ReplaceTabData => (&["data"], 1),
            Operation::SlideAdd => (&["title", "body", "notes"], 1),
            Operation::SlidesAddOutline => (&["slides"], 1),
            Operation::SheetSetRange => (&["start_row", "start_col", "values", "sheet_id"], 3),
        }
    }
}

/// The arguments `edit_note_tab` shares across operations.
pub(crate) const EDIT_COMMON: &[&str] = &[
    "note_id",
    "tab_id",
    "expected_version",
    "idempotency_key",
    "operation",
];

#[derive(Debug, Deserialize)]
pub(crate) struct EditArgs {
    #[serde(flatten)]
    pub guard: Guard,
    pub tab_id: TabId,
    pub operation: Operation,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    data: Option<Value>,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    body: Option<String>,
    #[serde(default)]
    notes: Option<String>,
    #[serde(default)]
    slides: Option<Vec<SlideInput>>,
    #[serde(default)]
    sheet_id: Option<String>,
    #[serde(default)]
    start_row: Option<u64>,
    #[serde(default)]
    start_col: Option<u64>,
    #[serde(default)]
    values: Option<Vec<Vec<Value>>>,
}

/// Refuses arguments that do not belong to `operation` and names those it lacks.
pub(crate) fn check_operation_fields(
    operation: Operation,
    args: &Map<String, Value>,
) -> Vec<Violation> {
    let (fields, required) = operation.fields();
    let op = operation.name();
    let mut out: Vec<Violation> = fields[..required]
        .iter()
        .filter(|f| !args.contains_key(**f))
        .map(|f| Violation::at_field(f, format!("required by {op}")))
        .collect();
    out.extend(
        args.keys()
            .filter(|k| !EDIT_COMMON.contains(&k.as_str()) && !fields.contains(&k.as_str()))
            .map(|k| {
                Violation::at_field(
                    k,
                    format!("not used by {op} (it takes {})", fields.join(", ")),
                )
            }),
    );
    out
}

impl EditArgs {
    /// The domain operation. Call after `check_operation_fields` found nothing; a missing
    /// argument is still refused by name rather than assumed.
    pub(crate) fn into_op(self) -> Result<(Guard, Op), Violation> {
        let op = self.operation.name();
        let need = |field: &str| Violation::at_field(field, format!("required by {op}"));
        let tab_id = self.tab_id;
        let operation = match self.operation {
            Operation::ReplaceText => Op::ReplaceText {
                tab_id,
                text: self.text.ok_or_else(|| need("text"))?,
            },
            Operation::ReplaceTabData => Op::ReplaceTabData {
                tab_id,
                data: self.data.ok_or_else(|| need("data"))?,
            },
            Operation::SlideAdd => Op::SlideAdd {
                tab_id,
                title: self.title.ok_or_else(|| need("title"))?,
                body: self.body.unwrap_or_default(),
                notes: self.notes.unwrap_or_default(),
            },
            Operation::SlidesAddOutline => Op::SlidesAddOutline {
                tab_id,
                slides: self.slides.ok_or_else(|| need("slides"))?,
            },
            Operation::SheetSetRange => Op::SheetSetRange {
                tab_id,
                sheet_id: self.sheet_id,
                start_row: self.start_row.ok_or_else(|| need("start_row"))?,
                start_col: self.start_col.ok_or_else(|| need("start_col"))?,
                values: self.values.ok_or_else(|| need("values"))?,
            },
        };
        Ok((self.guard, operation))
    }
}

#[derive(Debug, Deserialize)]
pub(crate) struct CreateTabArgs {
    #[serde(flatten)]
    pub guard: Guard,
    pub tab_type: NewTabKind,
    #[serde(default)]
    pub label: Option<String>,
    #[serde(default)]
    pub slides: Option<Vec<SlideInput>>,
}

impl CreateTabArgs {
    pub(crate) fn into_op(self) -> (Guard, Op) {
        let op = Op::CreateTab {
            tab_type: self.tab_type,
            label: self.label,
            slides: self.slides,
        };
        (self.guard, op)
    }
}

#[derive(Debug, Deserialize)]
pub(crate) struct SourceArgs {
    #[serde(flatten)]
    pub guard: Guard,
    pub title: String,
    pub url: String,
}

impl SourceArgs {
    pub(crate) fn into_op(self) -> (Guard, Op) {
        let op = Op::AddSource {
            title: self.title,
            url: self.url,
        };
        (self.guard, op)
    }
}

#[derive(Debug, Deserialize)]
pub(crate) struct EditTextArgs {
    #[serde(flatten)]
    pub guard: Guard,
    pub tab_id: String,
    pub edits: Vec<TextEdit>,
}

impl EditTextArgs {
    pub(crate) fn into_op(self) -> (Guard, Op) {
        let op = Op::EditText {
            tab_id: TabId::new(self.tab_id),
            edits: self.edits,
        };
        (self.guard, op)
    }
}

#[derive(Debug, Deserialize)]
pub(crate) struct CreateNoteArgs {
    pub title: String,
    pub idempotency_key: String,
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use serde_json::json;

    use super::*;

    fn verdicts(operation: Operation, args: Value) -> Vec<String> {
        check_operation_fields(operation, args.as_object().unwrap())
            .into_iter()
            .map(|v| v.message)
            .collect()
    }

    #[test]
    fn each_operation_takes_its_own_arguments() {
        let common = json!({"note_id": "n", "tab_id": "t", "expected_version": 1,
                            "idempotency_key": "k", "operation": "x"});
        let with = |extra: Value| {
            let mut args = common.clone();
            args.as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            args
        };
        let cases = [
            (Operation::ReplaceText, with(json!({"text": ""})), vec![]),
            (
                Operation::ReplaceText,
                with(json!({})),
                vec!["text: required by replace_text"],
            ),
            (
                Operation::ReplaceText,
                with(json!({"text": "", "title": "t"})),
                vec!["title: not used by replace_text (it takes text)"],
            ),
            (
                Operation::SlideAdd,
                with(json!({"title": "t", "notes": "n"})),
                vec![],
            ),
            (
                Operation::SlideAdd,
                with(json!({"body": "b"})),
                vec!["title: required by slide_add"],
            ),
            (
                Operation::SheetSetRange,
                with(json!({"start_row": 0, "values": []})),
                vec!["start_col: required by sheet_set_range"],
            ),
            (
                Operation::SlidesAddOutline,
                with(json!({"slides": [], "text": "x"})),
                vec!["text: not used by slides_add_outline (it takes slides)"],
            ),
            (
                Operation::ReplaceTabData,
                with(json!({"data": null})),
                vec![],
            ),
        ];
        for (operation, args, want) in cases {
            assert_eq!(verdicts(operation, args.clone()), want, "{args}");
        }
    }
}
