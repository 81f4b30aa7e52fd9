//! `stepreplay check` and `stepreplay fmt` on the seed plan and on one broken plan per rule.
//!
//! Every file in `fixtures/plans/broken/` is a test case with no code of its own: its exit
//! code, human output and JSON output are one snapshot. Each broken plan is the seed plan with
//! one thing changed, in canonical form, so it shows exactly its own finding.

use std::path::Path;

use serde_json::Value;

use crate::util::{TempDir, plans_dir, stepreplay};

const SEED: &str = "seed-mail.json";

/// Exit code, human output and JSON output of `check` on `file`, run from `cwd`.
fn check_transcript(cwd: &Path, file: &str) -> (String, Value) {
    let human = stepreplay(cwd).args(["check", file]).run();
    let json = stepreplay(cwd)
        .args(["check", "--format", "json", file])
        .run();
    for run in [&human, &json] {
        run.assert_no_panic();
        run.check(run.stderr.is_empty(), "check wrote to stderr");
    }
    json.check(
        json.code == human.code,
        "the formats disagree on the exit code",
    );
    let value: Value = serde_json::from_str(&json.stdout).unwrap_or_else(|e| {
        panic!("--format json printed invalid JSON: {e}\n{json}");
    });
    let text = format!(
        "exit: {}\n--- human ---\n{}--- json ---\n{}",
        human.code, human.stdout, json.stdout
    );
    (text, value)
}

#[test]
fn broken_plan() {
    let dir = plans_dir();
    insta::glob!("../fixtures/plans/broken", "*.json", |path| {
        let name = path.file_name().unwrap().to_str().unwrap();
        let file = format!("broken/{name}");
        let (text, json) = check_transcript(&dir, &file);

        // The exit code follows from the findings: 2 unparsable, 1 errors, 0 warnings only.
        let findings = json["findings"].as_array().expect("findings array");
        assert!(!findings.is_empty(), "{file} gives no finding\n{text}");
        let errors = json["errors"].as_u64().unwrap();
        let want = match (json["parsed"].as_bool().unwrap(), errors) {
            (false, _) => 2,
            (true, 0) => 0,
            (true, _) => 1,
        };
        assert!(text.starts_with(&format!("exit: {want}\n")), "{text}");
        for f in findings {
            for key in ["severity", "reason", "path", "message", "hint"] {
                let ok = f[key]
                    .as_str()
                    .is_some_and(|s| key == "path" || !s.is_empty());
                assert!(ok, "{file}: finding without `{key}`\n{text}");
            }
        }
        // Each fixture is canonical unless canonical bytes are its point, so that it shows
        // only its own finding.
        if name != "non-canonical.json" {
            let noise = findings.iter().any(|f| f["reason"] == "non-canonical");
            assert!(
                !noise,
                "{file} is not canonical: run `stepreplay fmt` on it\n{text}"
            );
        }
        insta::assert_snapshot!(text);

        // `fmt --check` never panics either, and never changes the file.
        let before = std::fs::read(path).unwrap();
        let fmt = stepreplay(&dir).args(["fmt", "--check", &file]).run();
        fmt.assert_no_panic();
        fmt.check(
            [0, 1, 2].contains(&fmt.code),
            "fmt --check: unexpected exit code",
        );
        assert_eq!(
            std::fs::read(path).unwrap(),
            before,
            "fmt --check wrote {file}"
        );
    });
}

#[test]
fn the_seed_plan_is_clean() {
    let dir = plans_dir();
    let run = stepreplay(&dir).args(["check", SEED]).expect_code(0);
    assert_eq!(run.stdout, "seed-mail.json: clean\n");
    let (_, json) = check_transcript(&dir, SEED);
    assert_eq!(json["findings"], Value::Array(vec![]));
    assert_eq!(json["errors"], 0);
    assert_eq!(json["warnings"], 0);
}

/// Plans written from the seed documents alone, by their rules and not the harness's: every
/// step kind and option the seeds allow, the MCP `get_guide` form, optional fields, unusual
/// but legal values. `check` finds no error in any (warnings are allowed: they are advice).
#[test]
fn held_out_valid_plans_have_no_errors() {
    let dir = plans_dir().join("valid-heldout");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json"))
        .collect();
    names.sort();
    assert!(names.len() >= 12, "{names:?}");
    let dialects = |prefix: &str| names.iter().filter(|n| n.starts_with(prefix)).count();
    assert!(dialects("fox-") >= 6 && dialects("dev-") >= 6, "{names:?}");
    for name in &names {
        let (text, json) = check_transcript(&dir, name);
        assert_eq!(json["parsed"], true, "{name}\n{text}");
        assert_eq!(json["errors"], 0, "{name}\n{text}");
        assert!(text.starts_with("exit: 0\n"), "{name}\n{text}");
    }
}

