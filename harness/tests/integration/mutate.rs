//! `stepreplay mutate`: one-fault copies of the bundled suite's plans, and the gate catching
//! every one that changes what its plan does.

use std::collections::BTreeSet;

use stepreplay::mutate::{Class, Verdict, mutate, to_markdown};

use crate::util::{repo, stepreplay};

/// The gate fails every mutant of the bundled suite that changes what its plan does; the
/// equivalent ones are listed with a reason and never counted.
#[test]
fn the_gate_catches_every_mutant_of_the_bundled_suite() {
    let r = mutate(&[repo().join("scenarios")], 2).unwrap();
    let table = to_markdown(&r);
    let survivors: Vec<String> = r
        .survivors()
        .map(|(id, t)| format!("{id} {}: {}", t.mutant.class.name(), t.mutant.change))
        .collect();
    assert!(survivors.is_empty(), "survivors: {survivors:#?}\n{table}");
    assert_eq!(r.total.score, Some(1.0), "{table}");
    assert!(r.total.caught >= 600, "{table}");
    // Every equivalent mutant says why, and no class is mostly equivalents.
    assert!(r.total.equivalent * 20 < r.total.mutants, "{table}");
    // docs/mutate.md's per-class table is the tool's, as it prints it; the README gives its
    // total.
    let per_class = &table[..table.find("\n\n").expect("a table, then a blank line") + 1];
    let doc = std::fs::read_to_string(repo().join("docs/mutate.md")).unwrap();
    assert!(
        doc.contains(per_class),
        "docs/mutate.md lacks the per-class table as `stepreplay mutate` prints it:\n{per_class}"
    );
    assert_eq!(r.total.survived, 0, "{table}");
    let total = format!(
        "{} of {} mutants are caught, {} are equivalent and none survives",
        r.total.caught, r.total.mutants, r.total.equivalent
    );
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    assert!(readme.contains(&total), "README.md lacks “{total}”");
    assert!(
        doc.contains(&table),
        "docs/mutate.md lacks the whole output:\n{table}"
    );
    let classes: BTreeSet<Class> = r
        .scenarios
        .iter()
        .flat_map(|s| &s.mutants)
        .map(|t| t.mutant.class)
        .collect();
    for c in [
        Class::LabelLetter,
        Class::LabelSwapped,
        Class::AxRole,
        Class::WindowUnseen,
        Class::ExpectWindow,
        Class::ExpectVisible,
        Class::ExpectFieldContains,
        Class::TypedText,
        Class::Key,
        Class::ClickKind,
        Class::StepDropped,
        Class::StepsSwapped,
        Class::ConfirmDropped,
        Class::ExampleForInput,
        Class::Origin,
        Class::Selector,
        Class::Url,
    ] {
        assert!(classes.contains(&c), "no {c:?} mutant\n{table}");
    }
    for t in r.scenarios.iter().flat_map(|s| &s.mutants) {
        assert_eq!(
            t.verdict == Verdict::Equivalent,
            t.mutant.equivalent.is_some(),
            "{t:?}"
        );
        if t.verdict == Verdict::Caught {
            assert!(t.how.is_some(), "{t:?}");
        }
    }
}

/// The same suite gives the same mutants and the same table, whatever the thread count; the
/// CLI prints it and exits 0 when nothing survives.
#[test]
fn mutate_is_deterministic_and_its_cli_prints_the_table() {
    let one = [
        "scenarios/gtk3-galculator-menu.json",
        "scenarios/devthink-login.json",
    ];
    let paths: Vec<_> = one.iter().map(|p| repo().join(p)).collect();
    let a = stepreplay::mutate::to_json(&mutate(&paths, 1).unwrap());
    let b = stepreplay::mutate::to_json(&mutate(&paths, 2).unwrap());
    assert_eq!(a, b);
    let o = stepreplay(repo()).arg("mutate").args(one).run();
    o.check(o.code == 0, "no survivor");
    o.check(
        o.stdout
            .starts_with("| class | mutants | caught | equivalent | survived | score |"),
        "a Markdown table",
    );
    o.check(o.stdout.contains("| **total** |"), "with a total row");
    let o = stepreplay(repo())
        .args(["mutate", "--format", "json"])
        .args(one)
        .run();
    let v: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(v["schema"], "stepreplay-mutate/1");
    assert!(v["total"]["mutants"].as_u64().unwrap() > 10, "{v}");
}

