//! The silent-green hunt: *evidence removers* applied to every bundled scenario that expects
//! its plan to complete. Each remover takes away something the verdict must stand on — the
//! binding of the plan to its recording, the window a step acts in — and the gate must then say
//! red in every output (the terminal, `report.json`, `junit.xml`, `summary.md`, the HTML page)
//! and exit non-zero. A remover the gate shrugs off is a path to green without evidence.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::util::{TempDir, copy_tree, repo, run_in};

/// The bundled plan scenarios that expect to complete: `(scenario file name, its JSON)`.
fn completing() -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(repo().join("scenarios")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_none_or(|x| x != "json") {
            continue;
        }
        let v: Value = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
        if v["schema"] == "stepreplay-scenario/1" && v["expect"]["outcome"] == "completed" {
            out.push((p.file_name().unwrap().to_string_lossy().into_owned(), v));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn read(p: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
}

fn write(p: &Path, v: &Value) {
    std::fs::write(p, serde_json::to_vec_pretty(v).unwrap()).unwrap();
}

/// The suite `dir` with every completing scenario copied, each with its own copy of its plan
/// (its folder) and recording, so a remover may edit them: `(id, plan file, recording)`.
fn suite(dir: &Path) -> Vec<(String, PathBuf, PathBuf)> {
    let mut out = Vec::new();
    for (name, mut sc) in completing() {
        let id = sc["id"].as_str().unwrap().to_string();
        let plan_from = repo().join("scenarios").join(sc["plan"].as_str().unwrap());
        let rec_from = repo()
            .join("recordings")
            .join(sc["recording"].as_str().unwrap());
        let plan_dir = dir.join("scenarios").join(&id);
        let plan = if plan_from.is_dir() {
            copy_tree(&plan_from, &plan_dir);
            sc["plan"] = id.clone().into();
            plan_dir.join("plan.json")
        } else {
            copy_tree(plan_from.parent().unwrap(), &plan_dir);
            let file = plan_from
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned();
            sc["plan"] = format!("{id}/{file}").into();
            plan_dir.join(file)
        };
        let rec = dir.join("recordings").join(&id);
        copy_tree(&rec_from, &rec);
        sc["recording"] = id.clone().into();
        write(&dir.join("scenarios").join(name), &sc);
        out.push((id, plan, rec));
    }
    out
}

/// The plan's step list, wherever the file keeps it (a plan, or a `get_guide` response's).
fn steps(v: &mut Value) -> Option<&mut Vec<Value>> {
    if v.get("steps").is_some_and(Value::is_array) {
        return v["steps"].as_array_mut();
    }
    let key = v
        .as_object()?
        .iter()
        .find(|(_, x)| x.get("steps").is_some_and(Value::is_array))
        .map(|(k, _)| k.clone())?;
    v[&key]["steps"].as_array_mut()
}

/// Every plan step gets an id the recording does not have (UUIDs, as the Foxstep docs ask of
/// a hand-written plan).
fn fresh_step_ids(plan: &Path, _rec: &Path) -> bool {
    let mut v = read(plan);
    for (i, s) in steps(&mut v).unwrap().iter_mut().enumerate() {
        for key in ["step_id", "id"] {
            if s.get(key).is_some() {
                s[key] = format!("00000000-0000-4000-8000-{i:012}").into();
            }
        }
    }
    write(plan, &v);
    true
}

/// The window the plan's first targeted step acts in is gone from every recorded frame (a
/// plan whose targets name no window, such as a browser plan's, is left alone).
fn window_removed(plan: &Path, rec: &Path) -> bool {
    let mut v = read(plan);
    let Some(window) = steps(&mut v)
        .unwrap()
        .iter()
        .find_map(|s| s["target"]["window"].as_str())
        .map(str::to_string)
    else {
        return false;
    };
    let r = read(&rec.join("recording.json"));
    for f in r["frames"].as_array().unwrap() {
        let path = rec.join(f["ax"].as_str().unwrap());
        let mut ax = read(&path);
        if let Some(apps) = ax["apps"].as_array_mut() {
            for app in apps {
                if let Some(ws) = app["windows"].as_array_mut() {
                    ws.retain(|w| w["title"].as_str() != Some(window.as_str()));
                }
            }
        }
        write(&path, &ax);
    }
    true
}

/// What every typing step typed is gone from the recording: the text its recorded action
/// kept, and the value its field shows in every frame. A secret is never judged by its text,
/// so only plans that type something not sensitive are touched.
fn field_text_removed(plan: &Path, rec: &Path) -> bool {
    let mut p = read(plan);
    let secret: Vec<String> = p["inputs"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|i| i["sensitive"] == true)
        .filter_map(|i| i["id"].as_str().map(|id| format!("{{{id}}}")))
        .collect();
    let typed_plainly = steps(&mut p).unwrap().iter().any(|s| {
        let types = s["action"] == "type" || s["action"] == "paste" || s["kind"] == "type";
        let text = s["value"].as_str().or(s["template"].as_str());
        types
            && s["secret"] != true
            && text.is_some_and(|t| !t.is_empty() && !secret.iter().any(|x| t.contains(x.as_str())))
    });
    let mut r = read(&rec.join("recording.json"));
    let mut fields = Vec::new();
    for t in r["transitions"].as_array_mut().unwrap() {
        if matches!(t["action"].as_str(), Some("type" | "paste"))
            && let Some(e) = t["element"].as_str()
        {
            fields.push(e.to_string());
            if let Some(op) = t["operation"].as_object_mut() {
                op.remove("text");
            }
        }
    }
    if fields.is_empty() || !typed_plainly {
        return false;
    }
    write(&rec.join("recording.json"), &r);
    fn blank(v: &mut Value, fields: &[String]) {
        match v {
            Value::Object(m) => {
                if m.get("id")
                    .and_then(Value::as_str)
                    .is_some_and(|id| fields.iter().any(|f| f == id))
                {
                    m.remove("value");
                }
                m.values_mut().for_each(|c| blank(c, fields));
            }
            Value::Array(a) => a.iter_mut().for_each(|c| blank(c, fields)),
            _ => {}
        }
    }
    for f in r["frames"].as_array().unwrap() {
        let path = rec.join(f["ax"].as_str().unwrap());
        let mut ax = read(&path);
        blank(&mut ax, &fields);
        write(&path, &ax);
    }
    true
}

/// What the gate said, with each output read back.
struct Said {
    code: i32,
    stdout: String,
    report: Value,
    junit: String,
    summary: String,
    html: String,
}

fn run(dir: &Path) -> Said {
    let r = run_in(dir, &["run", "--report-dir", "out", "scenarios"]);
    r.assert_no_panic();
    let out = dir.join("out");
    let text = |n: &str| std::fs::read_to_string(out.join(n)).unwrap_or_default();
    Said {
        code: r.code,
        stdout: r.stdout,
        report: serde_json::from_str(&text("report.json")).unwrap_or(Value::Null),
        junit: text("junit.xml"),
        summary: text("summary.md"),
        html: text("index.html"),
    }
}

/// No scenario of `ids` is green in any output, and the run exits non-zero.
fn assert_red(remover: &str, ids: &[String], said: &Said) {
    let why = |what: &str| format!("{remover}: {what}\n{}", said.stdout);
    assert!(said.code != 0, "{}", why("the run exited 0"));
    assert!(
        !said.summary.starts_with("## stepreplay: ✅"),
        "{}",
        why("summary.md is green")
    );
    assert!(!said.html.is_empty(), "{}", why("no index.html"));
    for id in ids {
        let entry = said.report["scenarios"]
            .as_array()
            .and_then(|a| a.iter().find(|s| s["id"] == id.as_str()));
        let entry = entry.unwrap_or_else(|| panic!("{}", why(&format!("{id} not in report.json"))));
        assert_eq!(
            entry["met"],
            false,
            "{}",
            why(&format!("{id} is met in report.json"))
        );
        let line = said
            .stdout
            .lines()
            .find(|l| l.split_whitespace().nth(1) == Some(id));
        assert!(
            line.is_some_and(|l| l.starts_with("FAIL")),
            "{}",
            why(&format!("{id}'s terminal line is not FAIL"))
        );
        // Its JUnit suite holds a failure or an error.
        let start = said
            .junit
            .find(&format!("<testsuite name=\"{id}\""))
            .unwrap_or_else(|| panic!("{}", why(&format!("{id} not in junit.xml"))));
        let suite = &said.junit[start..];
        let suite = &suite[..suite.find("</testsuite>").unwrap_or(suite.len())];
        assert!(
            suite.contains("<failure") || suite.contains("<error"),
            "{}",
            why(&format!("{id}'s junit suite has no failure"))
        );
    }
}

/// Applies `remover` to every completing scenario and checks the gate turns red on each it
/// applied to; returns how many.
fn family(name: &str, remover: fn(&Path, &Path) -> bool) -> usize {
    let tmp = TempDir::new(name);
    let ids: Vec<String> = suite(tmp.path())
        .into_iter()
        .filter(|(_, plan, rec)| remover(plan, rec))
        .map(|c| c.0)
        .collect();
    assert!(
        ids.len() >= 20,
        "the suite has {} completing scenarios",
        ids.len()
    );
    assert_red(name, &ids, &run(tmp.path()));
    eprintln!("{name}: {} scenarios, every one red", ids.len());
    ids.len()
}

#[test]
fn the_untouched_copy_is_green() {
    let tmp = TempDir::new("evidence-untouched");
    suite(tmp.path());
    let said = run(tmp.path());
    assert_eq!(said.code, 0, "{}", said.stdout);
    assert!(
        said.summary.starts_with("## stepreplay: ✅"),
        "{}",
        said.summary
    );
}

#[test]
fn fresh_step_ids_are_never_green() {
    family("evidence-fresh-ids", fresh_step_ids);
}

#[test]
fn a_removed_target_window_is_never_green() {
    family("evidence-window-removed", window_removed);
}

#[test]
fn typed_text_removed_from_the_recording_is_never_green() {
    family("evidence-field-text-removed", field_text_removed);
}

/// What went unjudged may be allowed by its kind's name, and only by it: with the typed text
/// gone, allowing `done` changes nothing; allowing `typed-text` lets the scenarios whose only
/// gap it was pass, and their reports still show the text unjudged.
#[test]
fn only_the_kind_allowed_by_name_may_go_unjudged() {
    let tmp = TempDir::new("evidence-allow-unjudged");
    let ids: Vec<String> = suite(tmp.path())
        .into_iter()
        .filter(|(_, plan, rec)| field_text_removed(plan, rec))
        .map(|c| c.0)
        .collect();
    let met = |extra: &[&str]| -> Vec<(String, Value)> {
        let mut args = vec!["run", "--report-dir", "out", "scenarios"];
        args.extend(extra);
        run_in(tmp.path(), &args).assert_no_panic();
        let report: Value =
            serde_json::from_slice(&std::fs::read(tmp.path().join("out/report.json")).unwrap())
                .unwrap();
        report["scenarios"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| ids.contains(&s["id"].as_str().unwrap().to_string()))
            .map(|s| (s["id"].as_str().unwrap().to_string(), s.clone()))
            .collect()
    };
    let plain = met(&[]);
    assert!(plain.iter().all(|(_, s)| s["met"] == false));
    let why: Vec<&str> = plain
        .iter()
        .filter_map(|(_, s)| s["mismatch"].as_str())
        .collect();
    assert!(
        why.iter().any(|w| w.contains("typed-text not judged")),
        "the cause names the kind: {why:?}"
    );
    assert!(
        met(&["--allow-unjudged", "done"])
            .iter()
            .all(|(_, s)| s["met"] == false)
    );
    let allowed = met(&["--allow-unjudged", "typed-text"]);
    let passed: Vec<&(String, Value)> = allowed.iter().filter(|(_, s)| s["met"] == true).collect();
    assert!(
        !passed.is_empty(),
        "no scenario had typed text as its only gap"
    );
    for (id, s) in passed {
        let shown = s["runs"]["chained"]["steps"]
            .as_array()
            .unwrap()
            .iter()
            .any(|st| {
                st["judgements"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .any(|j| j["kind"] == "typed-text" && j["judged"] == "unjudged")
            });
        assert!(shown, "{id}: the report shows what went unjudged");
    }
    let typo = run_in(
        tmp.path(),
        &["run", "--allow-unjudged", "typed_text", "scenarios"],
    );
    assert_eq!(typo.code, 64, "{}", typo.stderr);
    assert!(typo.stderr.contains("typed-text"), "{}", typo.stderr);
}

/// Element accuracy counted without the harness: from the plan (which steps have a target),
/// the recording (the element each step's recorded action acted on, or an equivalent) and
/// `report.json`'s chosen controls. Right: chosen is the recorded one, without a tie; every
/// other step with a target (unreached, unbound, not found, unjudged) is not.
fn element_accuracy(plan: &Value, rec: &Value, run: &Value) -> Option<f64> {
    let plan_steps = plan["steps"].as_array()?;
    let mut total = 0u32;
    let mut right = 0u32;
    for s in plan_steps.iter().filter(|s| s.get("target").is_some()) {
        total += 1;
        let id = s["step_id"].as_str()?;
        let recorded: Vec<&str> = rec["transitions"]
            .as_array()?
            .iter()
            .filter(|t| t["step_id"] == id)
            .flat_map(|t| {
                let eq = t["equivalent"].as_array().into_iter().flatten();
                t["element"]
                    .as_str()
                    .into_iter()
                    .chain(eq.filter_map(Value::as_str))
            })
            .collect();
        let chosen = run["steps"]
            .as_array()?
            .iter()
            .find(|st| st["step_id"] == id)
            .and_then(|st| st.get("resolution"))
            .filter(|r| r["ambiguous"] != true)
            .and_then(|r| r["element"].as_str());
        right += u32::from(chosen.is_some_and(|c| recorded.contains(&c)));
    }
    (total > 0).then(|| f64::from(right) / f64::from(total))
}

/// The report's element accuracy is what an independent count makes of the same run, on
/// every real recording in the suite, in both modes.
#[test]
fn the_reports_element_accuracy_agrees_with_an_independent_count_on_real_recordings() {
    let tmp = TempDir::new("evidence-scorer");
    let run = run_in(
        repo(),
        &[
            "run",
            "--filter",
            "tag:real-app",
            "--report-dir",
            tmp.path().to_str().unwrap(),
        ],
    );
    run.assert_no_panic();
    let report = read(&tmp.path().join("report.json"));
    let mut compared = 0;
    for s in report["scenarios"].as_array().unwrap() {
        let plan = read(&repo().join(s["plan"].as_str().unwrap()));
        let rec = read(
            &repo()
                .join(s["recording"].as_str().unwrap())
                .join("recording.json"),
        );
        for (mode, r) in s["runs"].as_object().unwrap() {
            let ours = element_accuracy(&plan, &rec, r).map(|a| (a * 1000.0).round() / 1000.0);
            assert_eq!(
                r["scores"]["element_accuracy"].as_f64(),
                ours,
                "{} ({mode}): the report's element accuracy against an independent count",
                s["id"]
            );
            compared += 1;
        }
    }
    assert!(compared >= 20, "compared {compared} runs");
}

/// A label typo on a type step of a plan `record` wrote (it has a point, bounds and a crop):
/// the name matches nothing, so the step is `target-not-found` with a did-you-mean at the
/// `label` field — the same reason at the same line and column in `run` and in
/// `check --recording`, never a control guessed from the picture.
#[test]
fn a_label_typo_is_not_found_at_the_label_in_run_and_check_alike() {
    let tmp = TempDir::new("evidence-typo");
    let dir = tmp.path();
    crate::util::copy_scenario(dir, "gtk3-zenity-contact", "gtk3-zenity-contact");
    let plan = dir.join("scenarios/gtk3-zenity-contact/plan.json");
    let text = std::fs::read_to_string(&plan).unwrap();
    // Step 4 types the last name; its label is the second "Last name" in the file.
    let at = text.match_indices("\"Last name\"").nth(1).unwrap().0;
    let text = format!(
        "{}\"Lats name\"{}",
        &text[..at],
        &text[at + "\"Last name\"".len()..]
    );
    std::fs::write(&plan, &text).unwrap();
    let line = text[..at].lines().count();
    let column = at - text[..at].rfind('\n').unwrap();
    let place = format!("plan.json:{line}:{column}");
    let run = run_in(dir, &["run", "--report-dir", "out", "scenarios"]);
    run.check(run.code == 1, "the typo fails the run");
    run.check(
        run.stdout.contains("target-not-found") && run.stdout.contains("did you mean “Last name”"),
        "run names the reason and the did-you-mean",
    );
    run.check(
        run.stdout.contains(&place),
        &format!("run points at {place}"),
    );
    let check = run_in(
        dir,
        &[
            "check",
            "scenarios/gtk3-zenity-contact/plan.json",
            "--scenario",
            "scenarios/gtk3-zenity-contact.json",
        ],
    );
    check.check(check.code == 1, "check fails the typo");
    check.check(
        check.stdout.contains("error[replay-target-not-found]")
            && check.stdout.contains("did you mean “Last name”")
            && check
                .stdout
                .contains(&format!("{place} at `steps[3].target.label`")),
        &format!("check names the same reason and did-you-mean at {place}"),
    );
}