#[test]
fn the_seed_plan_is_canonical() {
    let run = stepreplay(plans_dir())
        .args(["fmt", "--check", SEED])
        .expect_code(0);
    run.check(run.stdout.is_empty(), "fmt --check printed a diff");
}

/// Writes JSON with keys in reverse order and uneven whitespace: the same plan, other bytes.
fn scramble(v: &Value, out: &mut String, depth: usize) {
    let pad = "\t".repeat(depth);
    match v {
        Value::Object(map) => {
            out.push_str("{ ");
            let members: Vec<_> = map.iter().rev().collect();
            for (i, (k, item)) in members.iter().enumerate() {
                if i > 0 {
                    out.push_str(" ,");
                }
                out.push_str(&format!("\n{pad}\t{}  :", Value::String((*k).clone())));
                scramble(item, out, depth + 1);
            }
            out.push_str(&format!("\n{pad}}}"));
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(",\r\n");
                }
                scramble(item, out, depth + 1);
            }
            out.push_str(" ]");
        }
        // Escape non-ASCII, which canonical form must undo.
        Value::String(s) => {
            out.push('"');
            for c in s.chars() {
                match c {
                    '"' | '\\' => out.push_str(&format!("\\{c}")),
                    c if c.is_ascii() && !c.is_control() => out.push(c),
                    c => {
                        let mut buf = [0u16; 2];
                        for unit in c.encode_utf16(&mut buf) {
                            out.push_str(&format!("\\u{unit:04x}"));
                        }
                    }
                }
            }
            out.push('"');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

#[test]
fn fmt_reproduces_the_seed_byte_for_byte() {
    let seed = std::fs::read_to_string(plans_dir().join(SEED)).unwrap();
    let value: Value = serde_json::from_str(&seed).unwrap();
    let mut scrambled = String::new();
    scramble(&value, &mut scrambled, 0);
    assert_ne!(scrambled, seed);
    assert!(
        scrambled.contains("\\u201c"),
        "the scramble escapes curly quotes"
    );

    let tmp = TempDir::new("fmt-seed");
    std::fs::write(tmp.path().join("plan.json"), &scrambled).unwrap();
    stepreplay(tmp.path())
        .args(["fmt", "--check", "plan.json"])
        .expect_code(1);
    let run = stepreplay(tmp.path())
        .args(["fmt", "plan.json"])
        .expect_code(0);
    assert_eq!(run.stderr, "formatted plan.json\n");
    let formatted = std::fs::read_to_string(tmp.path().join("plan.json")).unwrap();
    assert_eq!(formatted, seed);
    // Formatting a canonical file is a no-op that says nothing.
    let run = stepreplay(tmp.path())
        .args(["fmt", "plan.json"])
        .expect_code(0);
    assert_eq!(run.stderr, "");
}

#[test]
fn fmt_check_reports_a_non_canonical_file_and_leaves_it() {
    let tmp = TempDir::new("fmt-check");
    let original = std::fs::read(plans_dir().join("broken/non-canonical.json")).unwrap();
    std::fs::write(tmp.path().join("plan.json"), &original).unwrap();
    let run = stepreplay(tmp.path())
        .args(["fmt", "--check", "plan.json"])
        .expect_code(1);
    insta::assert_snapshot!(run.stdout);
    assert_eq!(
        std::fs::read(tmp.path().join("plan.json")).unwrap(),
        original
    );

    // Without --check it rewrites the file, which is then the seed again.
    stepreplay(tmp.path())
        .args(["fmt", "plan.json"])
        .expect_code(0);
    let seed = std::fs::read_to_string(plans_dir().join(SEED)).unwrap();
    assert_eq!(
        std::fs::read_to_string(tmp.path().join("plan.json")).unwrap(),
        seed
    );
}

#[test]
fn fmt_refuses_a_plan_that_does_not_parse() {
    let dir = plans_dir();
    let run = stepreplay(&dir)
        .args(["fmt", "--check", "broken/duplicate-key.json"])
        .expect_code(2);
    insta::assert_snapshot!(run.stderr);

    // One bad file does not hide the others.
    let run = stepreplay(&dir)
        .args([
            "fmt",
            "--check",
            "broken/truncated.json",
            "broken/non-canonical.json",
        ])
        .expect_code(2);
    run.check(run.stderr.contains("invalid-json"), "the bad file is named");
    run.check(
        run.stdout.contains("+  \"schema\""),
        "the next file is still checked",
    );
}

#[test]
fn a_50_mb_file_is_refused_before_it_is_read() {
    let tmp = TempDir::new("huge");
    let path = tmp.path().join("huge.json");
    {
        use std::io::Write;
        let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        let chunk = format!(
            "{{\"schema\": \"foxstep-step-plan/1\", \"pad\": \"{}\"}}\n",
            "x".repeat(1000)
        );
        f.write_all(b"[").unwrap();
        let mut written = 1;
        while written < 50 * 1024 * 1024 {
            f.write_all(chunk.as_bytes()).unwrap();
            f.write_all(b",").unwrap();
            written += chunk.len() + 1;
        }
        f.write_all(b"{}]\n").unwrap();
    }
    let (text, _) = check_transcript(tmp.path(), "huge.json");
    insta::assert_snapshot!(text);
    let run = stepreplay(tmp.path())
        .args(["fmt", "--check", "huge.json"])
        .expect_code(2);
    run.check(
        run.stderr.contains("file-too-large"),
        "fmt names the reason",
    );
}

#[test]
fn a_sensitive_example_is_never_printed() {
    const SECRET: &str = "hunter2-secret@example.com";
    let dir = plans_dir();
    let file = "broken/sensitive-example.json";
    let text = std::fs::read_to_string(dir.join(file)).unwrap();
    assert!(text.contains(SECRET), "the fixture holds the secret");
    let (transcript, _) = check_transcript(&dir, file);
    assert!(!transcript.contains("hunter2"), "{transcript}");

    // Nor in the diff `fmt --check` shows for the same plan laid out differently.
    let tmp = TempDir::new("sensitive");
    std::fs::write(tmp.path().join("plan.json"), text.replace("  ", "   ")).unwrap();
    let run = stepreplay(tmp.path())
        .args(["fmt", "--check", "plan.json"])
        .expect_code(1);
    run.check(
        !run.stdout.contains("hunter2"),
        "fmt --check leaked the secret",
    );
    run.check(
        run.stdout.contains("‹redacted›"),
        "fmt --check says what it hid",
    );
    let (transcript, _) = check_transcript(tmp.path(), "plan.json");
    assert!(!transcript.contains("hunter2"), "{transcript}");

    // A type error would quote the value: not for an example.
    let file = "broken/wrong-type-sensitive-example.json";
    assert!(
        std::fs::read_to_string(dir.join(file))
            .unwrap()
            .contains("4111111111111111")
    );
    let (transcript, _) = check_transcript(&dir, file);
    assert!(!transcript.contains("4111"), "{transcript}");
}

#[test]
fn the_worst_file_decides_the_exit_code() {
    let dir = plans_dir();
    let run = stepreplay(&dir)
        .args(["check", SEED, "broken/unused-input.json"])
        .expect_code(0);
    run.check(
        run.stdout.contains("seed-mail.json: clean"),
        "both files reported",
    );
    stepreplay(&dir)
        .args([
            "check",
            SEED,
            "broken/done-not-last.json",
            "broken/unused-input.json",
        ])
        .expect_code(1);
    let run = stepreplay(&dir)
        .args([
            "check",
            "--format",
            "json",
            "broken/truncated.json",
            "broken/done-not-last.json",
        ])
        .expect_code(2);
    // One object per file, in the order given: a stream `jq` and serde read.
    let files: Vec<String> = serde_json::Deserializer::from_str(&run.stdout)
        .into_iter::<Value>()
        .map(|v| v.unwrap()["file"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        files,
        ["broken/truncated.json", "broken/done-not-last.json"]
    );
    let run = stepreplay(&dir)
        .args(["check", "no-such-file.json"])
        .expect_code(2);
    run.check(
        run.stdout.contains("missing-file"),
        "a missing file is named",
    );
}

/// Thousands of findings in a 3 MB plan. Locating each finding by its own scan of the text
/// once took minutes here; this test asserts no time, but a quadratic pass makes it crawl.
#[test]
fn a_plan_with_twelve_thousand_findings() {
    let seed: Value =
        serde_json::from_str(&std::fs::read_to_string(plans_dir().join(SEED)).unwrap()).unwrap();
    let mut plan = seed.clone();
    let click = seed["steps"][0].clone();
    let steps: Vec<Value> = (0..12_000)
        .map(|i| {
            let mut s = click.clone();
            let fields = s.as_object_mut().unwrap();
            fields.remove("target");
            fields.remove("expect");
            s["number"] = (i + 2).into();
            s["step_id"] = format!("id-{i}").into();
            s["label"] = (i + 1).to_string().into();
            s
        })
        .collect();
    plan["steps"] = steps.into();
    plan.as_object_mut().unwrap().remove("inputs");
    let tmp = TempDir::new("many");
    let text = stepreplay::plan::foxstep::canonical_plan_text(&plan);
    std::fs::write(tmp.path().join("many.json"), &text).unwrap();
    let (_, json) = check_transcript(tmp.path(), "many.json");
    let findings = json["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 12_000, "one misnumbered step each");
    assert_eq!(findings[11_999]["path"], "steps[11999].number");
    assert_eq!(
        findings[11_999]["message"],
        "step 12001 is listed at position 12000"
    );
    assert!(findings[11_999]["line"].as_u64().unwrap() > 12_000 * 8);
}

/// A devthink protocolv2 plan goes through the same commands: clean in both formats, and
/// `fmt` restores its layout without touching the reviewed options text or showing what a
/// sensitive step types.
#[test]
fn a_protocolv2_plan_is_checked_and_formatted() {
    const PLAN: &str = "devthink-login.json";
    let dir = plans_dir();
    let run = stepreplay(&dir).args(["check", PLAN]).expect_code(0);
    assert_eq!(run.stdout, "devthink-login.json: clean\n");
    let (_, json) = check_transcript(&dir, PLAN);
    assert_eq!(json["findings"], Value::Array(vec![]));
    stepreplay(&dir)
        .args(["fmt", "--check", PLAN])
        .expect_code(0);

    let canonical = std::fs::read_to_string(dir.join(PLAN)).unwrap();
    let value: Value = serde_json::from_str(&canonical).unwrap();
    let mut scrambled = String::new();
    scramble(&value, &mut scrambled, 0);
    let tmp = TempDir::new("fmt-devthink");
    std::fs::write(tmp.path().join("plan.json"), &scrambled).unwrap();
    let run = stepreplay(tmp.path())
        .args(["fmt", "--check", "plan.json"])
        .expect_code(1);
    run.check(
        !run.stdout.contains("correct-horse"),
        "fmt --check showed a sensitive step's value",
    );
    let (_, json) = check_transcript(tmp.path(), "plan.json");
    assert_eq!(json["findings"][0]["reason"], "non-canonical");
    stepreplay(tmp.path())
        .args(["fmt", "plan.json"])
        .expect_code(0);
    assert_eq!(
        std::fs::read_to_string(tmp.path().join("plan.json")).unwrap(),
        canonical
    );

    // `run` replays one only at a fixed time, and says so when none is given.
    let recording = crate::util::repo().join("recordings/browser-signup-form");
    let run = stepreplay(&dir)
        .args(["run", PLAN, "--recording"])
        .arg(&recording)
        .expect_code(2);
    run.check(
        run.stderr.contains("`clock`") && run.stderr.contains("devthink"),
        "run says a protocolv2 plan needs the scenario's clock",
    );
}

/// Every checked-in scenario file is clean under `check`, which checks what it points at too.
#[test]
fn check_takes_scenario_files_and_the_suites_are_clean() {
    let root = crate::util::repo();
    let files: Vec<String> = std::fs::read_dir(root.join("scenarios"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .filter(|p| std::fs::read_to_string(p).is_ok_and(|t| t.contains("stepreplay-scenario/1")))
        .map(|p| format!("scenarios/{}", p.file_name().unwrap().to_string_lossy()))
        .collect();
    assert!(files.len() >= 20, "{files:?}");
    let o = stepreplay(&root).arg("check").args(&files).run();
    o.check(o.code == 0, "every scenario is clean");
    // A real recording may carry what its import said of it (a name cleaned of control
    // characters): a note, never a finding against the scenario.
    let noted = o.stdout.matches(": 0 errors, 1 warning").count();
    o.check(
        o.stdout.matches(": clean").count() + noted == files.len(),
        "one verdict per file",
    );
    o.check(
        o.stdout.matches("warning[").count() == o.stdout.matches("warning[import-note]").count(),
        "the only warnings are import notes",
    );
}

/// Copies the checked-in scenario `name` (its file, plan folder and recording) into a suite
/// folder of its own.
fn copy_suite(root: &Path, suite: &Path, name: &str) {
    for (from, to) in [
        (format!("scenarios/{name}"), "scenarios"),
        (format!("recordings/{name}"), "recordings"),
        (format!("scenarios/{name}.json"), "scenarios"),
    ] {
        std::fs::create_dir_all(suite.join(to)).unwrap();
        let ok = std::process::Command::new("cp")
            .arg("-r")
            .arg(root.join(from))
            .arg(suite.join(to))
            .status()
            .unwrap();
        assert!(ok.success());
    }
}

/// A scenario that names steps and inputs its plan does not have: each at its field, with
/// line and column; one the runner cannot read at all exits 2.
#[test]
fn check_names_a_scenarios_typos_where_they_are() {
    let root = crate::util::repo();
    let tmp = TempDir::new("scenario-typos");
    let suite = tmp.path();
    copy_suite(&root, suite, "mail-send-reminder");
    let mut sc: Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("scenarios/mail-send-reminder.json")).unwrap(),
    )
    .unwrap();
    sc["answers"]["confirm"]["sned"] = "approve".into();
    sc["inputs"]["client-emial"] = "a@example.com".into();
    sc["expect"]["step_id"] = "nope".into();
    let text = serde_json::to_string_pretty(&sc).unwrap();
    std::fs::write(suite.join("scenarios/typos.json"), &text).unwrap();
    let o = stepreplay(suite)
        .args(["check", "scenarios/typos.json", "--format", "json"])
        .run();
    o.check(o.code == 1, "errors, exit 1");
    let v: Value = serde_json::from_str(&o.stdout).expect("json");
    let found: Vec<(String, String)> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["reason"].as_str().unwrap().to_string(),
                f["path"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            ("unknown-id".into(), "answers.confirm.sned".into()),
            ("unknown-id".into(), "expect.step_id".into()),
            ("unknown-id".into(), "inputs.client-emial".into()),
        ],
        "{}",
        o.stdout
    );
    assert!(
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["line"].is_u64()),
        "{}",
        o.stdout
    );
    // `run` refuses a mistyped input name as `check` does, at its place, with the nearest
    // name, rather than replaying without the value.
    let mut one: Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("scenarios/mail-send-reminder.json")).unwrap(),
    )
    .unwrap();
    let value = one["inputs"]["client-email"].take();
    one["inputs"] = serde_json::json!({ "client-emial": value });
    let text = serde_json::to_string_pretty(&one).unwrap();
    std::fs::write(suite.join("scenarios/typos.json"), &text).unwrap();
    let run = stepreplay(suite)
        .args(["run", "-q", "scenarios/typos.json"])
        .run();
    run.check(
        run.code == 2,
        "a scenario naming what the plan lacks is bad input",
    );
    let check = stepreplay(suite)
        .args(["check", "scenarios/typos.json"])
        .run();
    for o in [&run, &check] {
        o.check(
            o.stdout.contains("did you mean `client-email`?")
                || o.stderr.contains("did you mean `client-email`?"),
            "the nearest input is named",
        );
    }
    run.check(
        run.stderr
            .contains("scenarios/typos.json:15:21 at `inputs.client-emial`: the plan has no input `client-emial`"),
        "run places it as check does",
    );
    check.check(
        check
            .stdout
            .contains("scenarios/typos.json:15:21 at `inputs.client-emial`"),
        "check places it",
    );
    // A field the format does not have: the runner would refuse it, so does check.
    sc["expect"]["outcom"] = "completed".into();
    std::fs::write(suite.join("scenarios/typos.json"), sc.to_string()).unwrap();
    let o = stepreplay(suite)
        .args(["check", "scenarios/typos.json"])
        .run();
    o.check(o.code == 2, "unreadable as a scenario");
    o.check(o.stdout.contains("invalid-field"), "says why");
}

