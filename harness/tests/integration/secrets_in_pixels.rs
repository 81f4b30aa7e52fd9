//! A secret typed into a page or a desktop field never reaches a picture the harness writes: the
//! browser recorder, the desktop recorder, `synth` and `import` paint over the field that holds
//! it (and anything that echoes it), so the recorded frames, the plan's crops, the HTML report's
//! copies and every `--captures` picture are clean. Tesseract is the reader: what it cannot read
//! off the pictures, a person cannot either.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::util::{TempDir, have_tool, record_browser, repo, run_in};

/// The value the sensitive step types, and the part of it Tesseract reads reliably at 2x (it
/// takes the caret after the last digit for part of it).
const SECRET: &str = "QUOKKA7391";
const READ: &str = "QUOKKA";

/// Every PNG under `dir`.
fn pngs(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            out.extend(pngs(&p));
        } else if p.extension().is_some_and(|x| x == "png") {
            out.push(p);
        }
    }
    out.sort();
    out
}

/// What Tesseract reads off `png`, upper-cased, with no white space.
fn ocr(png: &Path) -> String {
    let out = std::process::Command::new("tesseract")
        .arg(png)
        .arg("stdout")
        .output()
        .expect("tesseract runs");
    String::from_utf8_lossy(&out.stdout)
        .to_uppercase()
        .split_whitespace()
        .collect()
}

