//! Numbers over the real server: what a client writes into a cell, over REST or MCP, reads back
//! as the very number written, at every version and after a restart; an integer wider than 64
//! bits, which could not read back as written, is refused by name and writes nothing.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod mcp_support;

use mcp_support::{Harness, agent_version, create_tab, json_rpc, key, ok};
use serde_json::{Value, json};

/// The sheet tab the person makes on a new Note: (note, tab).
async fn sheet(h: &Harness) -> (String, String) {
    let note = h.approved_note("Numbers").await;
    let (status, body) = h
        .patch(&note, 1, json!([{"op": "create_tab", "tab_type": "sheet"}]))
        .await;
    assert_eq!(status, 200, "{body}");
    let tab = body["outcomes"][0]["tab_id"].as_str().unwrap().to_owned();
    (note, tab)
}

fn set_range(expected: u64, tab: &str, row: u64, values: &str) -> String {
    format!(
        r#"{{"expected_version": {expected}, "changes": [{{"op": "sheet_set_range", "tab_id": "{tab}",
            "start_row": {row}, "start_col": 0, "values": {values}}}]}}"#
    )
}

/// The outside testers' reproduction, with the numbers they found: two accepted writes to a
/// long sheet, then every read, after a restart too, and the Note still takes writes and
/// restores.
#[tokio::test]
async fn the_reported_sheet_reads_back_at_every_version_after_a_restart() {
    let mut h = Harness::start();
    let long = "x".repeat(5_000);
    let mut cases = Vec::new();
    for number in ["1e-30", "3.899603970996924e76", "1.6356324386913733e-228"] {
        let (note, tab) = sheet(&h).await;
        let first = set_range(2, &tab, 0, &format!(r#"[[{number}, "{long}"]]"#));
        assert_eq!(h.patch_text(&note, &first).await.0, 200);
        assert_eq!(
            h.patch_text(&note, &set_range(3, &tab, 1, "[[1]]")).await.0,
            200
        );
        let (status, current) = h.get(&format!("/notes/{note}")).await;
        assert_eq!(status, 200, "{number}: {current}");
        let rows = &current["tabs"][3]["data"]["sheets"][0]["rows"];
        let want: f64 = number.parse().unwrap();
        assert_eq!(
            rows[0][0].as_f64().map(f64::to_bits),
            Some(want.to_bits()),
            "{number}"
        );
        assert_eq!(rows[0][1], long.as_str());
        assert_eq!(rows[1], json!([1]));
        cases.push((note, tab, current));
    }
    h.server.restart().unwrap();
    // The old process's keep-alive connections died with it.
    h.http = reqwest::Client::new();
    for (note, tab, before) in cases {
        for v in 1..=4 {
            let (status, _) = h.get(&format!("/notes/{note}/versions/{v}")).await;
            assert_eq!(status, 200, "version {v} after the restart");
        }
        let (status, after) = h.get(&format!("/notes/{note}")).await;
        assert_eq!(status, 200);
        assert_eq!(
            after["tabs"], before["tabs"],
            "the same Note after the restart"
        );
        let (status, body) = h.patch_text(&note, &set_range(4, &tab, 2, "[[2]]")).await;
        assert_eq!(status, 200, "{body}");
        let res = h
            .http
            .post(format!("{}/notes/{note}/restore", h.url()))
            .bearer_auth(h.token())
            .json(&json!({"version": 3, "expected_version": 5}))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200, "restore");
    }
}

/// An integer wider than 64 bits is refused by name, over REST (422) and MCP (`isError`), and
/// nothing is written; one that fits 64 bits is kept to the last digit.
#[tokio::test]
async fn wide_integers_are_refused_by_name_and_write_nothing() {
    let h = Harness::start();
    let (note, tab) = sheet(&h).await;
    let wide = "123456789012345678901234567890";
    let (status, problem) = h
        .patch_text(&note, &set_range(2, &tab, 0, &format!("[[1, {wide}]]")))
        .await;
    assert_eq!(status, 422, "{problem}");
    assert_eq!(problem["field"], "changes[0].values[0][1]");
    assert!(
        problem["detail"].as_str().unwrap().contains(wide),
        "{problem}"
    );
    assert_eq!(h.version(&note).await, 2, "nothing written");

    let session = h.raw_session().await;
    let call = format!(
        r#"{{"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {{"name": "edit_note_tab",
            "arguments": {{"note_id": "{note}", "tab_id": "{tab}", "expected_version": 2,
            "idempotency_key": "{key}", "operation": "sheet_set_range", "start_row": 0,
            "start_col": 0, "values": [[-{wide}]]}}}}}}"#,
        key = key()
    );
    let res = h
        .post_mcp_text(&call, &[("mcp-session-id", &session)])
        .await;
    assert_eq!(res.status(), 200);
    let message = json_rpc(res).await;
    let result = &message["result"];
    assert_eq!(result["isError"], true, "{message}");
    assert_eq!(result["structuredContent"]["error"], "invalid_arguments");
    assert_eq!(result["structuredContent"]["field"], "values[0][0]");
    assert_eq!(h.version(&note).await, 2, "nothing written");

    // The widest integers that fit are kept exactly, over both doors.
    let fits = "[[18446744073709551615,-9223372036854775808,9007199254740993]]";
    assert_eq!(
        h.patch_text(&note, &set_range(2, &tab, 0, fits)).await.0,
        200
    );
    let rows = &h.note(&note).await["tabs"][3]["data"]["sheets"][0]["rows"];
    assert_eq!(rows.to_string(), fits);
}

/// Over MCP, through the rmcp client: doubles of every kind and integers past 2^53 come back
/// from `read_sheet_range` as the same numbers, `-0.0` included.
#[tokio::test]
async fn numbers_round_trip_through_the_agents_tools() {
    let h = Harness::start();
    let note = h.approved_note("Agent numbers").await;
    let agent = h.agent().await;
    let v = agent_version(&agent, &note).await;
    let tab = create_tab(&agent, &note, v, json!({"tab_type": "sheet"})).await;
    let values = json!([[
        9_007_199_254_740_993_u64,
        -0.0,
        5e-324,
        0.210_000_000_000_000_02,
        1.635_632_438_691_373_3e-228,
        3.899_603_970_996_924e76,
        u64::MAX,
        i64::MIN
    ]]);
    ok(
        &agent,
        "edit_note_tab",
        json!({"note_id": note, "tab_id": tab, "expected_version": v + 1,
               "idempotency_key": key(), "operation": "sheet_set_range",
               "start_row": 0, "start_col": 0, "values": values}),
    )
    .await;
    let window = ok(
        &agent,
        "read_sheet_range",
        json!({"note_id": note, "tab_id": tab, "start_row": 0, "start_col": 0,
               "rows": 1, "cols": 8}),
    )
    .await;
    // Serialised, two numbers are equal only if they are the same double or integer.
    assert_eq!(window["values"].to_string(), values.to_string());
    let negative_zero: Value = window["values"][0][1].clone();
    assert_eq!(negative_zero.to_string(), "-0.0");
}