/// `docs/scenario.schema.json`, checked by a real validator (Debian's python3-jsonschema):
/// it is a valid 2020-12 schema, every checked-in scenario satisfies it, and files the
/// runner refuses it refuses too.
#[test]
fn the_scenario_schema_agrees_with_the_runner() {
    let root = crate::util::repo();
    let tmp = TempDir::new("scenario-schema");
    let suite = tmp.path();
    copy_suite(&root, suite, "mail-send-reminder");
    let good: Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("scenarios/mail-send-reminder.json")).unwrap(),
    )
    .unwrap();
    type Edit = fn(&mut Value);
    let edits: [(&str, Edit); 4] = [
        ("unknown-field", |v| {
            v["expect"]["outcom"] = "completed".into()
        }),
        ("bad-outcome", |v| v["expect"]["outcome"] = "passed".into()),
        ("bad-answer", |v| {
            v["answers"]["confirm"]["send"] = "yes".into()
        }),
        ("bad-perturbation", |v| {
            v["perturbations"] = serde_json::json!(["earthquake"])
        }),
    ];
    let mut bad = Vec::new();
    for (name, edit) in edits {
        let mut v = good.clone();
        edit(&mut v);
        let p = suite.join(format!("scenarios/{name}.json"));
        std::fs::write(&p, v.to_string()).unwrap();
        bad.push(p);
    }
    let scenarios: Vec<std::path::PathBuf> = std::fs::read_dir(root.join("scenarios"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| std::fs::read_to_string(p).is_ok_and(|t| t.contains("stepreplay-scenario/1")))
        .collect();
    let docs: Vec<Value> = scenarios
        .iter()
        .chain(&bad)
        .map(|p| serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap())
        .collect();
    let Some(verdicts) = crate::schema::errors(&root.join("docs/scenario.schema.json"), &docs)
    else {
        return;
    };
    let (good_verdicts, bad_verdicts) = verdicts.split_at(scenarios.len());
    for (s, e) in scenarios.iter().zip(good_verdicts) {
        assert!(e.is_empty(), "{}: {e:?}", s.display());
    }
    for (b, e) in bad.iter().zip(bad_verdicts) {
        assert!(!e.is_empty(), "{} passes the schema", b.display());
    }
    // The good file checks clean where the bad ones sit, so their refusal is their own.
    let o = stepreplay(suite)
        .args(["check", "scenarios/mail-send-reminder.json"])
        .run();
    o.check(o.code == 0, "the unedited scenario is clean");
    for b in &bad {
        let o = stepreplay(suite).arg("check").arg(b).run();
        o.check(
            o.code != 0 && o.stdout.contains("error["),
            "the runner refuses it too",
        );
    }
}

