//! `stepreplay diff`: exit codes, errors on bad input, and golden outputs for a screenshot pair
//! from the pixelmatch 7.2.0 corpus and for an AX snapshot pair.

use std::path::Path;

use crate::util::{TempDir, run_in};

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../corpora/pixelmatch-7.2.0");
const AX: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/ax");

fn corpus() -> &'static Path {
    Path::new(CORPUS)
}

#[test]
fn json_summary_of_a_corpus_pair() {
    let run = run_in(
        corpus(),
        &[
            "diff",
            "4a.png",
            "4b.png",
            "--threshold",
            "0.05",
            "--format",
            "json",
        ],
    );
    run.expect_code(1);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    // The corpus says pixelmatch 7.2.0 returns 36049 for this pair at threshold 0.05.
    assert_eq!(v["mismatched"], 36049);
    insta::assert_snapshot!(run.stdout);
}

#[test]
fn json_summary_with_masks_and_tolerance() {
    let run = run_in(
        corpus(),
        &[
            "diff",
            "1a.png",
            "1b.png",
            "--format",
            "json",
            "--mask",
            "400,90,60,40",
            "--max-diff-pixels",
            "2",
        ],
    );
    run.expect_code(0);
    insta::assert_snapshot!(run.stdout);
}

#[test]
fn exit_codes() {
    // Identical images, and a difference the tolerance allows: 0.
    run_in(corpus(), &["diff", "1a.png", "1a.png", "--threshold", "0"]).expect_code(0);
    run_in(
        corpus(),
        &["diff", "1a.png", "1b.png", "--max-diff-pixel-ratio", "0.01"],
    )
    .expect_code(0);
    // A difference: 1. pixelmatch's 106 for this pair is one over the limit of 105.
    let run = run_in(
        corpus(),
        &["diff", "1a.png", "1b.png", "--max-diff-pixels", "105"],
    );
    run.expect_code(1);
    assert!(
        run.stdout.starts_with("106 of 131072 pixels differ"),
        "{}",
        run.stdout
    );
    // Bad input: 2.
    for args in [
        &["diff", "1a.png", "missing.png"][..],
        &["diff", "README.md", "1a.png"],
        &["diff", "1a.png", "expected.json"],
    ] {
        let run = run_in(corpus(), args);
        run.expect_code(2);
        assert!(run.stderr.starts_with("error: "), "{}", run.stderr);
    }
    // A flag's value out of range is the command line's fault: a usage error.
    for args in [
        &["diff", "1a.png", "1b.png", "--threshold", "NaN"][..],
        &["diff", "1a.png", "1b.png", "--max-diff-pixel-ratio", "2"],
    ] {
        let run = run_in(corpus(), args);
        run.expect_code(64);
        assert!(run.stderr.starts_with("error: "), "{}", run.stderr);
    }
}

#[test]
fn size_mismatch_names_both_sizes() {
    let run = run_in(corpus(), &["diff", "1a.png", "2a.png"]);
    run.expect_code(2);
    assert!(run.stdout.is_empty());
    assert_eq!(
        run.stderr,
        "error: image-size-mismatch: 2a.png: image sizes differ: `1a.png` is 512×256, \
         `2a.png` is 256×256 (hint: compare screenshots taken at the same size and scale)\n"
    );
}

#[test]
fn a_truncated_png_is_bad_input_not_a_panic() {
    let tmp = TempDir::new("diff-truncated");
    let dir = tmp.path();
    let bytes = std::fs::read(corpus().join("1a.png")).unwrap();
    std::fs::write(dir.join("cut.png"), &bytes[..bytes.len() / 2]).unwrap();
    std::fs::copy(corpus().join("1a.png"), dir.join("1a.png")).unwrap();
    let run = run_in(dir, &["diff", "1a.png", "cut.png"]);
    run.expect_code(2);
    assert!(
        run.stderr.starts_with("error: invalid-image: cut.png:"),
        "{}",
        run.stderr
    );
}

#[test]
fn diff_png_is_written_only_when_asked() {
    let tmp = TempDir::new("diff-out");
    let dir = tmp.path();
    for f in ["7a.png", "7b.png"] {
        std::fs::copy(corpus().join(f), dir.join(f)).unwrap();
    }
    run_in(dir, &["diff", "7a.png", "7b.png"]).expect_code(1);
    assert_eq!(std::fs::read_dir(dir).unwrap().count(), 2);
    run_in(
        dir,
        &[
            "diff",
            "7a.png",
            "7b.png",
            "--out",
            "d.png",
            "--mask",
            "10,10,20,20",
        ],
    )
    .expect_code(1);
    let d = image::open(dir.join("d.png")).unwrap().into_rgba8();
    let a = image::open(dir.join("7a.png")).unwrap();
    assert_eq!(d.dimensions(), (a.width(), a.height()));
    // The mask's outline is drawn in the mask colour, not painted over with the image.
    assert_eq!(d.get_pixel(10, 15).0, stepreplay::diff::mask::MASK_COLOR);
    // Counted pixels are red (pixelmatch's diffColor).
    assert!(d.pixels().any(|p| p.0 == [255, 0, 0, 255]));
}

#[test]
fn ax_diff_human_and_json() {
    let dir = Path::new(AX);
    let human = run_in(dir, &["diff", "before.ax.json", "after.ax.json"]);
    human.expect_code(1);
    // Secure field values never reach any output.
    assert!(!human.stdout.contains("horse") && !human.stdout.contains("staple"));
    insta::assert_snapshot!("ax_human", human.stdout);
    let json = run_in(
        dir,
        &[
            "diff",
            "before.ax.json",
            "after.ax.json",
            "--format",
            "json",
        ],
    );
    json.expect_code(1);
    assert!(!json.stdout.contains("horse") && !json.stdout.contains("staple"));
    insta::assert_snapshot!("ax_json", json.stdout);
    run_in(dir, &["diff", "before.ax.json", "before.ax.json"]).expect_code(0);
}

#[test]
fn element_masks_come_from_an_ax_snapshot() {
    let ax = format!("{AX}/before.ax.json");
    // `send` is at 24,60 40×28 in the snapshot: inside the 512×256 pair, so it is masked.
    let run = run_in(
        corpus(),
        &[
            "diff",
            "1a.png",
            "1b.png",
            "--format",
            "json",
            "--mask-ax",
            &ax,
            "--mask-element",
            "send",
        ],
    );
    run.expect_code(1);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["masks"]["excluded_pixels"], 40 * 28);
    let run = run_in(
        corpus(),
        &[
            "diff",
            "1a.png",
            "1b.png",
            "--mask-ax",
            &ax,
            "--mask-element",
            "nope",
        ],
    );
    run.expect_code(2);
    assert!(
        run.stderr.contains("unknown-id") && run.stderr.contains("`nope`"),
        "{}",
        run.stderr
    );
}
