//! The tool contract as data: `tools.json` is advertised by `tools/list` as it is, and every
//! call's arguments are checked against the same `inputSchema` before anything runs.

use std::sync::Arc;

use rmcp::model::Tool;
use serde_json::Value;

use super::schema::{self, Violation};

const TOOLS_JSON: &str = include_str!("tools.json");

#[derive(Debug, thiserror::Error)]
#[error("the built-in MCP tool list (src/mcp/tools.json) is not valid: {0}")]
pub struct CatalogError(String);

#[derive(Debug, Clone)]
pub(crate) struct Catalog {
    tools: Arc<Vec<Tool>>,
}

impl Catalog {
    pub(crate) fn load() -> Result<Self, CatalogError> {
        let tools: Vec<Tool> =
            serde_json::from_str(TOOLS_JSON).map_err(|e| CatalogError(e.to_string()))?;
        for tool in &tools {
            let unknown = schema::unknown_keywords(&Value::Object((*tool.input_schema).clone()));
            if !unknown.is_empty() {
                return Err(CatalogError(format!(
                    "{}: schema keywords the validator does not enforce: {}",
                    tool.name,
                    unknown.join(", ")
                )));
            }
            if let Some(missing) = incomplete(tool) {
                return Err(CatalogError(format!("{}: no {missing}", tool.name)));
            }
        }
        Ok(Catalog {
            tools: Arc::new(tools),
        })
    }

    pub(crate) fn tools(&self) -> &[Tool] {
        &self.tools
    }

    pub(crate) fn get(&self, name: &str) -> Option<&Tool> {
        self.tools.iter().find(|t| t.name == name)
    }
}

/// What a tool must declare besides its name and input: a `title`, every hint (and
/// `openWorldHint: false`: no tool reaches past this server) and an object `outputSchema`.
/// `None` when it has them all, else the first one missing.
fn incomplete(tool: &Tool) -> Option<&'static str> {
    let Some(a) = tool.annotations.as_ref() else {
        return Some("annotations");
    };
    let object_output = tool
        .output_schema
        .as_ref()
        .is_some_and(|s| s.get("type").and_then(Value::as_str) == Some("object"));
    [
        (tool.title.is_some(), "title"),
        (a.read_only_hint.is_some(), "readOnlyHint"),
        (a.destructive_hint.is_some(), "destructiveHint"),
        (a.idempotent_hint.is_some(), "idempotentHint"),
        (a.open_world_hint == Some(false), "openWorldHint: false"),
        (object_output, "outputSchema of type object"),
    ]
    .into_iter()
    .find_map(|(present, name)| (!present).then_some(name))
}

/// Every way `args` departs from the tool's advertised `inputSchema`.
pub(crate) fn check_arguments(tool: &Tool, args: &Value) -> Vec<Violation> {
    schema::validate(&Value::Object((*tool.input_schema).clone()), args)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::mcp::args::{EDIT_COMMON, Operation};

    #[test]
    fn the_catalog_loads_and_every_keyword_is_enforced() {
        let catalog = Catalog::load().unwrap();
        assert_eq!(
            catalog
                .tools()
                .iter()
                .map(|t| t.name.as_ref())
                .collect::<Vec<_>>(),
            [
                "list_notes",
                "search_notes",
                "list_note_tabs",
                "read_note_tab",
                "read_note_lines",
                "read_sheet_range",
                "list_note_attachments",
                "edit_note_tab",
                "create_note_tab",
                "add_note_source",
                "edit_note_text",
                "create_note",
            ]
        );
    }

    #[test]
    fn a_tool_without_a_title_hint_or_output_schema_is_incomplete() {
        let catalog = Catalog::load().unwrap();
        let tool = catalog.get("read_note_lines").unwrap();
        assert_eq!(incomplete(tool), None);
        let mut t = tool.clone();
        t.title = None;
        assert_eq!(incomplete(&t), Some("title"));
        let mut t = tool.clone();
        t.output_schema = None;
        assert_eq!(incomplete(&t), Some("outputSchema of type object"));
        let mut t = tool.clone();
        if let Some(a) = t.annotations.as_mut() {
            a.idempotent_hint = None;
        }
        assert_eq!(incomplete(&t), Some("idempotentHint"));
        let mut t = tool.clone();
        if let Some(a) = t.annotations.as_mut() {
            a.open_world_hint = Some(true);
        }
        assert_eq!(incomplete(&t), Some("openWorldHint: false"));
        let mut t = tool.clone();
        t.annotations = None;
        assert_eq!(incomplete(&t), Some("annotations"));
    }

    /// The per-operation table and the flat schema name the same operations and arguments.
    #[test]
    fn operation_table_matches_the_edit_schema() {
        let catalog = Catalog::load().unwrap();
        let schema = &catalog.get("edit_note_tab").unwrap().input_schema;
        let enumerated: Vec<&str> = schema["properties"]["operation"]["enum"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        let names: Vec<&str> = Operation::ALL.iter().map(|o| o.name()).collect();
        assert_eq!(enumerated, names);
        let properties: BTreeSet<&str> = schema["properties"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let mut covered: BTreeSet<&str> = EDIT_COMMON.iter().copied().collect();
        for op in Operation::ALL {
            covered.extend(op.fields().0.iter().copied());
        }
        assert_eq!(properties, covered);
    }
}
