//! The bridge's JSON contracts (`docs/bridge/*.schema.json`) checked with a real JSON Schema
//! validator against what the simulator reads and writes: the manifest it writes is a v3
//! manifest (and not a v2 one), every outcome it writes fits the outcome schema, and it never
//! accepts a command the command schema refuses — over every checked-in scenario's commands
//! and thousands of mutants of them.

use std::path::Path;

use serde_json::{Value, json};
use stepreplay::bridge::{State, init, sweep};

use crate::util::{TempDir, repo};

/// The errors of each document against `docs/bridge/NAME`; `None` without a validator.
fn errors(name: &str, docs: &[Value]) -> Option<Vec<Vec<String>>> {
    crate::schema::errors(&repo().join("docs/bridge").join(name), docs)
}

/// Every scenario's starting state and the commands its agent writes, in order.
fn scenario_commands() -> Vec<(String, State, Vec<Value>)> {
    let mut out = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(repo().join("scenarios/bridge"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    for f in files {
        let sc: Value = serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
        let state: State = serde_json::from_value(sc["state"].clone()).unwrap_or_default();
        let cmds = sc["steps"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|s| {
                s["command"]["json"]
                    .as_object()
                    .map(|o| Value::Object(o.clone()))
            })
            .collect();
        out.push((f.display().to_string(), state, cmds));
    }
    out
}

fn outcomes(root: &Path) -> Vec<Value> {
    let mut v = Vec::new();
    for folder in ["processed", "failed"] {
        for e in std::fs::read_dir(root.join(folder)).unwrap().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.ends_with(".outcome.json") {
                v.push(serde_json::from_str(&std::fs::read_to_string(e.path()).unwrap()).unwrap());
            }
        }
    }
    v
}

/// One command through the app: its outcome status.
fn submit(root: &Path, n: usize, cmd: &Value) -> bool {
    let file = root.join("inbox").join(format!("{n:06}.json"));
    std::fs::write(&file, cmd.to_string()).unwrap();
    let r = sweep(root).unwrap();
    assert_eq!(r.files.len(), 1);
    r.files[0].outcome.status == stepreplay::bridge::Status::Succeeded
}

/// Small breakages of `v`: each key removed, each value replaced by a wrong kind or an
/// out-of-range number, and an unknown key added to each object.
fn mutants(v: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    let wrong = [
        json!(null),
        json!("x"),
        json!(""),
        json!(0),
        json!(-1),
        json!(100000),
        json!(2.5),
        json!([]),
        json!({}),
    ];
    fn paths(v: &Value, at: Vec<Value>, out: &mut Vec<Vec<Value>>) {
        out.push(at.clone());
        match v {
            Value::Object(o) => o.iter().for_each(|(k, c)| {
                let mut p = at.clone();
                p.push(json!(k));
                paths(c, p, out);
            }),
            Value::Array(a) => a.iter().enumerate().take(3).for_each(|(i, c)| {
                let mut p = at.clone();
                p.push(json!(i));
                paths(c, p, out);
            }),
            _ => {}
        }
    }
    fn at<'a>(v: &'a mut Value, path: &[Value]) -> &'a mut Value {
        path.iter().fold(v, |v, k| match k {
            Value::String(s) => &mut v[s.as_str()],
            k => &mut v[k.as_u64().unwrap() as usize],
        })
    }
    let mut all = Vec::new();
    paths(v, Vec::new(), &mut all);
    for p in all {
        if let Some((last, parent)) = p.split_last() {
            let mut m = v.clone();
            match (at(&mut m, parent), last) {
                (Value::Object(o), Value::String(k)) => drop(o.remove(k)),
                (Value::Array(a), k) => drop(a.remove(k.as_u64().unwrap() as usize)),
                _ => unreachable!(),
            }
            out.push(m);
        }
        for w in &wrong {
            let mut m = v.clone();
            *at(&mut m, &p) = w.clone();
            out.push(m);
        }
        if at(&mut v.clone(), &p).is_object() {
            let mut m = v.clone();
            at(&mut m, &p)["zz"] = json!(1);
            out.push(m);
        }
    }
    out
}

#[test]
fn the_simulator_never_accepts_a_command_the_command_schema_refuses() {
    let (mut refused_by_schema, mut accepted) = (0, 0);
    for (file, state, cmds) in scenario_commands() {
        let tmp = TempDir::new("bridge-schema");
        let root = tmp.path().join("b");
        init(&root, state).unwrap();
        let mut cases = Vec::new();
        for (i, cmd) in cmds.iter().enumerate() {
            let mut these = vec![cmd.clone()];
            if i < 2 {
                these.extend(mutants(cmd));
            }
            for (j, mut case) in these.into_iter().enumerate() {
                // A fresh id each time, or the app would replay the first outcome.
                if j > 0 && case["commandID"] == cmd["commandID"] && case["commandID"].is_string() {
                    let n = cases.len() + 1;
                    case["commandID"] = json!(format!("{n:08x}-0000-4000-8000-000000000000"));
                }
                cases.push(case);
            }
        }
        let Some(verdicts) = errors("command.schema.json", &cases) else {
            return;
        };
        for (n, (case, e)) in cases.iter().zip(verdicts).enumerate() {
            let valid = e.is_empty();
            let ok = submit(&root, n + 1, case);
            assert!(
                valid || !ok,
                "{file}: the app accepted a command the schema refuses ({e:?}):\n{case:#}"
            );
            refused_by_schema += usize::from(!valid);
            accepted += usize::from(ok);
        }
        let written = outcomes(&root);
        for (o, e) in written
            .iter()
            .zip(errors("outcome.schema.json", &written).unwrap())
        {
            assert!(e.is_empty(), "{file}: outcome {o:#} does not fit: {e:?}");
        }
    }
    // The check means something only if both sides happened often.
    assert!(refused_by_schema > 500, "{refused_by_schema}");
    assert!(accepted > 20, "{accepted}");
}

#[test]
fn the_written_manifest_is_v3_and_a_v2_manifest_is_the_strict_prior_contract() {
    let tmp = TempDir::new("bridge-manifest");
    let root = tmp.path().join("b");
    let (_, state, cmds) = scenario_commands()
        .into_iter()
        .find(|(f, ..)| f.ends_with("routine-then-plan-from-command.json"))
        .unwrap();
    init(&root, state).unwrap();
    for (n, c) in cmds.iter().enumerate() {
        submit(&root, n, c);
    }
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("manifest.json")).unwrap())
            .unwrap();
    assert!(!manifest["state"]["plans"].as_array().unwrap().is_empty());
    let mut old = manifest.clone();
    let o = old.as_object_mut().unwrap();
    for k in ["maxCommandBytes", "ledger", "lastIngestion"] {
        o.remove(k);
    }
    o.insert("schemaVersion".into(), json!(2));
    // v2 is strict: one unknown key fails it.
    let mut old_plus = old.clone();
    old_plus["ledger"] = json!({});
    let docs = [manifest, old, old_plus];
    let (Some(v2), Some(v3)) = (
        errors("manifest-v2.schema.json", &docs),
        errors("manifest-v3.schema.json", &docs),
    ) else {
        return;
    };
    assert_eq!(v3[0], Vec::<String>::new(), "the written manifest is v3");
    assert!(!v2[0].is_empty(), "a v3 manifest is not a v2 one");
    assert_eq!(
        v2[1],
        Vec::<String>::new(),
        "the v3 manifest cut back is v2"
    );
    assert!(!v3[1].is_empty(), "and no longer v3");
    assert!(!v2[2].is_empty(), "one unknown key fails v2");
}
