//! Checks tool arguments against the very JSON Schema that `tools/list` advertises.
//!
//! A small validator for the subset of JSON Schema the tool contract uses (`type`, `enum`,
//! `required`, `properties`, `additionalProperties: false`, `items`, `minItems`/`maxItems`,
//! `minimum`/`maximum`, `minLength`/`maxLength`). A schema keyword it does not know is a
//! programming error caught by the unit tests, never silently unenforced. Verdicts read like the
//! seeds' (`slides: [0] unexpected bullets`, `limit: maximum 50`, `missing title`): the argument
//! at fault first, then what is wrong with it.

use std::fmt;

use serde::Serialize;
use serde_json::{Map, Value};

/// The schema keywords this validator enforces, plus the annotations it may ignore.
pub(crate) const KNOWN_KEYWORDS: &[&str] = &[
    "type",
    "enum",
    "required",
    "properties",
    "additionalProperties",
    "items",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "description",
];

/// One step of a path into the arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Seg {
    Key(String),
    Index(usize),
}

/// One reason the arguments do not fit the schema.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Violation {
    /// The argument at fault, as a path: `slides[0].bullets`, `limit`, `title`.
    pub field: String,
    /// The verdict, naming the argument: `slides: [0] unexpected bullets`.
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl Violation {
    /// `at` is where the check ran (an object for `required`/`additionalProperties`, else the
    /// value itself); `name` the property the verdict is about, if it is not `at` itself.
    fn new(at: &[Seg], name: Option<&str>, verdict: String) -> Self {
        let mut field_path = at.to_vec();
        if let Some(name) = name {
            field_path.push(Seg::Key(name.to_owned()));
        }
        Violation {
            field: render_path(&field_path),
            message: render_message(at, &verdict),
        }
    }

    /// A refusal found after the schema, in the same shape.
    pub(crate) fn at_field(field: &str, verdict: impl fmt::Display) -> Self {
        Violation {
            field: field.to_owned(),
            message: format!("{field}: {verdict}"),
        }
    }
}

