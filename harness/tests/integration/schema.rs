//! The one JSON Schema validator the tests use: Debian's python3-jsonschema (a real,
//! independent implementation of draft 2020-12, installed by scripts/install-test-deps), run
//! once per batch of documents rather than once per document.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::Value;

/// Checks that the schema is a valid 2020-12 schema, then validates each document; prints one
/// JSON list of error messages per input line.
const SCRIPT: &str = r#"
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
v = jsonschema.Draft202012Validator(schema)
for line in sys.stdin:
    doc = json.loads(line)
    errors = ["%s at /%s" % (e.message, "/".join(str(p) for p in e.absolute_path))
              for e in v.iter_errors(doc)]
    print(json.dumps(sorted(errors)))
"#;

/// A python3 that has the `jsonschema` module, or `None` (and a note) when there is none:
/// the test then skips, unless `STEPREPLAY_REQUIRE_TOOLS` is set, when it fails.
fn python() -> Option<&'static str> {
    let found = ["/usr/bin/python3", "python3"].into_iter().find(|p| {
        Command::new(p)
            .args(["-c", "import jsonschema"])
            .output()
            .is_ok_and(|o| o.status.success())
    });
    if found.is_none() {
        assert!(
            std::env::var_os("STEPREPLAY_REQUIRE_TOOLS").is_none(),
            "python3's jsonschema is required: apt-get install python3-jsonschema"
        );
        eprintln!(
            "note: no python3 with jsonschema; skipping (apt-get install python3-jsonschema)"
        );
    }
    found
}

/// The errors of each document against the schema file, in order (empty: valid); `None` when
/// no validator is installed. Panics when the schema itself is not a valid 2020-12 schema.
pub fn errors(schema: &Path, docs: &[Value]) -> Option<Vec<Vec<String>>> {
    let python = python()?;
    let mut child = Command::new(python)
        .arg("-c")
        .arg(SCRIPT)
        .arg(schema)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3 starts");
    let mut input = String::new();
    for d in docs {
        input.push_str(&d.to_string());
        input.push('\n');
    }
    let mut stdin = child.stdin.take().expect("piped");
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().expect("python3 runs");
    let written = writer.join().expect("writer");
    assert!(
        out.status.success(),
        "{}: {}",
        schema.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    written.expect("python3 reads its input");
    let lists: Vec<Vec<String>> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON list per document"))
        .collect();
    assert_eq!(lists.len(), docs.len(), "one answer per document");
    Some(lists)
}
