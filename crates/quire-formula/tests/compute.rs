//! The evaluator, table by table: each function, references, ranges, errors, a cycle, text
//! against numbers, several sheets.

use quire_formula::{Computed, ComputedSheet, compute, has_formulas, is_formula};
use quire_model::{Cell, Sheet};
use serde_json::{Value, json};

fn sheet(id: &str, name: &str, rows: Value) -> Sheet {
    serde_json::from_value(json!({"id": id, "name": name, "rows": rows})).expect("a sheet")
}

fn one(rows: Value) -> ComputedSheet {
    compute(&[sheet("s1", "Sheet 1", rows)])
        .expect("computed")
        .remove(0)
}

/// Column A holds 1, 2, 3, 4 (A1:A4); B1 the formula. Its result.
fn over_numbers(formula: &str) -> Computed {
    let s = one(json!([[1, formula], [2], [3], [4]]));
    s.get(0, 1).cloned().expect("B1 is a formula")
}

fn num(n: f64) -> Computed {
    Computed::Number(n)
}

fn err(code: &str) -> Computed {
    Computed::Error(code.to_owned())
}

#[test]
fn each_common_function() {
    let cases: &[(&str, Computed)] = &[
        ("=SUM(A1:A4)", num(10.0)),
        ("=SUM(A1:A10)", num(10.0)),
        ("=AVERAGE(A1:A4)", num(2.5)),
        ("=MIN(A1:A4)", num(1.0)),
        ("=MAX(A1:A4)", num(4.0)),
        ("=COUNT(A1:A10)", num(4.0)),
        ("=IF(A1>0,\"pos\",\"neg\")", Computed::Text("pos".into())),
        ("=IF(A1>5,1,0)", num(0.0)),
        ("=ROUND(10/3,2)", num(3.33)),
        ("=ROUND(2.5,0)", num(3.0)),
        ("=CONCAT(\"a\",A2,\"b\")", Computed::Text("a2b".into())),
        ("=CONCAT(A1:A3)", Computed::Text("123".into())),
        ("=sum(a1:a4)", num(10.0)),
    ];
    for (formula, want) in cases {
        assert_eq!(&over_numbers(formula), want, "{formula}");
    }
}

#[test]
fn arithmetic_and_references() {
    let cases: &[(&str, Computed)] = &[
        ("=1+2*3", num(7.0)),
        ("=(1+2)*3", num(9.0)),
        ("=2^10", num(1024.0)),
        ("=-A1+A4", num(3.0)),
        ("=A1+A2*A3", num(7.0)),
        ("=$A$4/A2", num(2.0)),
        ("=A1=1", Computed::Bool(true)),
        ("=\"x\"&A1", Computed::Text("x1".into())),
        ("=A9", num(0.0)),
        ("=A9+1", num(1.0)),
    ];
    for (formula, want) in cases {
        assert_eq!(&over_numbers(formula), want, "{formula}");
    }
}

#[test]
fn errors_show_in_the_cell() {
    let cases: &[(&str, &str)] = &[
        ("=1/0", "#DIV/0!"),
        ("=A1/(A2-2)", "#DIV/0!"),
        ("=AVERAGE(C1:C3)", "#DIV/0!"),
        ("=#REF!", "#REF!"),
        ("=OFFSET(A1,-1,0)", "#REF!"),
        ("=NOSUCHFUNCTION(1)", "#NAME?"),
        ("=1+\"a\"", "#VALUE!"),
        ("=SUM(", "#ERROR!"),
    ];
    for (formula, code) in cases {
        assert_eq!(over_numbers(formula), err(code), "{formula}");
    }
}

#[test]
fn an_error_spreads_to_what_depends_on_it() {
    let s = one(json!([["=1/0", "=A1+1", "=SUM(A1:B1)"]]));
    assert_eq!(s.get(0, 1), Some(&err("#DIV/0!")));
    assert_eq!(s.get(0, 2), Some(&err("#DIV/0!")));
}