/// `init` writes a scenario filled from the plan that checks clean and runs as declared; it
/// names what the plan cannot fill, never overwrites, and refuses a plan outside its folder.
#[test]
fn init_scaffolds_a_scenario_that_checks_and_runs() {
    let root = crate::util::repo();
    let tmp = TempDir::new("init");
    let suite = tmp.path();
    copy_suite(&root, suite, "mail-send-reminder");
    copy_suite(&root, suite, "settings-wifi-join");
    let init = |file: &str, plan: &Path, recording: &str| {
        stepreplay(suite)
            .args(["init", file, "--plan"])
            .arg(plan)
            .args(["--recording", recording])
            .run()
    };
    let mail = Path::new("scenarios/mail-send-reminder/plan.json");
    let o = init("scenarios/again.json", mail, "mail-send-reminder");
    o.check(o.code == 0, "written");
    o.check(
        o.stdout.contains("wrote scenarios/again.json (id `again`)"),
        "says what it wrote",
    );
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(suite.join("scenarios/again.json")).unwrap())
            .unwrap();
    assert_eq!(
        written["answers"]["confirm"]["send"], "approve",
        "{written}"
    );
    assert_eq!(written["expect"]["outcome"], "completed", "{written}");
    let o = stepreplay(suite)
        .args(["check", "scenarios/again.json"])
        .run();
    o.check(o.code == 0, "the scaffold checks clean");
    let o = stepreplay(suite)
        .args(["run", "-q", "scenarios/again.json", "--reports", "json"])
        .run();
    o.check(o.code == 0, "and runs as declared");
    let o = init("scenarios/again.json", mail, "mail-send-reminder");
    o.check(
        o.code == 2 && o.stderr.contains("never overwrites"),
        "refuses to overwrite",
    );
    // A sensitive input is left for the author, by name.
    let wifi = Path::new("scenarios/settings-wifi-join/plan.json");
    let o = init("scenarios/wifi.json", wifi, "settings-wifi-join");
    o.check(
        o.code == 0 && o.stdout.contains("fill in answers.sensitive."),
        "names the value to fill in",
    );
    let outside = root.join("scenarios/mail-send-reminder/plan.json");
    let o = init("scenarios/out.json", &outside, "mail-send-reminder");
    o.check(
        o.code == 2 && o.stderr.contains("path-escape"),
        "plan outside refused",
    );
    assert!(!suite.join("scenarios/out.json").exists());
}

