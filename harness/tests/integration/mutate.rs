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
    // The README's per-class table and docs/mutate.md's are the tool's, as it prints them.
    let per_class = &table[..table.find("\n\n").expect("a table, then a blank line") + 1];
    for file in ["README.md", "docs/mutate.md"] {
        let doc = std::fs::read_to_string(repo().join(file)).unwrap();
        assert!(
            doc.contains(per_class),
            "{file} lacks the per-class table as `stepreplay mutate` prints it:\n{per_class}"
        );
    }
    let doc = std::fs::read_to_string(repo().join("docs/mutate.md")).unwrap();
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
