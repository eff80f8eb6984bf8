//! The tools: check the arguments against the advertised schema, read them into typed values,
//! call one `Notes` function on the agent's channel, and shape the answer. No business rules
//! live here: scopes, approval, the guarded write and every domain check are the core's.

use quire_api::WriteResult;
use quire_model::{NoteId, Op, OpOutcome, Version};
use quire_store::{Change, StoreError};
use rmcp::ErrorData;
use rmcp::model::{CallToolResult, Tool};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use super::args::{
    AttachmentsArgs, CreateNoteArgs, CreateTabArgs, EditArgs, EditTextArgs, Guard, LinesArgs,
    NoteArgs, SearchArgs, SheetRangeArgs, SourceArgs, TabArgs, check_operation_fields,
};
use super::catalog::check_arguments;
use super::schema::Violation;
use super::views;
use crate::notes::{Caller, Channel, Notes, NotesError};

/// Why a call produced no answer. Mapped once, in [`ToolError::into_result`].
#[derive(Debug, thiserror::Error)]
pub(crate) enum ToolError {
    #[error("{}", join(.0))]
    Invalid(Vec<Violation>),
    #[error(transparent)]
    Notes(#[from] NotesError),
}

impl From<Violation> for ToolError {
    fn from(v: Violation) -> Self {
        ToolError::Invalid(vec![v])
    }
}

fn join(v: &[Violation]) -> String {
    v.iter()
        .map(|v| v.message.as_str())
        .collect::<Vec<_>>()
        .join("; ")
}

impl ToolError {
    /// A refusal the agent can act on is an ordinary tool result with `isError: true` and a
    /// stable `error` code (MCP puts argument and domain errors there so the model can correct
    /// itself); only a failure of the server itself is a JSON-RPC error.
    pub(crate) fn into_result(self) -> Result<CallToolResult, ErrorData> {
        let body = match self {
            ToolError::Invalid(violations) => invalid_arguments(&violations),
            ToolError::Notes(NotesError::MissingScope(scope)) => json!({
                "error": "insufficient_scope",
                "scope": scope.as_str(),
                "message": format!(
                    "this token lacks the {} scope; ask the person for a token that has it",
                    scope.as_str()
                ),
            }),
            ToolError::Notes(NotesError::EmptyQuery(e)) => {
                invalid_arguments(&[Violation::at_field("query", e)])
            }
            // No tool reverts (the person's REST route does): answered plainly all the same.
            ToolError::Notes(e @ NotesError::RevertFirst) => json!({
                "error": "invalid_field",
                "field": "version",
                "message": e.to_string(),
            }),
            ToolError::Notes(NotesError::RevertConflict(clash)) => json!({
                "error": "revert_conflict",
                "tab_ids": clash.tab_ids,
                "message": clash.to_string(),
            }),
            ToolError::Notes(NotesError::PersonOnly) => json!({
                "error": "agent_token",
                "message": "only the person decides which Notes agents may see",
            }),
            ToolError::Notes(NotesError::Store(e)) => match e {
                StoreError::Conflict(c) => json!({
                    "error": "version_conflict",
                    "current_version": c.current_version,
                    "changed_tab_ids": c.changed_tab_ids,
                    "message": "The Note changed after you read it. Read the tab again, redo your change on what is there now, and write with the new version and a new idempotency_key.",
                }),
                // A trashed Note is as missing to an agent as one that never was.
                StoreError::NoteNotFound(id) | StoreError::NoteInTrash(id) => json!({
                    "error": "note_not_found",
                    "field": "note_id",
                    "message": format!(
                        "note_id: no note {id} that this connector may see (list_notes shows those the person approved)"
                    ),
                }),
                StoreError::Invalid(op) => {
                    let mut body = json!({
                        "error": op.code.as_str(),
                        "field": op.field,
                        "message": op.to_string(),
                    });
                    // An edit of edit_note_text not found once: which, and how often.
                    if let Some(miss) = op.edit {
                        body["index"] = json!(miss.index);
                        body["occurrences"] = json!(miss.occurrences);
                    }
                    body
                }
                StoreError::BadKey(reason) => {
                    invalid_arguments(&[Violation::at_field("idempotency_key", reason)])
                }
                StoreError::VersionNotFound { .. }
                | StoreError::NotInTrash(_)
                | StoreError::TokenNotFound(_)
                | StoreError::Backend(_)
                | StoreError::Closed => {
                    tracing::error!(error = %e, "mcp tool call failed in the store");
                    return Err(ErrorData::internal_error(
                        "the server could not complete this call; try again",
                        None,
                    ));
                }
            },
        };
        Ok(CallToolResult::structured_error(body))
    }
}

fn invalid_arguments(violations: &[Violation]) -> Value {
    json!({
        "error": "invalid_arguments",
        "field": violations.first().map(|v| v.field.as_str()).unwrap_or_default(),
        "message": join(violations),
        "violations": violations,
    })
}

/// Runs one tool call for `caller`. `tool` is the catalog entry the name resolved to.
pub(crate) async fn call(
    notes: &Notes,
    caller: &Caller,
    tool: &Tool,
    args: Map<String, Value>,
) -> Result<Value, ToolError> {
    let value = Value::Object(args);
    let violations = check_arguments(tool, &value);
    if !violations.is_empty() {
        return Err(ToolError::Invalid(violations));
    }
    let Value::Object(args) = value else {
        return Err(Violation::at_field("arguments", "not an object").into());
    };
    let agent = Agent { notes, caller };
    match tool.name.as_ref() {
        "list_notes" => agent.list_notes().await,
        "search_notes" => agent.search_notes(typed(args)?).await,
        "list_note_tabs" => agent.list_note_tabs(typed(args)?).await,
        "read_note_tab" => agent.read_note_tab(typed(args)?).await,
        "read_note_lines" => agent.read_note_lines(typed(args)?).await,
        "read_sheet_range" => agent.read_sheet_range(typed(args)?).await,
        "list_note_attachments" => agent.list_note_attachments(typed(args)?).await,
        "edit_note_tab" => {
            let edit: EditArgs = typed(args.clone())?;
            let violations = check_operation_fields(edit.operation, &args);
            if !violations.is_empty() {
                return Err(ToolError::Invalid(violations));
            }
            agent.edit_note_tab(edit).await
        }
        "create_note_tab" => agent.create_note_tab(typed(args)?).await,
        "add_note_source" => agent.add_note_source(typed(args)?).await,
        "edit_note_text" => agent.edit_note_text(typed(args)?).await,
        "create_note" => agent.create_note(typed(args)?).await,
        other => Err(Violation::at_field("name", format!("no tool {other:?}")).into()),
    }
}

/// Reads schema-checked arguments into their typed form. A failure here means the schema
/// admits something the type does not: still refused by name, never assumed.
fn typed<T: DeserializeOwned>(args: Map<String, Value>) -> Result<T, ToolError> {
    serde_json::from_value(Value::Object(args))
        .map_err(|e| Violation::at_field("arguments", e).into())
}

fn note_id(raw: &str) -> Result<NoteId, ToolError> {
    raw.parse::<NoteId>().map_err(|_| {
        Violation::at_field(
            "note_id",
            format!("{raw:?} is not a note ID; take one from list_notes"),
        )
        .into()
    })
}

/// `search_notes` results when `limit` is not given.
const SEARCH_DEFAULT_LIMIT: usize = 10;

struct Agent<'a> {
    notes: &'a Notes,
    caller: &'a Caller,
}

