//! Every report writer stays well-formed for every input: each free-text field of a real
//! run's report (descriptions, step text, AX names, error messages, ids) is replaced by
//! arbitrary Unicode — controls, noncharacters, markup — and each format is read back by a
//! parser: `report.json` by serde_json, `junit.xml` by quick-xml plus XML 1.0's character
//! rule, `index.html` by a tag-balance check, `summary.md` by its table shape. A run whose
//! plan, scenario and recording hold U+FFFF writes a `junit.xml` Python's expat accepts.

use std::path::Path;
use std::sync::OnceLock;

use proptest::prelude::*;
use serde_json::Value;
use stepreplay::report::{
    Baseline, PageImages, Report, compare, to_html, to_json, to_junit, to_markdown,
};
use stepreplay::text::xml_char_ok;

use crate::util::{TempDir, copy_tree, have_tool, repo, run_in};

/// A real report with failures in it (the `mini` suite and its failing scenario), as JSON.
fn seed() -> &'static Value {
    static SEED: OnceLock<Value> = OnceLock::new();
    SEED.get_or_init(|| {
        let out = TempDir::new("writers-seed");
        let mini = repo().join("harness/tests/fixtures/mini");
        let dir = out.path().to_str().unwrap();
        let r = run_in(
            &mini,
            &[
                "run",
                "scenarios",
                "failing",
                "--reports",
                "json",
                "-q",
                "--report-dir",
                dir,
            ],
        );
        assert!(r.code == 1, "{r}");
        serde_json::from_slice(&std::fs::read(out.path().join("report.json")).unwrap()).unwrap()
    })
}

/// The JSON pointers of the seed's strings that are free text: those a report still reads
/// as a report with a noncharacter in them (an enum's word would not).
fn text_fields() -> &'static [String] {
    static FIELDS: OnceLock<Vec<String>> = OnceLock::new();
    FIELDS.get_or_init(|| {
        let mut all = Vec::new();
        strings(seed(), String::new(), &mut all);
        let fields: Vec<String> = all
            .into_iter()
            .filter(|p| {
                let mut v = seed().clone();
                *v.pointer_mut(p).unwrap() = Value::from("x\u{FFFF}");
                serde_json::from_value::<Report>(v).is_ok()
            })
            .collect();
        for must in ["/scenarios/0/description", "/scenarios/0/id"] {
            assert!(
                fields.iter().any(|f| f == must),
                "{must} not found in {fields:?}"
            );
        }
        assert!(
            fields.iter().any(|f| f.ends_with("/text")),
            "no step text in {fields:?}"
        );
        fields
    })
}

fn strings(v: &Value, at: String, out: &mut Vec<String>) {
    let esc = |k: &str| k.replace('~', "~0").replace('/', "~1");
    match v {
        Value::String(_) => out.push(at),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .for_each(|(i, x)| strings(x, format!("{at}/{i}"), out)),
        Value::Object(m) => m
            .iter()
            .for_each(|(k, x)| strings(x, format!("{at}/{}", esc(k)), out)),
        _ => {}
    }
}

/// Text that tries every rule: XML's forbidden and discouraged characters, markup, Markdown's
/// table and emphasis characters, and any other scalar value.
fn hostile() -> impl Strategy<Value = String> {
    let special = prop::sample::select(vec![
        '\u{FFFF}',
        '\u{FFFE}',
        '\u{1FFFE}',
        '\u{FDD0}',
        '\0',
        '\u{1b}',
        '\u{7f}',
        '\u{85}',
        '\u{9f}',
        '\t',
        '\n',
        '\r',
        '<',
        '>',
        '&',
        '"',
        '\'',
        '|',
        '`',
        '*',
        '[',
        ']',
        '\\',
        '\u{2028}',
        '\u{feff}',
        '\u{10FFFF}',
        ';',
        '#',
    ]);
    prop::collection::vec(prop_oneof![special, any::<char>()], 0..12)
        .prop_map(|cs| cs.into_iter().collect())
}

proptest! {
    #![proptest_config(crate::fuzz::config())]

    #[test]
    fn every_writer_is_well_formed_for_any_text(
        texts in prop::collection::vec(hostile(), 64),
    ) {
        let mut v = seed().clone();
        for (i, p) in text_fields().iter().enumerate() {
            *v.pointer_mut(p).unwrap() = Value::from(texts[i % texts.len()].clone());
        }
        let report: Report = serde_json::from_value(v).unwrap();
        // Gated on a baseline where every scenario met its expectation: regressions carry
        // the failures' text too.
        let mut base = Baseline::from_report(&serde_json::from_value(seed().clone()).unwrap());
        base.scenarios.values_mut().for_each(|s| s.met = true);
        let regressions = compare(&base, &report, 0.0).unwrap();

        let json = to_json(&report);
        let back: Report = serde_json::from_str(&json).map_err(|e| fail(format!("report.json: {e}")))?;
        prop_assert_eq!(to_json(&back), json, "report.json does not read back to itself");
        check_xml(&to_junit(&report, Some(&regressions))).map_err(fail)?;
        check_html(&to_html(&report, Some(&regressions), &PageImages::default())).map_err(fail)?;
        check_markdown(&to_markdown(&report, Some(&regressions)).unwrap()).map_err(fail)?;
    }
}