#[test]
fn a_cycle_is_an_error_not_a_hang() {
    let s = one(json!([["=B1", "=A1"], ["=A2+1"], [5, "=A3*2"]]));
    assert_eq!(s.get(0, 0), Some(&err("#CIRC!")));
    assert_eq!(s.get(0, 1), Some(&err("#CIRC!")));
    assert_eq!(s.get(1, 0), Some(&err("#CIRC!")));
    // A cell outside the cycle is computed.
    assert_eq!(s.get(2, 1), Some(&num(10.0)));
}

#[test]
fn text_is_not_a_number() {
    // A text "12" (not the number 12) is skipped by SUM and COUNT, as in other spreadsheets.
    let s = one(json!([
        [
            1,
            "12",
            "=SUM(A1:B1)",
            "=COUNT(A1:B1)",
            "=A1&B1",
            "=COUNTA(A1:B1)"
        ],
        [true, "=A2+1", "TRUE"]
    ]));
    assert_eq!(s.get(0, 2), Some(&num(1.0)));
    assert_eq!(s.get(0, 3), Some(&num(1.0)));
    assert_eq!(s.get(0, 4), Some(&Computed::Text("112".into())));
    assert_eq!(s.get(0, 5), Some(&num(2.0)));
    assert_eq!(s.get(1, 1), Some(&num(2.0)));
    // Not formulas: listed nowhere.
    assert_eq!(s.get(0, 0), None);
    assert_eq!(s.get(0, 1), None);
    assert_eq!(s.get(1, 2), None);
}

#[test]
fn only_formula_cells_are_listed_in_order() {
    let s = one(json!([[1, "=A1*2", null, "="], ["=B1+A1", "x"]]));
    let places: Vec<(usize, usize)> = s.cells.iter().map(|c| (c.row, c.col)).collect();
    assert_eq!(places, vec![(0, 1), (1, 0)]);
    assert_eq!(s.get(1, 0), Some(&num(3.0)));
}

#[test]
fn recalculation_follows_a_changed_input() {
    let before = one(json!([[1], [2], ["=SUM(A1:A2)"], ["=A3*10"]]));
    let after = one(json!([[1], [40], ["=SUM(A1:A2)"], ["=A3*10"]]));
    assert_eq!(before.get(3, 0), Some(&num(30.0)));
    assert_eq!(after.get(2, 0), Some(&num(41.0)));
    assert_eq!(after.get(3, 0), Some(&num(410.0)));
}

#[test]
fn formulas_reach_the_tab_s_other_sheets_by_name() {
    let sheets = [
        sheet("s1", "Sheet 1", json!([[2, "='Costs'!A1*A1"]])),
        sheet("s2", "Costs", json!([[21], ["='Sheet 1'!A1+1"]])),
        sheet("s3", "Costs", json!([["=1+1"]])),
    ];
    let out = compute(&sheets).expect("computed");
    assert_eq!(out.len(), 3);
    assert_eq!(out[0].id, "s1");
    assert_eq!(out[0].get(0, 1), Some(&num(42.0)));
    assert_eq!(out[1].get(1, 0), Some(&num(3.0)));
    // A sheet whose name is taken is still computed, under a stand-in name.
    assert_eq!(out[2].get(0, 0), Some(&num(2.0)));
    assert_eq!(one(json!([["=Nowhere!A1"]])).get(0, 0), Some(&err("#REF!")));
}

#[test]
fn a_tab_without_formulas_has_nothing_to_compute() {
    let sheets = [sheet("s1", "Sheet 1", json!([[1, "a", "="], [true]]))];
    assert!(!has_formulas(&sheets));
    let out = compute(&sheets).expect("computed");
    assert_eq!(out[0].cells, vec![]);
    assert!(is_formula(&Cell::from("=1")));
    assert!(!is_formula(&Cell::from("=")));
    assert!(!is_formula(&json!(1)));
}

#[test]
fn results_as_json() {
    let s = one(json!([["=1/0", "=1+1", "=\"a\"", "=1=1"]]));
    let json = serde_json::to_value(&s).expect("json");
    assert_eq!(
        json,
        json!({"id": "s1", "cells": [
            {"row": 0, "col": 0, "value": {"error": "#DIV/0!"}},
            {"row": 0, "col": 1, "value": 2.0},
            {"row": 0, "col": 2, "value": "a"},
            {"row": 0, "col": 3, "value": true},
        ]})
    );
}