/// Completions and man pages come from the command line's own definitions: every
/// subcommand is in them, and groff reads the pages without a warning.
#[test]
fn completions_and_man_pages_cover_every_subcommand() {
    let tmp = TempDir::new("man");
    let subcommands = [
        "check", "diff", "fmt", "run", "init", "bridge", "serve", "synth", "import", "show",
        "merge", "baseline",
    ];
    for shell in ["bash", "zsh", "fish"] {
        let o = stepreplay(tmp.path()).args(["completions", shell]).run();
        o.check(o.code == 0, "completions print");
        for s in subcommands {
            o.check(o.stdout.contains(s), "every subcommand completes");
        }
    }
    let o = stepreplay(tmp.path()).args(["man", "--out", "man"]).run();
    o.check(o.code == 0, "man pages written");
    for s in subcommands {
        let page = tmp.path().join(format!("man/stepreplay-{s}.1"));
        assert!(page.is_file(), "{}", page.display());
    }
    if !crate::util::have_tool("groff", "apt-get install groff-base") {
        return;
    }
    for s in ["stepreplay", "stepreplay-run", "stepreplay-check"] {
        let page = tmp.path().join(format!("man/{s}.1"));
        let out = std::process::Command::new("groff")
            .args(["-man", "-Tutf8", "-ww", "-z"])
            .arg(&page)
            .output()
            .unwrap();
        assert!(
            out.status.success() && out.stderr.is_empty(),
            "{s}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // A typo gets clap's suggestion.
    let o = stepreplay(tmp.path()).arg("chek").run();
    o.check(
        o.code == 64 && o.stderr.contains("a similar subcommand exists: 'check'"),
        "suggests",
    );
}

/// A file where a recording folder is expected is named as such, not "Not a directory".
#[test]
fn a_file_given_as_a_recording_folder_says_so() {
    let root = crate::util::repo();
    for args in [
        vec!["show", "README.md"],
        vec![
            "run",
            "scenarios/mail-send-reminder/plan.json",
            "--recording",
            "README.md",
        ],
    ] {
        let o = stepreplay(&root).args(&args).run();
        o.check(
            o.code == 2 && o.stderr.contains("this is a file; a recording is a folder"),
            "says it is a file",
        );
    }
}

/// What an import left out of a real recording (`source.notes`) is shown by `check` on each
/// scenario that replays it, as a warning that does not fail the check.
#[test]
fn check_shows_the_import_note_of_a_scenarios_recording() {
    let dir = TempDir::new("check-import-note");
    crate::util::copy_tree(
        &crate::util::repo().join("harness/tests/fixtures/mini"),
        dir.path(),
    );
    let rec = dir.path().join("recordings/mini/recording.json");
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&rec).unwrap()).unwrap();
    let clean = stepreplay(dir.path())
        .args(["check", "scenarios/mini-completed.json"])
        .run();
    clean.check(
        clean.code == 0 && !clean.stdout.contains("import-note"),
        "no note, no warning",
    );
    v["source"]["notes"] = serde_json::json!([
        "import kept every node it could address: 2 nodes addressed by their place"
    ]);
    std::fs::write(&rec, v.to_string()).unwrap();
    let run = stepreplay(dir.path())
        .args(["check", "scenarios/mini-completed.json"])
        .run();
    run.check(run.code == 0, "a note is a warning, not a failure");
    run.check(
        run.stdout.contains("import-note")
            && run.stdout.contains("2 nodes addressed by their place"),
        "check shows the note",
    );
}