/// `slides[0].bullets`
fn render_path(path: &[Seg]) -> String {
    let mut out = String::new();
    for seg in path {
        match seg {
            Seg::Key(k) if out.is_empty() => out.push_str(k),
            Seg::Key(k) => {
                out.push('.');
                out.push_str(k);
            }
            Seg::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// `verdict` at the root; otherwise `top: rest verdict` (`slides: [0] unexpected bullets`).
fn render_message(at: &[Seg], verdict: &str) -> String {
    match at.split_first() {
        None => verdict.to_owned(),
        Some((top, rest)) => {
            let top = render_path(std::slice::from_ref(top));
            if rest.is_empty() {
                format!("{top}: {verdict}")
            } else {
                let rest = render_path(rest);
                let rest = rest.strip_prefix('.').unwrap_or(&rest);
                format!("{top}: {rest} {verdict}")
            }
        }
    }
}

/// Every violation of `schema` by `value`, in a stable order (empty: the value fits).
pub fn validate(schema: &Value, value: &Value) -> Vec<Violation> {
    let mut out = Vec::new();
    let mut path = Vec::new();
    check(schema, value, &mut path, &mut out);
    out
}

fn check(schema: &Value, value: &Value, path: &mut Vec<Seg>, out: &mut Vec<Violation>) {
    let Some(schema) = schema.as_object() else {
        // `true`/`{}`-like schemas accept anything.
        return;
    };
    if let Some(ty) = schema.get("type").and_then(Value::as_str)
        && !has_type(value, ty)
    {
        out.push(Violation::new(
            path,
            None,
            format!("not of type {ty} (got {})", type_name(value)),
        ));
        return;
    }
    if let Some(allowed) = schema.get("enum").and_then(Value::as_array)
        && !allowed.contains(value)
    {
        out.push(Violation::new(path, None, "not in enum".to_owned()));
        return;
    }
    match value {
        Value::Object(map) => check_object(schema, map, path, out),
        Value::Array(items) => check_array(schema, items, path, out),
        Value::Number(n) => check_number(schema, n, path, out),
        Value::String(s) => check_string(schema, s, path, out),
        Value::Null | Value::Bool(_) => {}
    }
}

fn check_object(
    schema: &Map<String, Value>,
    map: &Map<String, Value>,
    path: &mut Vec<Seg>,
    out: &mut Vec<Violation>,
) {
    let properties = schema.get("properties").and_then(Value::as_object);
    if let Some(required) = schema.get("required").and_then(Value::as_array) {
        for name in required.iter().filter_map(Value::as_str) {
            if !map.contains_key(name) {
                out.push(Violation::new(path, Some(name), format!("missing {name}")));
            }
        }
    }
    let closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
    for (name, item) in map {
        match properties.and_then(|p| p.get(name)) {
            Some(sub) => {
                path.push(Seg::Key(name.clone()));
                check(sub, item, path, out);
                path.pop();
            }
            None if closed => {
                out.push(Violation::new(
                    path,
                    Some(name),
                    format!("unexpected {name}"),
                ));
            }
            None => {}
        }
    }
}

fn check_array(
    schema: &Map<String, Value>,
    items: &[Value],
    path: &mut Vec<Seg>,
    out: &mut Vec<Violation>,
) {
    if let Some(min) = schema.get("minItems").and_then(Value::as_u64)
        && (items.len() as u64) < min
    {
        out.push(Violation::new(path, None, format!("minItems {min}")));
        return;
    }
    if let Some(max) = schema.get("maxItems").and_then(Value::as_u64)
        && (items.len() as u64) > max
    {
        out.push(Violation::new(path, None, format!("maxItems {max}")));
        return;
    }
    if let Some(item_schema) = schema.get("items") {
        for (i, item) in items.iter().enumerate() {
            path.push(Seg::Index(i));
            check(item_schema, item, path, out);
            path.pop();
        }
    }
}

fn check_number(
    schema: &Map<String, Value>,
    n: &serde_json::Number,
    path: &[Seg],
    out: &mut Vec<Violation>,
) {
    let Some(x) = n.as_f64() else { return };
    if let Some(min) = schema.get("minimum").and_then(Value::as_f64)
        && x < min
    {
        out.push(Violation::new(
            path,
            None,
            format!("minimum {}", number(min)),
        ));
    }
    if let Some(max) = schema.get("maximum").and_then(Value::as_f64)
        && x > max
    {
        out.push(Violation::new(
            path,
            None,
            format!("maximum {}", number(max)),
        ));
    }
}

fn check_string(schema: &Map<String, Value>, s: &str, path: &[Seg], out: &mut Vec<Violation>) {
    let len = s.chars().count() as u64;
    if let Some(min) = schema.get("minLength").and_then(Value::as_u64)
        && len < min
    {
        out.push(Violation::new(path, None, format!("minLength {min}")));
    }
    if let Some(max) = schema.get("maxLength").and_then(Value::as_u64)
        && len > max
    {
        out.push(Violation::new(path, None, format!("maxLength {max}")));
    }
}

fn has_type(value: &Value, ty: &str) -> bool {
    match ty {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        "number" => value.is_number(),
        "integer" => value.is_i64() || value.is_u64(),
        // An unknown type name is caught by the unit tests over tools.json.
        _ => false,
    }
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// `50`, not `50.0`.
fn number(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}

/// Every keyword used anywhere in `schema` that this validator does not know.
pub(crate) fn unknown_keywords(schema: &Value) -> Vec<String> {
    let mut out = Vec::new();
    collect_unknown(schema, &mut out);
    out
}

fn collect_unknown(schema: &Value, out: &mut Vec<String>) {
    let Some(map) = schema.as_object() else {
        return;
    };
    for (key, sub) in map {
        if !KNOWN_KEYWORDS.contains(&key.as_str()) {
            out.push(key.clone());
        }
        match key.as_str() {
            "properties" => {
                if let Some(props) = sub.as_object() {
                    props.values().for_each(|s| collect_unknown(s, out));
                }
            }
            "items" => collect_unknown(sub, out),
            "type" => {
                let known = [
                    "object", "array", "string", "boolean", "null", "number", "integer",
                ];
                if !sub.as_str().is_some_and(|t| known.contains(&t)) {
                    out.push(format!("type {sub}"));
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use serde_json::json;

    use super::*;

    fn messages(schema: &Value, value: Value) -> Vec<String> {
        validate(schema, &value)
            .into_iter()
            .map(|v| v.message)
            .collect()
    }

    #[test]
    fn verdicts_name_the_field() {
        let schema = json!({
            "type": "object",
            "required": ["title"],
            "additionalProperties": false,
            "properties": {
                "title": {"type": "string"},
                "limit": {"type": "integer", "minimum": 1, "maximum": 50},
                "kind": {"enum": ["a", "b"]},
                "slides": {"type": "array", "minItems": 1, "maxItems": 2, "items": {
                    "type": "object", "required": ["title"], "additionalProperties": false,
                    "properties": {"title": {"type": "string"}}
                }},
                "key": {"type": "string", "minLength": 1}
            }
        });
        let cases: Vec<(Value, Vec<&str>)> = vec![
            (json!({"title": "t"}), vec![]),
            (json!({}), vec!["missing title"]),
            (json!({"title": "t", "index": 0}), vec!["unexpected index"]),
            (
                json!({"title": "t", "kind": "c"}),
                vec!["kind: not in enum"],
            ),
            (
                json!({"title": "t", "limit": 100}),
                vec!["limit: maximum 50"],
            ),
            (json!({"title": "t", "limit": 0}), vec!["limit: minimum 1"]),
            (
                json!({"title": "t", "limit": 1.5}),
                vec!["limit: not of type integer (got number)"],
            ),
            (
                json!({"title": 3}),
                vec!["title: not of type string (got integer)"],
            ),
            (json!({"title": "t", "key": ""}), vec!["key: minLength 1"]),
            (
                json!({"title": "t", "slides": []}),
                vec!["slides: minItems 1"],
            ),
            (
                json!({"title": "t", "slides": [{"title": "a"}, {"title": "b"}, {"title": "c"}]}),
                vec!["slides: maxItems 2"],
            ),
            (
                json!({"title": "t", "slides": [{"title": "a", "bullets": ["x"]}]}),
                vec!["slides: [0] unexpected bullets"],
            ),
            (
                json!({"title": "t", "slides": [{"title": "a"}, {}]}),
                vec!["slides: [1] missing title"],
            ),
            (json!([1]), vec!["not of type object (got array)"]),
        ];
        for (value, want) in cases {
            assert_eq!(messages(&schema, value.clone()), want, "{value}");
        }
    }

    #[test]
    fn fields_are_paths() {
        let schema = json!({"type": "object", "properties": {"slides": {"type": "array", "items": {
            "type": "object", "additionalProperties": false, "properties": {}
        }}}});
        let v = validate(&schema, &json!({"slides": [{}, {"bullets": 1}]}));
        assert_eq!(v[0].field, "slides[1].bullets");
    }

    #[test]
    fn all_violations_are_reported() {
        let schema = json!({"type": "object", "required": ["a", "b"], "additionalProperties": false,
            "properties": {"a": {"type": "string"}, "b": {"type": "string"}}});
        assert_eq!(
            messages(&schema, json!({"c": 1})),
            vec!["missing a", "missing b", "unexpected c"]
        );
    }

    #[test]
    fn unknown_keywords_are_reported() {
        let schema = json!({"type": "object", "properties": {"a": {"oneOf": [], "type": "int"}}});
        assert_eq!(unknown_keywords(&schema), vec!["oneOf", "type \"int\""]);
    }
}