impl Agent<'_> {
    async fn list_notes(&self) -> Result<Value, ToolError> {
        let notes = self.notes.list_notes(self.caller, Channel::Agent).await?;
        let notes: Vec<Value> = notes
            .into_iter()
            .map(|n| {
                json!({
                    "note_id": n.id,
                    "title": n.title,
                    "version": n.version,
                    "updated_at": n.updated_at,
                })
            })
            .collect();
        Ok(json!({ "notes": notes }))
    }

    async fn search_notes(&self, args: SearchArgs) -> Result<Value, ToolError> {
        // The schema bounds `limit` to 1..=50.
        let limit = args.limit.map_or(SEARCH_DEFAULT_LIMIT, |n| {
            usize::try_from(n).unwrap_or(usize::MAX)
        });
        let results = self
            .notes
            .search(self.caller, Channel::Agent, &args.query, limit)
            .await?;
        Ok(json!({ "results": results }))
    }

    async fn note(&self, raw_id: &str) -> Result<quire_model::Note, ToolError> {
        let id = note_id(raw_id)?;
        let stored = self
            .notes
            .get_note(self.caller, &id, Channel::Agent)
            .await?;
        Ok(stored.note)
    }

    async fn list_note_tabs(&self, args: NoteArgs) -> Result<Value, ToolError> {
        let note = self.note(&args.note_id).await?;
        Ok(views::tab_list(&note))
    }

    async fn read_note_tab(&self, args: TabArgs) -> Result<Value, ToolError> {
        let note = self.note(&args.note_id).await?;
        let tab = views::find_tab(&note, &args.tab_id)?;
        Ok(views::tab_content(&note, tab))
    }

    async fn read_note_lines(&self, args: LinesArgs) -> Result<Value, ToolError> {
        let note = self.note(&args.note_id).await?;
        let tab = views::find_tab(&note, &args.tab_id)?;
        Ok(views::text_lines(
            &note,
            tab,
            args.start_line.unwrap_or(1),
            args.line_count.unwrap_or(views::LINES_DEFAULT_COUNT),
            args.find.as_deref(),
        )?)
    }

    async fn read_sheet_range(&self, args: SheetRangeArgs) -> Result<Value, ToolError> {
        let note = self.note(&args.note_id).await?;
        let tab = views::find_tab(&note, &args.tab_id)?;
        Ok(views::sheet_range(
            &note,
            tab,
            args.sheet_id.as_deref(),
            (args.start_row, args.start_col),
            (args.rows, args.cols),
        )?)
    }

    async fn list_note_attachments(&self, args: AttachmentsArgs) -> Result<Value, ToolError> {
        let note = self.note(&args.note_id).await?;
        Ok(views::attachments_page(
            &note,
            args.kind,
            args.limit,
            args.cursor.as_deref(),
        )?)
    }

    async fn edit_note_tab(&self, args: EditArgs) -> Result<Value, ToolError> {
        let tab_id = args.tab_id.clone();
        let (guard, op) = args.into_op()?;
        let result = self.write(guard, op).await?;
        let mut out = written(&result);
        out["tab_id"] = json!(tab_id);
        if let Some(OpOutcome::SlidesAdded { slide_ids, .. }) = result.outcomes.first() {
            out["slide_ids"] = json!(slide_ids);
        }
        Ok(out)
    }

    async fn edit_note_text(&self, args: EditTextArgs) -> Result<Value, ToolError> {
        let tab_id = args.tab_id.clone();
        let (guard, op) = args.into_op();
        let result = self.write(guard, op).await?;
        let mut out = written(&result);
        out["tab_id"] = json!(tab_id);
        Ok(out)
    }

    async fn create_note(&self, args: CreateNoteArgs) -> Result<Value, ToolError> {
        let (stored, replayed) = self
            .notes
            .create_note_for_agent(self.caller, args.title, args.idempotency_key)
            .await?;
        let mut out = views::tab_list(&stored.note);
        out["replayed"] = json!(replayed);
        Ok(out)
    }

    async fn create_note_tab(&self, args: CreateTabArgs) -> Result<Value, ToolError> {
        let (guard, op) = args.into_op();
        let result = self.write(guard, op).await?;
        let mut out = written(&result);
        if let Some(OpOutcome::TabCreated { tab_id }) = result.outcomes.first() {
            out["tab_id"] = json!(tab_id);
        }
        Ok(out)
    }

    async fn add_note_source(&self, args: SourceArgs) -> Result<Value, ToolError> {
        let (guard, op) = args.into_op();
        let result = self.write(guard, op).await?;
        let mut out = written(&result);
        if let Some(OpOutcome::SourceAdded {
            source_id,
            already_attached,
        }) = result.outcomes.first()
        {
            out["source_id"] = json!(source_id);
            out["already_attached"] = json!(already_attached);
        }
        Ok(out)
    }

    /// The one guarded write, on the agent's channel.
    async fn write(&self, guard: Guard, op: Op) -> Result<WriteResult, ToolError> {
        let id = note_id(&guard.note_id)?;
        Ok(self
            .notes
            .write(
                self.caller,
                Channel::Agent,
                id,
                Version(guard.expected_version),
                Some(guard.idempotency_key),
                Change::Ops(vec![op]),
            )
            .await?)
    }
}

/// What every accepted (or replayed) write answers.
fn written(result: &WriteResult) -> Value {
    let mut out = json!({
        "note_id": result.note_id,
        "version": result.version,
        "changed_tab_ids": result.changed_tab_ids,
        "replayed": result.replayed,
    });
    if result.request_differs {
        out["request_differs"] = Value::Bool(true);
    }
    out
}