fn fail(why: String) -> TestCaseError {
    TestCaseError::fail(why)
}

/// Well-formed XML 1.0: quick-xml reads every event with matching end tags, and no character
/// of the document, nor any it refers to (`&#xFFFF;`), is one XML refuses.
pub(crate) fn check_xml(doc: &str) -> Result<(), String> {
    use quick_xml::events::Event;
    if let Some(c) = doc.chars().find(|c| !xml_char_ok(*c)) {
        return Err(format!("U+{:04X} in the document", u32::from(c)));
    }
    let mut r = quick_xml::Reader::from_str(doc);
    let mut depth = 0usize;
    loop {
        let ev = r
            .read_event()
            .map_err(|e| format!("at {}: {e}", r.buffer_position()))?;
        let text = match &ev {
            Event::Start(e) | Event::Empty(e) => {
                depth += usize::from(matches!(ev, Event::Start(_)));
                e.attributes()
                    .map(|a| {
                        let a = a.map_err(|e| e.to_string())?;
                        a.normalized_value(quick_xml::XmlVersion::Explicit1_0)
                            .map(|v| v.into_owned())
                            .map_err(|e| e.to_string())
                    })
                    .collect::<Result<Vec<_>, _>>()?
                    .concat()
            }
            Event::End(_) => {
                depth -= 1;
                String::new()
            }
            Event::Text(t) => t.decode().map_err(|e| e.to_string())?.into_owned(),
            Event::GeneralRef(g) => {
                let name = g.decode().map_err(|e| e.to_string())?;
                match g.resolve_char_ref().map_err(|e| e.to_string())? {
                    Some(c) => c.to_string(),
                    None if ["amp", "lt", "gt", "quot", "apos"].contains(&name.as_ref()) => {
                        String::new()
                    }
                    None => return Err(format!("unknown entity &{name};")),
                }
            }
            Event::Eof => break,
            _ => String::new(),
        };
        if let Some(c) = text.chars().find(|c| !xml_char_ok(*c)) {
            return Err(format!("U+{:04X} at {}", u32::from(c), r.buffer_position()));
        }
    }
    if depth != 0 {
        return Err(format!("{depth} elements left open"));
    }
    Ok(())
}

/// HTML whose every tag parses, opens and closes in order (void elements aside; `script` and
/// `style` read as raw text), whose text holds no stray `>` and only known `&` references,
/// and no character XML refuses (they are HTML parse errors too).
pub(crate) fn check_html(doc: &str) -> Result<(), String> {
    const VOID: &[&str] = &[
        "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr",
    ];
    if let Some(c) = doc.chars().find(|c| !xml_char_ok(*c)) {
        return Err(format!("U+{:04X} in the page", u32::from(c)));
    }
    let mut stack: Vec<String> = Vec::new();
    let mut rest = doc;
    let at = |rest: &str| doc.len() - rest.len();
    while !rest.is_empty() {
        let lt = rest.find('<').unwrap_or(rest.len());
        check_html_text(&rest[..lt]).map_err(|e| format!("at {}: {e}", at(rest)))?;
        rest = &rest[lt..];
        if rest.is_empty() {
            break;
        }
        if let Some(r) = rest.strip_prefix("<!--") {
            rest = &r[r.find("-->").ok_or("comment not closed")? + 3..];
            continue;
        }
        if rest.starts_with("<!") {
            rest = &rest[rest.find('>').ok_or("doctype not closed")? + 1..];
            continue;
        }
        let (close, r) = match rest.strip_prefix("</") {
            Some(r) => (true, r),
            None => (false, &rest[1..]),
        };
        let name_len = r
            .find(|c: char| !c.is_ascii_alphanumeric())
            .unwrap_or(r.len());
        if name_len == 0 {
            return Err(format!("at {}: `<` that starts no tag", at(rest)));
        }
        let name = r[..name_len].to_ascii_lowercase();
        let mut r = &r[name_len..];
        // Attributes: name, or name="value" with no `"` or `<` inside.
        let self_closed = loop {
            r = r.trim_start();
            if let Some(x) = r.strip_prefix("/>") {
                r = x;
                break true;
            }
            if let Some(x) = r.strip_prefix('>') {
                r = x;
                break false;
            }
            if close {
                return Err(format!("at {}: junk in </{name}>", at(r)));
            }
            let n = r
                .find(|c: char| c.is_whitespace() || "=>/\"'<".contains(c))
                .unwrap_or(r.len());
            if n == 0 {
                return Err(format!("at {}: bad attribute in <{name}>", at(r)));
            }
            r = &r[n..];
            if let Some(x) = r.strip_prefix("=\"") {
                let end = x.find('"').ok_or("attribute value not closed")?;
                if x[..end].contains('<') {
                    return Err(format!("at {}: `<` in an attribute value", at(x)));
                }
                check_html_text(&x[..end]).map_err(|e| format!("at {}: {e}", at(x)))?;
                r = &x[end + 1..];
            }
        };
        rest = r;
        if close {
            match stack.pop() {
                Some(open) if open == name => {}
                other => return Err(format!("at {}: </{name}> closes {other:?}", at(rest))),
            }
        } else if name == "script" || name == "style" {
            let end = format!("</{name}>");
            rest = &rest[rest.find(&end).ok_or(format!("<{name}> not closed"))? + end.len()..];
        } else if !self_closed && !VOID.contains(&name.as_str()) {
            stack.push(name);
        }
    }
    if !stack.is_empty() {
        return Err(format!("left open: {stack:?}"));
    }
    Ok(())
}