/// `run --mutants` puts each scenario's mutation score in `report.json` and on the HTML page:
/// counts for a scenario that completes, the reason for one that is not mutated.
#[test]
fn run_mutants_puts_the_score_in_the_reports() {
    let out = crate::util::TempDir::new("run-mutants");
    let o = stepreplay(repo())
        .args([
            "run",
            "--mutants",
            "--mode",
            "chained",
            "scenarios/gtk3-galculator-menu.json",
            "scenarios/mail-wrong-label.json",
            "--reports",
            "json,html",
            "--report-dir",
        ])
        .arg(out.path())
        .run();
    o.check(o.code == 0, "both scenarios as expected");
    let text = std::fs::read_to_string(out.path().join("report.json")).unwrap();
    let report: serde_json::Value = serde_json::from_str(&text).unwrap();
    let by_id = |id: &str| {
        report["scenarios"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["id"] == id)
            .unwrap_or_else(|| panic!("no {id} in {report}"))["mutation"]
            .clone()
    };
    let m = by_id("gtk3-galculator-menu");
    let (mutants, caught) = (
        m["mutants"].as_u64().unwrap(),
        m["caught"].as_u64().unwrap(),
    );
    assert!(mutants > 10, "{m}");
    assert_eq!(m["survived"], 0, "{m}");
    assert_eq!(caught + m["equivalent"].as_u64().unwrap(), mutants, "{m}");
    assert_eq!(m["score"], 1.0, "{m}");
    // The same counts `mutate` gives for that scenario.
    let direct = mutate(&[repo().join("scenarios/gtk3-galculator-menu.json")], 1).unwrap();
    assert_eq!(direct.total.mutants as u64, mutants);
    assert_eq!(direct.total.caught as u64, caught);
    let skipped = by_id("mail-wrong-label");
    assert!(skipped["skipped"].as_str().is_some(), "{skipped}");
    assert_eq!(skipped["mutants"], 0, "{skipped}");
    let html = std::fs::read_to_string(out.path().join("index.html")).unwrap();
    assert!(
        html.contains(&format!(
            "mutation score 1.000: caught {caught} of {caught} one-fault copies"
        )),
        "the HTML card shows the score"
    );
}

/// `--every-site` mutates every site of every class, not three per class: more mutants, and
/// on these plans (words-only steps, an input asked for, a real GTK recording) still none
/// survives.
#[test]
fn every_site_makes_more_mutants_and_none_survives() {
    let some = [
        "scenarios/chat-assistant-reply.json",
        "scenarios/settings-wifi-join.json",
        "scenarios/zenity-add-contact.json",
    ];
    let paths: Vec<_> = some.iter().map(|p| repo().join(p)).collect();
    let three = mutate(&paths, 2).unwrap();
    let every =
        stepreplay::mutate::mutate_sites(&paths, 2, usize::MAX, &Default::default(), 127).unwrap();
    let table = to_markdown(&every);
    assert!(every.total.mutants > three.total.mutants, "{table}");
    assert_eq!(every.total.survived, 0, "{table}");
    let o = stepreplay(repo())
        .args(["mutate", "--every-site", "--format", "json"])
        .args(some)
        .run();
    o.check(o.code == 0, "no survivor");
    let v: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(v["total"]["mutants"], every.total.mutants, "{v}");
}

/// `mutate` narrows its suite with `run`'s filter: an id glob and a tag keep their scenarios
/// only, and a filter that keeps nothing is refused.
#[test]
fn mutate_takes_runs_grep_and_filter() {
    let tmp = crate::util::TempDir::new("mutate-filter");
    let d = tmp.path();
    crate::util::copy_tree(&repo().join("harness/tests/fixtures/mini"), d);
    let ids = |args: &[&str]| -> Vec<String> {
        let run = stepreplay(d)
            .args(["mutate", "--format", "json"])
            .args(args)
            .run();
        run.check(run.code == 0, "mutate ran");
        let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        v["scenarios"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["id"].as_str().unwrap().to_string())
            .collect()
    };
    let all = ids(&[]);
    assert!(all.len() > 1, "{all:?}");
    assert_eq!(ids(&["--filter", "id:mini-comp*"]), ["mini-completed"]);
    let tagged = d.join("scenarios/mini-completed.json");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&tagged).unwrap()).unwrap();
    v["tags"] = serde_json::json!(["smoke"]);
    std::fs::write(&tagged, v.to_string()).unwrap();
    assert_eq!(ids(&["--filter", "tag:smoke"]), ["mini-completed"]);
    let none = stepreplay(d)
        .args(["mutate", "--grep", "no-such-scenario"])
        .run();
    none.check(
        none.code == 64 && none.stderr.contains("no scenario matches"),
        "refused",
    );
}
