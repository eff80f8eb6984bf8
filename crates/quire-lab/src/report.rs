//! Markdown output: one section per experiment, its tables with the articles' figures in
//! adjacent columns, and the notes that say how Quire's run differs.

use std::time::Duration;

/// A Markdown table.
#[derive(Debug, Clone)]
pub struct Table {
    headers: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new(headers: &[&str]) -> Self {
        Table {
            headers: headers.iter().map(|h| (*h).to_owned()).collect(),
            rows: Vec::new(),
        }
    }

    /// Adds a row; missing cells are left empty, extra ones dropped.
    pub fn row(&mut self, cells: Vec<String>) {
        let mut cells = cells;
        cells.resize(self.headers.len(), String::new());
        self.rows.push(cells);
    }

    pub fn to_markdown(&self) -> String {
        let mut out = String::new();
        let line = |cells: &[String]| {
            let escaped: Vec<String> = cells.iter().map(|c| c.replace('|', "\\|")).collect();
            format!("| {} |\n", escaped.join(" | "))
        };
        out.push_str(&line(&self.headers));
        out.push_str(&format!(
            "|{}\n",
            self.headers.iter().map(|_| "---|").collect::<String>()
        ));
        for row in &self.rows {
            out.push_str(&line(row));
        }
        out
    }
}

/// One experiment's output.
#[derive(Debug, Clone)]
pub struct Section {
    pub title: String,
    /// What was run: parameters, transport, store settings.
    pub setup: Vec<String>,
    pub tables: Vec<(Option<String>, Table)>,
    /// What the numbers say, and where and why they differ from the article's.
    pub notes: Vec<String>,
    pub elapsed: Duration,
}

impl Section {
    pub fn new(title: impl Into<String>) -> Self {
        Section {
            title: title.into(),
            setup: Vec::new(),
            tables: Vec::new(),
            notes: Vec::new(),
            elapsed: Duration::ZERO,
        }
    }

    pub fn setup(&mut self, line: impl Into<String>) {
        self.setup.push(line.into());
    }

    pub fn table(&mut self, caption: Option<&str>, table: Table) {
        self.tables.push((caption.map(str::to_owned), table));
    }

    pub fn note(&mut self, line: impl Into<String>) {
        self.notes.push(line.into());
    }

    /// The section with its last table, timed from `started`: how an experiment ends.
    pub fn finish(mut self, table: Table, started: std::time::Instant) -> Self {
        self.table(None, table);
        self.elapsed = started.elapsed();
        self
    }

    pub fn to_markdown(&self) -> String {
        let mut out = format!("### {}\n\n", self.title);
        for line in &self.setup {
            out.push_str(&format!("- {line}\n"));
        }
        out.push_str(&format!(
            "- wall time: {:.1} s\n\n",
            self.elapsed.as_secs_f64()
        ));
        for (caption, table) in &self.tables {
            if let Some(caption) = caption {
                out.push_str(&format!("{caption}\n\n"));
            }
            out.push_str(&table.to_markdown());
            out.push('\n');
        }
        for note in &self.notes {
            out.push_str(&format!("- {note}\n"));
        }
        out
    }
}

/// `5,400`.
pub fn int(n: impl Into<i128>) -> String {
    let n: i128 = n.into();
    let digits = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if n < 0 { format!("-{out}") } else { out }
}

/// `43%` or `0.68%` (two decimals under 10%).
pub fn pct(part: f64, whole: f64) -> String {
    if whole == 0.0 {
        return "-".to_owned();
    }
    let p = 100.0 * part / whole;
    if p != 0.0 && p < 10.0 {
        format!("{p:.2}%")
    } else {
        format!("{p:.1}%")
    }
}

/// Microseconds: one decimal under 100, whole (with thousands separators) above.
pub fn us(d: Duration) -> String {
    let micros = d.as_secs_f64() * 1e6;
    if micros < 100.0 {
        format!("{micros:.1}")
    } else {
        int(micros.round() as i64)
    }
}

/// `a–b` of microsecond figures (a single figure when they round the same).
pub fn us_range(lo: Duration, hi: Duration) -> String {
    let (a, b) = (us(lo), us(hi));
    if a == b { a } else { format!("{a}–{b}") }
}

/// `x / y / z`.
pub fn slash<T: ToString>(items: &[T]) -> String {
    items
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" / ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_and_percent() {
        assert_eq!(int(5400), "5,400");
        assert_eq!(int(20_000), "20,000");
        assert_eq!(int(999), "999");
        assert_eq!(int(1_000_000), "1,000,000");
        assert_eq!(pct(136.0, 20_000.0), "0.68%");
        assert_eq!(pct(130.0, 300.0), "43.3%");
        assert_eq!(pct(0.0, 10.0), "0.0%");
        assert_eq!(us(Duration::from_nanos(57_040)), "57.0");
        assert_eq!(us(Duration::from_micros(8_032)), "8,032");
    }

    #[test]
    fn tables_render_as_markdown() {
        let mut t = Table::new(&["a", "b"]);
        t.row(vec!["1".into()]);
        t.row(vec!["x|y".into(), "2".into(), "dropped".into()]);
        assert_eq!(
            t.to_markdown(),
            "| a | b |\n|---|---|\n| 1 |  |\n| x\\|y | 2 |\n"
        );
    }
}