fn check_html_text(t: &str) -> Result<(), String> {
    if t.contains('>') {
        return Err("a raw `>` in text".into());
    }
    let mut rest = t;
    while let Some(i) = rest.find('&') {
        rest = &rest[i + 1..];
        let end = rest.find(';').ok_or("`&` that starts no reference")?;
        let name = &rest[..end];
        let known = [
            "amp", "lt", "gt", "quot", "nbsp", "middot", "times", "rarr", "larr", "hellip",
            "mdash", "ndash",
        ]
        .contains(&name)
            || name.strip_prefix('#').is_some_and(|n| {
                n.parse::<u32>().is_ok()
                    || n.strip_prefix('x')
                        .is_some_and(|h| u32::from_str_radix(h, 16).is_ok())
            });
        if !known {
            return Err(format!("`&{name};` is no reference"));
        }
        rest = &rest[end + 1..];
    }
    Ok(())
}

/// Every Markdown table keeps its header's column count on each row (a `|` or line break from
/// the text would split or end a row), and no character XML refuses is written.
pub(crate) fn check_markdown(doc: &str) -> Result<(), String> {
    if let Some(c) = doc.chars().find(|c| !xml_char_ok(*c)) {
        return Err(format!("U+{:04X} in the summary", u32::from(c)));
    }
    let cells = |line: &str| {
        let mut n = 0;
        let mut escaped = false;
        let mut code = false;
        for c in line.chars() {
            match c {
                '\\' if !escaped => {
                    escaped = true;
                    continue;
                }
                '`' if !escaped => code = !code,
                '|' if !escaped && !code => n += 1,
                _ => {}
            }
            escaped = false;
        }
        n
    };
    let mut width = None;
    for (i, line) in doc.lines().enumerate() {
        if !line.starts_with('|') {
            width = None;
            continue;
        }
        let n = cells(line);
        match width {
            None => width = Some(n),
            Some(w) if w != n => {
                return Err(format!(
                    "line {}: {n} bars, the table has {w}: {line}",
                    i + 1
                ));
            }
            Some(_) => {}
        }
    }
    Ok(())
}

/// U+FFFF, U+FFFE and escaped controls in a scenario's description, its plan's step text and
/// its recording's AX names: the run's `junit.xml` is one expat accepts.
#[test]
fn a_run_with_noncharacters_in_every_input_writes_well_formed_junit() {
    let tmp = TempDir::new("writers-nonchar");
    let mini = repo().join("harness/tests/fixtures/mini");
    copy_tree(&mini.join("failing"), &tmp.path().join("failing"));
    copy_tree(&mini.join("recordings"), &tmp.path().join("recordings"));
    let odd = "\\uFFFF\\uFFFE\\u0001\\u001b\\u0085";
    let mut touched = 0;
    for f in walk(tmp.path()) {
        if f.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap();
        let mut out = text.clone();
        for key in [
            "\"description\": \"",
            "\"text\": \"",
            "\"name\": \"",
            "\"label\": \"",
        ] {
            out = out.replace(key, &format!("{key}{odd}"));
        }
        if out != text {
            touched += 1;
            std::fs::write(&f, out).unwrap();
        }
    }
    assert!(
        touched >= 3,
        "the scenario, plan and AX files were all edited ({touched})"
    );
    let r = run_in(
        tmp.path(),
        &[
            "run",
            "failing",
            "--reports",
            "junit,json,html,markdown",
            "-q",
            "--report-dir",
            "out",
        ],
    );
    assert!(matches!(r.code, 0..=2), "{r}");
    let junit = std::fs::read_to_string(tmp.path().join("out/junit.xml")).unwrap();
    assert!(
        junit.contains('\u{FFFD}'),
        "the noncharacters were replaced, not lost: {junit}"
    );
    check_xml(&junit).unwrap();
    check_html(&std::fs::read_to_string(tmp.path().join("out/index.html")).unwrap()).unwrap();
    if have_tool("python3", "apt-get install -y python3") {
        let py = std::process::Command::new("python3")
            .args([
                "-c",
                "import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])",
            ])
            .arg(tmp.path().join("out/junit.xml"))
            .output()
            .unwrap();
        assert!(
            py.status.success(),
            "expat refused junit.xml: {}",
            String::from_utf8_lossy(&py.stderr)
        );
    }
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}
