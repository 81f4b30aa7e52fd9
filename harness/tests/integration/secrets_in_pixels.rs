//! A secret typed into a page never reaches a picture the harness writes: the recorder paints
//! over the field that holds it (and any node that echoes it), so the recorded frames, the HTML
//! report's copies and every `--captures` picture are clean. Tesseract is the reader: what it
//! cannot read off the pictures, a person cannot either.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::util::{TempDir, have_tool, repo, run_in};

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
    run_in(
        suite,
        &[
            "record-browser",
            "--plan",
            plan_file.to_str().unwrap(),
            "--pages",
            pages.to_str().unwrap(),
            "--out",
            rec.to_str().unwrap(),
            "--scale",
            "2",
        ],
    )
    .expect_code(0);
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
