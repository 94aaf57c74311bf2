//! The project's own fixture regression test: `mcpdesc test spec-fixtures --rules rules`
//! must pass (sidecars, folder conventions, every rule's examples, registry checks).
//! After an intended change of behaviour, accept it with
//! `mcpdesc test spec-fixtures --rules rules --bless` and review the sidecar diff.

mod support;

#[test]
fn spec_fixtures_pass() {
    let run = support::mcpdesc(["test", "spec-fixtures", "--rules", "rules"]);
    assert_eq!(
        run.code,
        Some(0),
        "`mcpdesc test spec-fixtures --rules rules` failed:\n{}",
        run.output()
    );
    let summary = run.stdout.lines().last().unwrap_or_default();
    assert!(
        summary.ends_with(" passed, 0 failed"),
        "unexpected summary line: {summary}"
    );
}