/// Records the pay plan on a cart whose code field shows what is typed in clear text, with the
/// code step `risk` as given.
fn record(suite: &Path, name: &str, risk: &str) -> PathBuf {
    let browser = repo().join("recordings/scripts/browser");
    let pages = suite.join("pages");
    std::fs::create_dir_all(&pages).unwrap();
    for page in ["cart.html", "paid.html", "style.css"] {
        let text = std::fs::read_to_string(browser.join("pages").join(page)).unwrap();
        let text = text.replace(r#"type="password""#, r#"type="text""#);
        std::fs::write(pages.join(page), text).unwrap();
    }
    let mut plan: Value =
        serde_json::from_str(&std::fs::read_to_string(browser.join("pay.json")).unwrap()).unwrap();
    let code = plan["steps"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|s| s["id"] == "code")
        .expect("the pay plan types a code");
    code["value"] = SECRET.into();
    code["risk"] = risk.into();
    // The receipt's `wait` is left out: the recorder keeps no element for it, so it would not
    // replay (a gap of its own, not what this test is about).
    plan["steps"]
        .as_array_mut()
        .unwrap()
        .retain(|s| s["kind"] != "wait");
    let plan_dir = suite.join("scenarios").join(name);
    std::fs::create_dir_all(&plan_dir).unwrap();
    let plan_file = plan_dir.join("plan.json");
    std::fs::write(&plan_file, serde_json::to_string_pretty(&plan).unwrap()).unwrap();
    let rec = suite.join("recordings").join(name);
    record_browser(suite, &plan_file, &pages, &rec, &["--scale", "2"]).expect_code(0);
    rec
}

#[cfg(target_os = "linux")]
#[test]
fn a_typed_secret_is_in_no_picture_the_harness_writes() {
    if !have_tool("chromium", "scripts/install-test-deps installs chromium")
        || !have_tool(
            "tesseract",
            "scripts/install-test-deps installs tesseract-ocr",
        )
    {
        return;
    }
    let tmp = TempDir::new("secrets-in-pixels");
    let suite = tmp.path();

    // The control: typed as an ordinary value, the page shows it and Tesseract reads it.
    let plain = record(suite, "plain", "interaction");
    let read: Vec<PathBuf> = pngs(&plain)
        .into_iter()
        .filter(|p| ocr(p).contains(READ))
        .collect();
    assert!(
        !read.is_empty(),
        "Tesseract should read {READ} off the frames of a plain recording"
    );

    // Typed as a secret: no recorded frame shows it, and the field is painted over.
    let secret = record(suite, "secret", "sensitive");
    for png in pngs(&secret) {
        assert!(
            !ocr(&png).contains(READ),
            "{} shows the secret",
            png.display()
        );
    }
    let recording: Value =
        serde_json::from_str(&std::fs::read_to_string(secret.join("recording.json")).unwrap())
            .unwrap();
    let typed = recording["transitions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["step_id"] == "code")
        .unwrap();
    let after = image::open(secret.join(format!("frames/{}.png", typed["to"].as_str().unwrap())))
        .unwrap()
        .to_rgba8();
    let dom: Value = serde_json::from_str(
        &std::fs::read_to_string(
            secret.join(format!("frames/{}.dom.json", typed["to"].as_str().unwrap())),
        )
        .unwrap(),
    )
    .unwrap();
    let field = dom["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["id"] == typed["element"])
        .expect("the field is in the DOM");
    let (x, y) = (
        field["rect"]["x"].as_u64().unwrap() as u32,
        field["rect"]["y"].as_u64().unwrap() as u32,
    );
    assert_eq!(after.get_pixel(x + 3, y + 3).0, [255, 0, 255, 255]);

    // Replayed with every picture written: the report's copies and the captures are clean too.
    let scenario = serde_json::json!({
        "schema": "stepreplay-scenario/1", "id": "secret", "plan": "secret/plan.json",
        "recording": "secret", "clock": 1767226000000u64,
        "answers": {"confirm": {"code": "approve", "pay": "approve"}},
        "expect": {"outcome": "completed"}
    });
    std::fs::write(
        suite.join("scenarios/secret.json"),
        serde_json::to_string_pretty(&scenario).unwrap(),
    )
    .unwrap();
    run_in(
        suite,
        &[
            "run",
            "scenarios/secret.json",
            "--report-dir",
            "out",
            "--captures",
            "out/captures",
        ],
    )
    .expect_code(0);
    let written = pngs(&suite.join("out"));
    assert!(
        written.len() >= 6,
        "the report and the captures hold the frames: {written:?}"
    );
    for png in written {
        assert!(
            !ocr(&png).contains(READ),
            "{} shows the secret",
            png.display()
        );
    }
}

/// A desktop script: the person types a door code into a plain text field (which shows it) and a
/// label echoes it, then clicks Open; the code is a `sensitive` input or an ordinary one.
fn door_script(name: &str, sensitive: bool) -> Value {
    serde_json::json!({
        "schema": "stepreplay-synth/1", "name": name, "scale": 2, "screen": [700, 420],
        "guide": {"id": "g-door", "title": "Open the door"},
        "inputs": [{"id": "door-code", "name": "door code", "changes": "each-time",
                    "basis": "author", "sensitive": sensitive, "shape": "text", "used_by": [2]}],
        "apps": [{"name": "Doors", "frontmost": true, "windows": [{
            "id": "main", "title": "Door", "frame": [40, 40, 600, 320], "controls": [
                {"id": "code-label", "kind": "label", "label": "Code:", "frame": [24, 40, 80, 30]},
                {"id": "code", "kind": "text-field", "labelled_by": "code-label",
                 "frame": [110, 36, 440, 36]},
                {"id": "echo", "kind": "label", "label": "Waiting", "frame": [24, 120, 520, 30]},
                {"id": "open", "kind": "button", "label": "Open", "frame": [440, 240, 110, 32]}
            ]}]}],
        "steps": [
            {"id": "focus-code", "text": "Click the code field", "action": "click",
             "control": "code", "changes": [{"focus": "code"}]},
            {"id": "type-code", "text": "Type the door code", "action": "type", "control": "code",
             "template": "{door-code}", "reads": ["door-code"],
             "changes": [{"set": "code", "value": SECRET},
                         {"set": "echo", "value": format!("Entered {SECRET}")}]},
            {"id": "open", "text": "Click Open", "action": "click", "control": "open",
             "changes": [{"set": "echo", "value": "Opening"}]}
        ],
        "scenarios": [if sensitive {
            serde_json::json!({"id": name, "description": "the door code as a secret",
                "answers": {"sensitive": {"door-code": SECRET}},
                "expect": {"outcome": "completed"}})
        } else {
            serde_json::json!({"id": name, "description": "the door code in the clear",
                "inputs": {"door-code": SECRET}, "expect": {"outcome": "completed"}})
        }]
    })
}

/// Writes the door script into `suite` and synthesizes its recording, plan and scenario.
fn synth_door(suite: &Path, name: &str, sensitive: bool) {
    let script = suite.join(format!("{name}.synth.json"));
    std::fs::write(
        &script,
        serde_json::to_string_pretty(&door_script(name, sensitive)).unwrap(),
    )
    .unwrap();
    run_in(
        suite,
        &[
            "synth",
            script.to_str().unwrap(),
            "--out",
            &format!("recordings/{name}"),
            "--plan-out",
            &format!("scenarios/{name}"),
        ],
    )
    .expect_code(0);
}

#[test]
fn a_desktop_secret_is_in_no_picture_the_harness_writes() {
    if !have_tool(
        "tesseract",
        "scripts/install-test-deps installs tesseract-ocr",
    ) {
        return;
    }
    let tmp = TempDir::new("desktop-secrets-in-pixels");
    let suite = tmp.path();

    // The control: as an ordinary input, the field and the echo show it and Tesseract reads it.
    synth_door(suite, "plain", false);
    let read: Vec<PathBuf> = pngs(&suite.join("recordings/plain"))
        .into_iter()
        .filter(|p| ocr(p).contains(READ))
        .collect();
    assert!(
        read.len() >= 2,
        "Tesseract should read {READ} off the frames of a plain recording: {read:?}"
    );

    // As a secret: no frame, crop, report copy or capture shows it, and the AX files hold no
    // trace of it.
    synth_door(suite, "secret", true);
    run_in(
        suite,
        &[
            "run",
            "scenarios/secret.json",
            "--report-dir",
            "out",
            "--captures",
            "out/captures",
        ],
    )
    .expect_code(0);
    let mut written = pngs(&suite.join("recordings/secret"));
    written.extend(pngs(&suite.join("scenarios/secret")));
    written.extend(pngs(&suite.join("out")));
    assert!(
        written.len() >= 12,
        "frames, crops, report copies and captures: {written:?}"
    );
    for png in written {
        assert!(
            !ocr(&png).contains(READ),
            "{} shows the secret",
            png.display()
        );
    }
    for f in std::fs::read_dir(suite.join("recordings/secret/frames")).unwrap() {
        let text = std::fs::read_to_string(f.unwrap().path()).unwrap_or_default();
        assert!(!text.contains(SECRET), "an AX file holds the secret");
    }
    // The field is covered in the frame after the code was typed, as Playwright's mask does.
    let frames = suite.join("recordings/secret/frames");
    let ax: Value =
        serde_json::from_str(&std::fs::read_to_string(frames.join("002.ax.json")).unwrap())
            .unwrap();
    let code = ax["apps"][0]["windows"][0]["elements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["id"] == "code")
        .expect("the field is in the tree");
    let at = |k: &str| code["frame"][k].as_u64().unwrap() as u32;
    let after = image::open(frames.join("002.png")).unwrap().to_rgb8();
    assert_eq!(
        after.get_pixel(at("x") + 3, at("y") + at("height") / 2).0,
        [255, 0, 255]
    );
}

/// A page whose submit clears the card field and changes nothing else: the one change a
/// diffshot after the sensitive submit can see is the field emptied.
const CLEARS: &str = r#"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Pay</title><link rel="stylesheet" href="style.css"></head>
<body>
<h1>Pay</h1>
<form id="pay-form">
  <label for="card">Card number</label><input id="card" name="card" type="text" autocomplete="off">
  <div><button id="pay" type="submit">Pay now</button></div>
</form>
<script>
document.getElementById("pay-form").addEventListener("submit", (e) => {
  e.preventDefault();
  document.getElementById("card").value = "";
  document.getElementById("pay").blur();
});
</script>
</body></html>
"#;

/// The mask keeps the evidence: the card field is painted over while it holds the secret and
/// left as it looks once the submit has cleared it, so the submit's diffshot (computed on the
/// written frames) sees the field emptied, and no written picture shows the secret.
#[cfg(target_os = "linux")]
#[test]
fn a_diffshot_after_a_sensitive_submit_sees_the_field_it_cleared() {
    if !have_tool("chromium", "scripts/install-test-deps installs chromium")
        || !have_tool(
            "tesseract",
            "scripts/install-test-deps installs tesseract-ocr",
        )
    {
        return;
    }
    let tmp = TempDir::new("secrets-diffshot");
    let suite = tmp.path();
    let pages = suite.join("pages");
    std::fs::create_dir_all(&pages).unwrap();
    std::fs::write(pages.join("pay.html"), CLEARS).unwrap();
    std::fs::copy(
        repo().join("recordings/scripts/browser/pages/style.css"),
        pages.join("style.css"),
    )
    .unwrap();
    let plan = serde_json::json!({
        "$schema": "devthink/protocolv2/plan.schema.json",
        "approvedat": 1767225900000u64, "createdat": 1767225600000u64,
        "expiresat": 1767312000000u64, "id": "plan-clear",
        "objective": "Pay with a card", "origin": "http://127.0.0.1:8000", "state": "approved",
        "steps": [
            {"id": "open", "kind": "navigate", "risk": "interaction",
             "summary": "Open the payment page", "value": "/pay.html"},
            {"id": "code", "kind": "type", "risk": "sensitive", "summary": "Type the card number",
             "target": "#card", "value": SECRET},
            {"id": "pay", "kind": "submit", "risk": "sensitive", "summary": "Pay",
             "target": "#pay", "options": "{\"diff\": true}"}
        ]
    });
    let dir = suite.join("scenarios/clears");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("plan.json"),
        serde_json::to_string_pretty(&plan).unwrap(),
    )
    .unwrap();
    let rec = suite.join("recordings/clears");
    record_browser(
        suite,
        dir.join("plan.json"),
        &pages,
        &rec,
        &["--scale", "2"],
    )
    .expect_code(0);
    let scenario = serde_json::json!({
        "schema": "stepreplay-scenario/1", "id": "clears", "plan": "clears/plan.json",
        "recording": "clears", "clock": 1767226000000u64,
        "answers": {"confirm": {"code": "approve", "pay": "approve"}},
        "expect": {"outcome": "completed"}
    });
    std::fs::write(
        suite.join("scenarios/clears.json"),
        serde_json::to_string_pretty(&scenario).unwrap(),
    )
    .unwrap();
    run_in(
        suite,
        &[
            "run",
            "scenarios/clears.json",
            "--reports",
            "json",
            "--report-dir",
            "out",
            "--captures",
            "out/captures",
        ],
    )
    .expect_code(0);
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(suite.join("out/report.json")).unwrap())
            .unwrap();
    let pay = &report["scenarios"][0]["runs"]["chained"]["steps"][2];
    let diffshot = pay["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["kind"] == "diffshot")
        .unwrap_or_else(|| panic!("the submit has a diffshot check: {pay}"));
    assert_eq!(diffshot["passed"], true, "{diffshot}");
    let written: Vec<PathBuf> = pngs(&rec)
        .into_iter()
        .chain(pngs(&suite.join("out")))
        .collect();
    assert!(written.len() >= 4, "{written:?}");
    for png in written {
        assert!(
            !ocr(&png).contains(READ),
            "{} shows the secret",
            png.display()
        );
    }
}