/// `check FOLDER` narrows the files it finds with `run`'s filter: with `--filter` only the
/// scenario files kept are checked (a plan file has no id or tags to match); a file named on
/// the command line is always checked.
#[test]
fn check_takes_runs_grep_and_filter_in_a_folder() {
    let mini = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mini");
    let checked = |args: &[&str]| -> Vec<String> {
        let run = stepreplay(&mini).arg("check").args(args).run();
        run.check(run.code == 0, "clean");
        run.stdout
            .lines()
            .filter_map(|l| l.strip_suffix(": clean"))
            .map(str::to_string)
            .collect()
    };
    let all = checked(&["scenarios"]);
    assert!(all.len() > 3, "{all:?}");
    assert_eq!(
        checked(&["scenarios", "--filter", "id:mini-no-pin*"]),
        [
            "scenarios/mini-no-pin-declined.json",
            "scenarios/mini-no-pin.json"
        ]
    );
    assert_eq!(
        checked(&["scenarios", "--grep", "floors"]),
        ["scenarios/mini-floors.json"]
    );
    assert_eq!(
        checked(&["scenarios/mini-completed.json", "--grep", "floors"]),
        ["scenarios/mini-completed.json"],
        "a file named is checked"
    );
}

/// A devthink `idempotencykey` that another plan of the suite already uses is a retry of that
/// plan's step when both run against one system: `check` over the suite's folder says so at
/// the later plan's key (a warning: the author may mean it), and a plan checked alone does not.
#[test]
fn a_key_shared_by_two_plans_of_a_suite_is_found_by_check_over_the_folder() {
    let tmp = crate::util::TempDir::new("check-shared-key");
    let dir = tmp.path();
    let login: Value = serde_json::from_str(
        &std::fs::read_to_string(plans_dir().join("devthink-login.json")).unwrap(),
    )
    .unwrap();
    // The plans' own keys taken out; `a` and `b` sign in with one key, `c` with its own.
    for (name, key) in [
        ("a.json", "signin-1"),
        ("b.json", "signin-1"),
        ("c.json", "own"),
    ] {
        let mut plan = login.clone();
        plan["id"] = name.trim_end_matches(".json").into();
        for s in plan["steps"].as_array_mut().unwrap() {
            s.as_object_mut().unwrap().remove("idempotencykey");
        }
        plan["steps"][3]["idempotencykey"] = key.into();
        let text = stepreplay(dir)
            .args(["fmt", "-"])
            .run_with_stdin(&serde_json::to_string(&plan).unwrap());
        std::fs::write(dir.join(name), &text.stdout).unwrap();
    }
    let run = stepreplay(dir).args(["check", "."]).run();
    run.expect_code(0);
    let shared: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.contains("idempotency-key-shared"))
        .collect();
    assert_eq!(shared.len(), 1, "{}", run.stdout);
    assert!(
        run.stdout
            .contains("the key `signin-1` is also step `s4`'s in `")
            && run
                .stdout
                .contains("a.json`: each plan's run applies its own"),
        "{}",
        run.stdout
    );
    let alone = stepreplay(dir).args(["check", "b.json"]).run();
    alone.expect_code(0);
    assert!(
        !alone.stdout.contains("idempotency-key-shared"),
        "{}",
        alone.stdout
    );
}

