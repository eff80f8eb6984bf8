//! A sheet as CSV (RFC 4180, the `csv` crate): one record per row, as long as the row (rows
//! of different lengths are kept so); a cell as its text. Read back, a cell is text (a
//! string), and an empty field an empty cell.

use quire_model::{Cell, Row};
use serde_json::Value;

/// UTF-8's byte order mark, which spreadsheet programs write at the start of a CSV file.
const BOM: &[u8] = b"\xef\xbb\xbf";

/// The sheet's CSV file.
pub fn write<R: AsRef<[Cell]>>(rows: &[R]) -> Result<Vec<u8>, csv::Error> {
    // A reader takes a byte order mark at the start for one, not for the first cell's text: a
    // first cell that starts with one gets a mark of the file's own in front of it.
    let first_has_mark = rows
        .first()
        .and_then(|r| r.as_ref().first())
        .is_some_and(|c| text(c).starts_with('\u{feff}'));
    let start = if first_has_mark {
        BOM.to_vec()
    } else {
        Vec::new()
    };
    let mut out = csv::WriterBuilder::new()
        .flexible(true)
        .terminator(csv::Terminator::CRLF)
        .from_writer(start);
    for row in rows {
        let row = row.as_ref();
        if row.is_empty() {
            // A record of no fields would be an empty line, which readers skip.
            out.write_record([""])?;
        } else {
            out.write_record(row.iter().map(text))?;
        }
    }
    out.into_inner().map_err(|e| e.into_error().into())
}

/// The rows of a CSV file, every cell as text (an empty field: an empty cell).
pub fn read(bytes: &[u8]) -> Result<Vec<Row>, csv::Error> {
    // The reader skips a byte order mark at the start itself.
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(bytes);
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record?;
        let mut row: Vec<Cell> = record
            .iter()
            .map(|field| match field {
                "" => Value::Null,
                text => Value::String(text.to_owned()),
            })
            .collect();
        while row.last() == Some(&Value::Null) {
            row.pop();
        }
        rows.push(Row::from(row));
    }
    Ok(rows)
}

/// A cell as the text a spreadsheet shows: a number as JSON writes it (exactly the number),
/// `true` / `false`, nothing for an empty cell.
pub fn text(cell: &Cell) -> String {
    match cell {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        other => other.to_string(),
    }
}

/// A row as it reads back from the CSV file: every cell as text, without the empty cells at
/// its end.
pub fn as_read_back(row: &[Cell]) -> Vec<Cell> {
    let mut row: Vec<Cell> = row
        .iter()
        .map(|c| match text(c) {
            t if t.is_empty() => Value::Null,
            t => Value::String(t),
        })
        .collect();
    while row.last() == Some(&Value::Null) {
        row.pop();
    }
    row
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn cells_survive_commas_quotes_and_line_breaks() {
        let rows: Vec<Vec<Cell>> = vec![
            vec![
                json!("a,b"),
                json!("say \"hi\""),
                json!("two\nlines"),
                json!("cr\r\nlf"),
            ],
            vec![],
            vec![
                json!(1.5),
                json!(-0.0),
                json!(9007199254740993u64),
                json!(true),
                json!(null),
            ],
            vec![json!(null), json!(""), json!(" padded ")],
            vec![json!("é ✓ 🙂")],
        ];
        let csv = write(&rows).expect("write");
        let back = read(&csv).expect("read");
        let want: Vec<Vec<Cell>> = rows.iter().map(|r| as_read_back(r)).collect();
        assert_eq!(back, want);
        assert_eq!(
            back[2],
            vec![
                json!("1.5"),
                json!("-0.0"),
                json!("9007199254740993"),
                json!("true")
            ]
        );
        assert_eq!(back[3], vec![json!(null), json!(null), json!(" padded ")]);
    }

    #[test]
    fn a_spreadsheet_file_reads_with_its_bom_and_ragged_rows() {
        let back = read(b"\xef\xbb\xbfname,qty\nbolt,3\n\"x\"\"y\",\n").expect("read");
        assert_eq!(
            back,
            vec![
                vec![json!("name"), json!("qty")],
                vec![json!("bolt"), json!("3")],
                vec![json!("x\"y")],
            ]
        );
    }
}
