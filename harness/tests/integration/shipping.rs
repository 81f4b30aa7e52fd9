//! What ships beside the code: the workflow files are the ones `docs/ci.md` shows (so the two
//! cannot drift), the composite action's inputs are all documented, and the release archive
//! names agree between the release workflow, the action and Cargo's binstall metadata.

use crate::util::repo;

fn read(path: &str) -> String {
    std::fs::read_to_string(repo().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The fenced `yaml` blocks of a Markdown file.
fn yaml_blocks(markdown: &str) -> Vec<String> {
    markdown
        .split("```yaml\n")
        .skip(1)
        .filter_map(|b| b.split("```\n").next())
        .map(str::to_string)
        .collect()
}

#[test]
fn docs_ci_shows_the_workflow_and_gitlab_files_as_they_are() {
    let blocks = yaml_blocks(&read("docs/ci.md"));
    for file in [".github/workflows/replay.yml", "docs/gitlab-ci.yml"] {
        let text = read(file);
        assert!(
            blocks.contains(&text),
            "docs/ci.md has no yaml block equal to {file}: copy the file into it"
        );
    }
}

/// The inputs `action.yml` declares.
fn action_inputs(action: &str) -> Vec<&str> {
    action
        .split("\ninputs:\n")
        .nth(1)
        .and_then(|rest| rest.split("\n\n").next())
        .unwrap()
        .lines()
        .filter(|l| l.starts_with("  ") && !l.starts_with("   ") && l.ends_with(':'))
        .map(|l| l.trim().trim_end_matches(':'))
        .collect()
}

#[test]
fn every_input_of_the_action_is_documented() {
    let action = read("action.yml");
    let inputs = action_inputs(&action);
    assert!(inputs.len() >= 6, "{inputs:?}");
    let docs = read("docs/ci.md");
    for input in inputs {
        assert!(
            docs.contains(&format!("| `{input}` |")),
            "docs/ci.md's action table lacks `{input}`"
        );
    }
}

#[test]
fn the_release_archive_name_is_the_same_everywhere() {
    // stepreplay-<target>.tar.gz holding stepreplay-<target>/stepreplay.
    let release = read(".github/workflows/release.yml");
    assert!(release.contains(r#"dir="stepreplay-$TARGET""#));
    assert!(release.contains(r#"tar czf "$dir.tar.gz" "$dir""#));
    let install = read("scripts/action-install");
    assert!(install.contains(r#""stepreplay-$target.tar.gz""#));
    assert!(install.contains(r#""$RUNNER_TEMP/stepreplay-$target/stepreplay""#));
    let manifest = read("harness/Cargo.toml");
    assert!(manifest.contains("/releases/download/v{ version }/stepreplay-{ target }.tar.gz"));
    assert!(manifest.contains(r#"bin-dir = "stepreplay-{ target }/{ bin }{ binary-ext }""#));
    // Every target the action can ask for is built.
    for target in [
        "x86_64-unknown-linux-gnu",
        "aarch64-unknown-linux-gnu",
        "aarch64-apple-darwin",
        "x86_64-apple-darwin",
    ] {
        assert!(
            release.contains(target) && install.contains(target),
            "{target}"
        );
    }
}

#[test]
fn the_docs_show_the_limits_as_the_code_has_them() {
    let readme = read("docs/limits.md");
    assert!(
        readme.contains(&stepreplay::limits::table()),
        "docs/limits.md's limits table differs from limits::table(); paste the output of \
         `cargo test -p stepreplay --lib print_limits -- --ignored --nocapture`"
    );
}

/// The `uses: stepreplay/stepreplay@…` step `docs/ci.md` shows passes only inputs the action
/// has, so a reader who copies it gets no "unexpected input" warning.
#[test]
fn the_documented_action_step_uses_only_its_inputs() {
    let action = read("action.yml");
    let inputs = action_inputs(&action);
    let docs = read("docs/ci.md");
    let step = yaml_blocks(&docs)
        .into_iter()
        .find(|b| b.contains("uses: stepreplay/stepreplay@"))
        .expect("docs/ci.md shows the action as a step");
    let with: Vec<String> = step
        .split("with:\n")
        .nth(1)
        .expect("the step has `with:`")
        .lines()
        .filter_map(|l| l.trim().split_once(':').map(|(k, _)| k.to_string()))
        .collect();
    assert!(with.len() >= 3, "{with:?}");
    for key in &with {
        assert!(
            inputs.contains(&key.as_str()),
            "docs/ci.md's action step passes `{key}`, which action.yml does not declare ({inputs:?})"
        );
    }
}