/// The devthink review's caps are the user's: `check --max-depth` and `--max-plan-bytes` refuse
/// a plan the defaults (127 levels, 4 MiB) accept, saying which setting did, and a depth past
/// the parser's own limit is refused as a usage error (64).
#[test]
fn lower_caps_refuse_what_the_defaults_accept_and_name_the_setting() {
    let tmp = crate::util::TempDir::new("check-caps");
    let dir = tmp.path();
    let mut plan: Value = serde_json::from_str(
        &std::fs::read_to_string(plans_dir().join("devthink-login.json")).unwrap(),
    )
    .unwrap();
    // A targetref nesting twelve levels inside the options.
    plan["steps"][1]["options"] = serde_json::json!({"targetref": {"name": "User name",
        "path": [[[[[[[[[[1]]]]]]]]]]}})
    .to_string()
    .into();
    let text = stepreplay(dir)
        .args(["fmt", "-"])
        .run_with_stdin(&serde_json::to_string(&plan).unwrap())
        .stdout;
    std::fs::write(dir.join("deep.json"), &text).unwrap();
    stepreplay(dir).args(["check", "deep.json"]).expect_code(0);
    let capped = stepreplay(dir)
        .args(["check", "--max-depth", "8", "deep.json"])
        .run();
    capped.expect_code(2);
    assert!(
        capped.stdout.contains("error[limit-exceeded]")
            && capped
                .stdout
                .contains("the options nest deeper than 8 levels, the cap `--max-depth` sets")
            && capped.stdout.contains("at `steps[1].options`"),
        "{}",
        capped.stdout
    );
    stepreplay(dir)
        .args(["check", "--max-depth", "12", "deep.json"])
        .expect_code(0);
    let small = stepreplay(dir)
        .args(["check", "--max-plan-bytes", "1000", "deep.json"])
        .run();
    small.expect_code(2);
    assert!(small.stdout.contains("file-too-large"), "{}", small.stdout);
    // Past the default: options nesting 200 levels are refused by default, named with the
    // setting, and checked clean once the user raises it; a bound past what the parser's
    // stack holds is a usage error that names the real limit.
    let deeper = |n: usize| format!("{}1{}", "[".repeat(n), "]".repeat(n));
    plan["steps"][1]["options"] = format!(
        "{{\"targetref\": {{\"name\": \"User name\", \"path\": {}}}}}",
        deeper(198)
    )
    .into();
    let text = stepreplay(dir)
        .args(["fmt", "--max-depth", "200", "-"])
        .run_with_stdin(&serde_json::to_string(&plan).unwrap())
        .stdout;
    std::fs::write(dir.join("deeper.json"), &text).unwrap();
    let default = stepreplay(dir).args(["check", "deeper.json"]).run();
    default.expect_code(2);
    assert!(
        default.stdout.contains("error[limit-exceeded]")
            && default.stdout.contains("nests deeper than 127 levels")
            && default.stdout.contains("--max-depth"),
        "{}",
        default.stdout
    );
    stepreplay(dir)
        .args(["check", "--max-depth", "200", "deeper.json"])
        .expect_code(0);
    let short = stepreplay(dir)
        .args(["check", "--max-depth", "199", "deeper.json"])
        .run();
    short.expect_code(2);
    assert!(
        short.stdout.contains("deeper than 199 levels"),
        "{}",
        short.stdout
    );
    let past = stepreplay(dir)
        .args(["check", "--max-depth", "10001", "deep.json"])
        .run();
    past.expect_code(64);
    assert!(
        past.stderr.contains("--max-depth") && past.stderr.contains("10000"),
        "{}",
        past.stderr
    );
}

