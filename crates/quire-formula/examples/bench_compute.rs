//! What a Sheet tab's formulas cost to compute, whole tab, as the app and the server do after
//! each change: `cargo run --release -p quire-formula --example bench_compute [-- --rows N --runs N]`.
//!
//! The tab: `--rows` rows (10,000) of 20 numbers, each row summed in a 21st column (`=SUM(Ar:Tr)`), every
//! tenth row also a product and an IF over its neighbours, and a last row of column totals.
//! Prints the tab's size and the time of `compute` (min, median, max of `--runs`, 7).

use std::time::Instant;

use quire_formula::compute;
use quire_model::Sheet;
use quire_testkit::bench::{arg, percentile};
use serde_json::{Value, json};

fn col(c: usize) -> String {
    char::from(b'A' + u8::try_from(c).unwrap_or(0)).to_string()
}

fn tab(rows: usize) -> Sheet {
    let mut grid: Vec<Value> = (1..=rows)
        .map(|r| {
            let mut row: Vec<Value> = (0..20).map(|c| json!((r * 31 + c * 7) % 1000)).collect();
            row.push(json!(format!("=SUM(A{r}:T{r})")));
            if r % 10 == 0 {
                row.push(json!(format!("=A{r}*B{r}+C{r}/(D{r}+1)")));
                row.push(json!(format!("=IF(U{r}>U{}, \"up\", \"down\")", r - 1)));
            }
            Value::Array(row)
        })
        .collect();
    let totals: Vec<Value> = (0..21)
        .map(|c| json!(format!("=SUM({0}1:{0}{rows})", col(c))))
        .collect();
    grid.push(Value::Array(totals));
    serde_json::from_value(json!({"id": "s1", "name": "Sheet 1", "rows": grid}))
        .unwrap_or_else(|e| panic!("a sheet: {e}"))
}

fn main() {
    let rows = arg("--rows", 10_000);
    let runs = arg("--runs", 7).max(1);
    let sheets = [tab(rows)];
    let formulas = rows + rows / 10 * 2 + 21;
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            let computed = compute(&sheets).unwrap_or_else(|e| panic!("compute: {e}"));
            let ms = start.elapsed().as_secs_f64() * 1e3;
            assert_eq!(computed[0].cells.len(), formulas);
            ms
        })
        .collect();
    times.sort_by(f64::total_cmp);
    println!(
        "{rows} rows x 20 numbers, {formulas} formulas: compute min {:.1} ms, median {:.1} ms, max {:.1} ms ({runs} runs)",
        percentile(&times, 0.0),
        percentile(&times, 0.5),
        percentile(&times, 1.0)
    );
}