/// At the real limit the parse holds: options nesting 10000 levels check clean under
/// `--max-depth 10000` (the parser runs on a stack of its own), one more level is refused.
#[test]
fn the_deepest_depth_a_user_may_allow_parses() {
    let tmp = crate::util::TempDir::new("check-depth-max");
    let dir = tmp.path();
    let canonical = std::fs::read_to_string(plans_dir().join("devthink-login.json")).unwrap();
    let old = r#""options": "{\"targetref\": {\"role\": \"textbox\", \"name\": \"User name\"}}","#;
    assert!(
        canonical.contains(old),
        "the fixture's step 1 options changed"
    );
    for (levels, code) in [(10_000, 0), (10_001, 2)] {
        // The options object is level 1, `x` holds the rest.
        let inner = format!(
            "{}1{}",
            r#"{\"a\": "#.repeat(levels - 2),
            "}".repeat(levels - 2)
        );
        let new = format!(
            r#""options": "{{\"targetref\": {{\"role\": \"textbox\", \"name\": \"User name\", \"x\": {inner}}}}}","#
        );
        let file = format!("deep-{levels}.json");
        std::fs::write(dir.join(&file), canonical.replacen(old, &new, 1)).unwrap();
        let run = stepreplay(dir)
            .args(["check", "--max-depth", "10000", &file])
            .run();
        run.expect_code(code);
        if code == 2 {
            assert!(
                run.stdout.contains("deeper than 10000 levels"),
                "{}",
                run.stdout
            );
        }
    }
}
