//! The one-fault changes: each class takes a plan's JSON and makes copies of it with one thing
//! changed, the way a stale or careless guide would differ from what was recorded.

use std::path::Path;

use serde::Serialize;
use serde_json::Value;

use crate::recording::Recording;
use crate::rng::Rng;
use crate::roles::roles_agree;
use crate::text::normalize_label;

/// A kind of one-fault change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    /// A target's label with one letter changed.
    LabelLetter,
    /// A target's label swapped for another control's in the recording.
    LabelSwapped,
    /// A target's `ax_role` of another kind.
    AxRole,
    /// A target's window named as no frame of the recording shows it.
    WindowUnseen,
    /// `expect.window` changed.
    ExpectWindow,
    /// `expect.visible` changed.
    ExpectVisible,
    /// `expect.field_contains` changed.
    ExpectFieldContains,
    /// `expect.screen` (or `screen_step_id`) pointing at another step's screen.
    ExpectScreen,
    /// The text a step types changed.
    TypedText,
    /// The key a step presses changed.
    Key,
    /// A click's button, count or drag changed.
    ClickKind,
    /// A step left out.
    StepDropped,
    /// Two neighbouring steps swapped.
    StepsSwapped,
    /// `confirm` dropped from a step that asks first.
    ConfirmDropped,
    /// An input's example typed where the input belongs.
    ExampleForInput,
    /// A browser plan's origin changed.
    Origin,
    /// A browser step's selector changed.
    Selector,
    /// A browser step's URL changed.
    Url,
}

impl Class {
    /// Every class, in report order.
    pub(crate) const ALL: [Class; 18] = [
        Class::LabelLetter,
        Class::LabelSwapped,
        Class::AxRole,
        Class::WindowUnseen,
        Class::ExpectWindow,
        Class::ExpectVisible,
        Class::ExpectFieldContains,
        Class::ExpectScreen,
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
    ];

    /// The class's name, as reports print it.
    pub fn name(self) -> String {
        crate::text::word(&self)
    }
}

/// One changed copy of a plan.
#[derive(Clone, Debug, Serialize)]
pub struct Mutant {
    /// What kind of change.
    pub class: Class,
    /// The step changed (its number), when one is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step: Option<u64>,
    /// The change, in words.
    pub change: String,
    /// Why the gate cannot tell it from the plan, when it cannot: it changes nothing the
    /// plan does. Never counted as caught.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub equivalent: Option<String>,
    /// The changed plan.
    #[serde(skip)]
    pub plan: Value,
}

impl Mutant {
    /// The class, the step and the change in one line: `` `typed-text` step 2: … ``.
    pub(crate) fn describe(&self) -> String {
        let step = self.step.map_or(String::new(), |n| format!(" step {n}:"));
        format!("`{}`{step} {}", self.class.name(), self.change)
    }
}

/// At most this many mutants of one class (sub-kind) per plan, at steps picked by the seed.
pub(crate) const PER_CLASS: usize = 3;

/// The mutants of `plan` (its JSON as the file holds it, its pictures under `base`), against
/// `rec`, picked by `seed`.
/// With `per_class` [`usize::MAX`], every site of every class.
pub fn mutants(
    plan: &Value,
    base: &Path,
    rec: &Recording,
    seed: u64,
    per_class: usize,
) -> Vec<Mutant> {
    let Some(at) = steps_pointer(plan, "") else {
        return Vec::new();
    };
    let m = Maker {
        plan,
        at,
        base,
        rec,
        seed,
        per_class,
    };
    let mut out = Vec::new();
    if crate::plan::devthink::is_protocolv2(plan) {
        m.devthink(&mut out);
    } else {
        m.foxstep(&mut out);
    }
    for mutant in &mut out {
        if mutant.equivalent.is_none() {
            mutant.equivalent = m.retry_untouched(mutant);
        }
    }
    out
}

/// The JSON pointer of the object holding the plan's `steps` (a plan, or a `get_guide`
/// response that wraps one).
fn steps_pointer(v: &Value, here: &str) -> Option<String> {
    let obj = v.as_object()?;
    if obj.get("steps").is_some_and(Value::is_array) {
        return Some(here.to_string());
    }
    obj.iter().find_map(|(k, child)| {
        steps_pointer(
            child,
            &format!("{here}/{}", k.replace('~', "~0").replace('/', "~1")),
        )
    })
}

struct Maker<'a> {
    plan: &'a Value,
    /// Where the plan object sits in `plan`.
    at: String,
    base: &'a Path,
    rec: &'a Recording,
    seed: u64,
    /// At most this many sites per class (sub-kind).
    per_class: usize,
}

/// A string with one letter changed (case kept), picked by `rng`; `None` when it has none.
pub(crate) fn one_letter(s: &str, rng: &mut Rng) -> Option<String> {
    let chars: Vec<char> = s.chars().collect();
    // Letters outside `{input}` references: those are the text the plan writes itself.
    let mut depth = 0;
    let letters: Vec<usize> = chars
        .iter()
        .enumerate()
        .filter(|(_, c)| {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                _ => {}
            }
            depth == 0 && c.is_ascii_alphabetic()
        })
        .map(|(i, _)| i)
        .collect();
    if letters.is_empty() {
        return None;
    }
    let i = letters[rng.below(letters.len() as u64) as usize];
    let c = chars[i];
    let lower = c.to_ascii_lowercase();
    let mut pick = (b'a' + rng.below(25) as u8) as char;
    if pick >= lower {
        pick = (pick as u8 + 1) as char;
    }
    let mut out = chars.clone();
    out[i] = if c.is_ascii_uppercase() {
        pick.to_ascii_uppercase()
    } else {
        pick
    };
    Some(out.into_iter().collect())
}

/// Roles a changed `ax_role` is picked from.
const ROLES: &[&str] = &[
    "AXButton",
    "AXTextField",
    "AXCheckBox",
    "AXStaticText",
    "AXMenuItem",
    "AXLink",
    "AXPopUpButton",
    "AXRadioButton",
    "AXTabButton",
];

/// Keys a changed key is picked from.
const KEYS: &[&str] = &["Return", "Tab", "Escape", "space", "Delete", "Down", "F5"];

impl Maker<'_> {
    fn steps(&self) -> &[Value] {
        self.plan
            .pointer(&format!("{}/steps", self.at))
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice)
    }

    fn rng(&self, class: Class, salt: &str) -> Rng {
        Rng::salted(self.seed, &format!("{}/{salt}", class.name()))
    }

    /// Up to `per_class` of `sites`, picked by the seed, in plan order.
    fn pick<T: Clone>(&self, class: Class, salt: &str, sites: Vec<T>) -> Vec<T> {
        let mut rng = self.rng(class, salt);
        let mut idx: Vec<usize> = (0..sites.len()).collect();
        // A partial Fisher–Yates: the first `per_class` places.
        for k in 0..idx.len().min(self.per_class) {
            let j = k + rng.below((idx.len() - k) as u64) as usize;
            idx.swap(k, j);
        }
        idx.truncate(self.per_class);
        idx.sort_unstable();
        idx.into_iter().map(|i| sites[i].clone()).collect()
    }

    fn number(&self, i: usize) -> Option<u64> {
        self.steps()[i]
            .get("number")
            .and_then(Value::as_u64)
            .or(Some(i as u64 + 1))
    }

    /// A copy of the plan with step `i` changed by `f`.
    fn with_step(&self, i: usize, f: impl FnOnce(&mut Value)) -> Value {
        let mut v = self.plan.clone();
        if let Some(step) = v.pointer_mut(&format!("{}/steps/{i}", self.at)) {
            f(step);
        }
        v
    }

    /// A mutant of `class` at step `i`, not (yet) found equivalent.
    fn mutant(&self, class: Class, i: Option<usize>, change: String, plan: Value) -> Mutant {
        Mutant {
            class,
            step: i.and_then(|i| self.number(i)),
            change,
            equivalent: None,
            plan,
        }
    }

    /// Steps whose `field` (a pointer inside the step) is a string, with it.
    fn strings(&self, field: &str) -> Vec<(usize, String)> {
        self.steps()
            .iter()
            .enumerate()
            .filter_map(|(i, s)| Some((i, s.pointer(field)?.as_str()?.to_string())))
            .filter(|(_, s)| !s.trim().is_empty())
            .collect()
    }

    /// One letter changed in the string at `field` of up to `per_class` steps.
    fn letter_class(&self, out: &mut Vec<Mutant>, class: Class, field: &str, what: &str) {
        for (i, old) in self.pick(class, field, self.strings(field)) {
            let mut rng = self.rng(class, &format!("{field}/{i}"));
            let Some(new) = one_letter(&old, &mut rng) else {
                continue;
            };
            let plan = self.with_step(i, |s| {
                if let Some(v) = s.pointer_mut(field) {
                    *v = Value::String(new.clone());
                }
            });
            let mut m = self.mutant(class, Some(i), format!("{what} “{old}” → “{new}”"), plan);
            if normalize_label(&old) == normalize_label(&new) {
                m.equivalent = Some("the changed text folds to the same label".into());
            }
            out.push(m);
        }
    }

    fn foxstep(&self, out: &mut Vec<Mutant>) {
        self.letter_class(out, Class::LabelLetter, "/target/label", "label");
        self.label_swapped(out);
        self.ax_role(out);
        self.window_unseen(out);
        self.letter_class(
            out,
            Class::ExpectWindow,
            "/expect/window",
            "expected window",
        );
        let visible = if self.strings("/expect/visible").is_empty() {
            "/expect/visible/label"
        } else {
            "/expect/visible"
        };
        self.letter_class(out, Class::ExpectVisible, visible, "expected visible");
        self.field_contains(out);
        self.expect_screen(out);
        self.typed_text(out);
        self.key(out);
        self.click_kind(out);
        self.step_dropped(out);
        self.steps_swapped(out);
        self.confirm_dropped(out);
        self.example_for_input(out);
    }

    fn devthink(&self, out: &mut Vec<Mutant>) {
        if let Some(origin) = self.plan.get("origin").and_then(Value::as_str) {
            // Another port is another origin, on the same host.
            let new = match origin.rsplit_once(':') {
                Some((head, port))
                    if !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()) =>
                {
                    let p: u16 = port.parse().unwrap_or(8000);
                    format!("{head}:{}", if p == u16::MAX { 8081 } else { p + 1 })
                }
                _ => format!("{origin}:8443"),
            };
            let mut plan = self.plan.clone();
            plan["origin"] = Value::String(new.clone());
            out.push(self.mutant(
                Class::Origin,
                None,
                format!("origin “{origin}” → “{new}”"),
                plan,
            ));
        }
        self.letter_class(out, Class::Selector, "/target", "selector");
        let navigate: Vec<(usize, String)> = self
            .strings("/value")
            .into_iter()
            .filter(|(i, _)| {
                self.steps()[*i].get("kind").and_then(Value::as_str) == Some("navigate")
            })
            .collect();
        for (i, old) in self.pick(Class::Url, "navigate", navigate) {
            let mut rng = self.rng(Class::Url, &i.to_string());
            let Some(new) = one_letter(&old, &mut rng) else {
                continue;
            };
            let plan = self.with_step(i, |s| s["value"] = Value::String(new.clone()));
            out.push(self.mutant(Class::Url, Some(i), format!("URL “{old}” → “{new}”"), plan));
        }
        let typed: Vec<(usize, String)> = self
            .strings("/value")
            .into_iter()
            .filter(|(i, _)| self.steps()[*i].get("kind").and_then(Value::as_str) == Some("type"))
            .filter(|(i, _)| {
                self.steps()[*i].get("risk").and_then(Value::as_str) != Some("sensitive")
            })
            .collect();
        for (i, old) in self.pick(Class::TypedText, "type", typed) {
            let mut rng = self.rng(Class::TypedText, &i.to_string());
            let Some(new) = one_letter(&old, &mut rng) else {
                continue;
            };
            let plan = self.with_step(i, |s| s["value"] = Value::String(new.clone()));
            out.push(self.mutant(
                Class::TypedText,
                Some(i),
                format!("typed “{old}” → “{new}”"),
                plan,
            ));
        }
        self.step_dropped(out);
        self.steps_swapped(out);
    }

    /// For a retry (a step whose `idempotencykey` an earlier step already used), the follower
    /// never acts: what it names, or whether it is there at all, changes nothing while it
    /// still comes after the step whose key it repeats.
    fn retry_untouched(&self, m: &Mutant) -> Option<String> {
        let steps = self.steps();
        let key = |i: usize| steps.get(i)?.get("idempotencykey")?.as_str();
        let original = |i: usize| {
            let k = key(i)?;
            (0..i).find(|&j| key(j) == Some(k))
        };
        let at = steps
            .iter()
            .position(|s| s.get("number").and_then(Value::as_u64) == m.step)
            .or_else(|| m.step.and_then(|n| usize::try_from(n).ok()?.checked_sub(1)))?;
        let why = "the step is a retry of a key that already ran: it is never acted on".to_string();
        match m.class {
            Class::Selector | Class::TypedText | Class::Url | Class::StepDropped => {
                original(at).map(|_| why)
            }
            // Swapped with its neighbour, a retry still comes after its first run unless the
            // neighbour is that first run.
            Class::StepsSwapped => match (original(at), original(at + 1)) {
                (Some(_), _) => Some(why),
                (None, Some(j)) if j != at => Some(why),
                _ => None,
            },
            _ => None,
        }
    }

    /// Every control name the recording shows, folded and unique, with its role.
    fn names(&self) -> Vec<(String, String)> {
        let mut names = Vec::new();
        for f in &self.rec.frames {
            f.ax.walk(&mut |e| {
                if let Some(n) = e.own_name().filter(|n| !n.trim().is_empty()) {
                    names.push((n.to_string(), e.ax_role.clone()));
                }
            });
        }
        names.sort();
        names.dedup_by(|a, b| normalize_label(&a.0) == normalize_label(&b.0));
        names
    }

    fn label_swapped(&self, out: &mut Vec<Mutant>) {
        let names = self.names();
        let class = Class::LabelSwapped;
        for (i, old) in self.pick(class, "label", self.strings("/target/label")) {
            let role = self.steps()[i]
                .pointer("/target/ax_role")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let other = |same_role: bool| -> Vec<&String> {
                names
                    .iter()
                    .filter(|(n, r)| {
                        normalize_label(n) != normalize_label(&old)
                            && (!same_role || role.is_empty() || roles_agree(role, r))
                    })
                    .map(|(n, _)| n)
                    .collect()
            };
            let mut pool = other(true);
            if pool.is_empty() {
                pool = other(false);
            }
            if pool.is_empty() {
                continue;
            }
            let mut rng = self.rng(class, &i.to_string());
            let new = pool[rng.below(pool.len() as u64) as usize].clone();
            let plan = self.with_step(i, |s| s["target"]["label"] = Value::String(new.clone()));
            out.push(self.mutant(class, Some(i), format!("label “{old}” → “{new}”"), plan));
        }
    }

    fn ax_role(&self, out: &mut Vec<Mutant>) {
        let class = Class::AxRole;
        for (i, old) in self.pick(class, "role", self.strings("/target/ax_role")) {
            let pool: Vec<&str> = ROLES
                .iter()
                .copied()
                .filter(|r| !roles_agree(r, &old) && !roles_agree(&old, r))
                .collect();
            let mut rng = self.rng(class, &i.to_string());
            let new = pool[rng.below(pool.len() as u64) as usize];
            let plan = self.with_step(i, |s| s["target"]["ax_role"] = Value::String(new.into()));
            out.push(self.mutant(class, Some(i), format!("ax_role {old} → {new}"), plan));
        }
    }

    fn window_unseen(&self, out: &mut Vec<Mutant>) {
        let class = Class::WindowUnseen;
        let titles: Vec<String> = self
            .rec
            .frames
            .iter()
            .flat_map(|f| f.ax.apps.iter().flat_map(|a| a.windows.iter()))
            .map(|w| normalize_label(&w.title))
            .collect();
        for (i, old) in self.pick(class, "window", self.strings("/target/window")) {
            let mut rng = self.rng(class, &i.to_string());
            let Some(new) = one_letter(&old, &mut rng) else {
                continue;
            };
            let plan = self.with_step(i, |s| s["target"]["window"] = Value::String(new.clone()));
            let mut m = self.mutant(class, Some(i), format!("window “{old}” → “{new}”"), plan);
            if titles.contains(&normalize_label(&new)) {
                m.equivalent = Some("the recording shows a window by the new name".into());
            }
            out.push(m);
        }
    }

    fn field_contains(&self, out: &mut Vec<Mutant>) {
        let class = Class::ExpectFieldContains;
        for (i, old) in self.pick(class, "field", self.strings("/expect/field_contains")) {
            let mut rng = self.rng(class, &i.to_string());
            let new = one_letter(&old, &mut rng).unwrap_or_else(|| format!("{old}x"));
            let plan = self.with_step(i, |s| {
                s["expect"]["field_contains"] = Value::String(new.clone())
            });
            out.push(self.mutant(
                class,
                Some(i),
                format!("expected field text “{old}” → “{new}”"),
                plan,
            ));
        }
    }

    /// `screen_step_id` pointed at another step, or `screen` at another picture of the plan.
    fn expect_screen(&self, out: &mut Vec<Mutant>) {
        let class = Class::ExpectScreen;
        let ids: Vec<String> = self
            .steps()
            .iter()
            .filter_map(|s| s.get("step_id").and_then(Value::as_str).map(str::to_string))
            .collect();
        let mut sites = Vec::new();
        for (i, old) in self.strings("/expect/screen_step_id") {
            sites.push((i, "screen_step_id", old));
        }
        for (i, old) in self.strings("/expect/screen") {
            sites.push((i, "screen", old));
        }
        for (i, field, old) in self.pick(class, "screen", sites) {
            let pool = if field == "screen" {
                self.pictures_beside(&old)
            } else {
                ids.clone()
            };
            let others: Vec<&String> = pool.iter().filter(|p| **p != old).collect();
            if others.is_empty() {
                continue;
            }
            let mut rng = self.rng(class, &i.to_string());
            let new = others[rng.below(others.len() as u64) as usize].clone();
            let plan = self.with_step(i, |s| s["expect"][field] = Value::String(new.clone()));
            let mut m = self.mutant(
                class,
                Some(i),
                format!("expect.{field} “{old}” → “{new}”"),
                plan,
            );
            if field == "screen_step_id" && self.steps()[i].pointer("/expect/screen").is_some() {
                m.equivalent = Some(
                    "the step's `screen` picture is what is compared; `screen_step_id` is not read"
                        .into(),
                );
            }
            out.push(m);
        }
    }

    /// The PNG pictures in the folder of the plan picture `rel`, as the plan names them.
    fn pictures_beside(&self, rel: &str) -> Vec<String> {
        let dir = Path::new(rel).parent().unwrap_or(Path::new(""));
        let mut found: Vec<String> = std::fs::read_dir(self.base.join(dir))
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                name.ends_with(".png")
                    .then(|| dir.join(&name).to_string_lossy().replace('\\', "/"))
            })
            .collect();
        found.sort();
        found
    }

    /// The ids of the plan's sensitive inputs.
    fn sensitive(&self) -> Vec<String> {
        self.plan
            .pointer(&format!("{}/inputs", self.at))
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .filter(|i| i.get("sensitive").and_then(Value::as_bool) == Some(true))
            .filter_map(|i| i.get("id").and_then(Value::as_str).map(str::to_string))
            .collect()
    }

    fn typed_text(&self, out: &mut Vec<Mutant>) {
        let class = Class::TypedText;
        let secret = self.sensitive();
        let mut sites: Vec<(usize, &str, String)> = Vec::new();
        for (i, v) in self.strings("/value") {
            sites.push((i, "value", v));
        }
        for (i, v) in self.strings("/template") {
            // A secret is never compared with the recording (nor kept in it).
            if !secret.iter().any(|id| v.contains(&format!("{{{id}}}"))) {
                sites.push((i, "template", v));
            }
        }
        for (i, field, old) in self.pick(class, "typed", sites) {
            let mut rng = self.rng(class, &i.to_string());
            let new = one_letter(&old, &mut rng).unwrap_or_else(|| format!("{old}x"));
            let plan = self.with_step(i, |s| s[field] = Value::String(new.clone()));
            out.push(self.mutant(class, Some(i), format!("{field} “{old}” → “{new}”"), plan));
        }
    }

    fn key(&self, out: &mut Vec<Mutant>) {
        let class = Class::Key;
        for (i, old) in self.pick(class, "keys", self.strings("/keys")) {
            let (mods, last) = old
                .rsplit_once('+')
                .map_or(("", old.as_str()), |(m, k)| (m, k));
            let mut rng = self.rng(class, &i.to_string());
            let key = if last.chars().count() == 1 {
                one_letter(last, &mut rng).unwrap_or_else(|| "a".into())
            } else {
                let pool: Vec<&str> = KEYS
                    .iter()
                    .copied()
                    .filter(|k| !k.eq_ignore_ascii_case(last))
                    .collect();
                pool[rng.below(pool.len() as u64) as usize].to_string()
            };
            let new = if mods.is_empty() {
                key
            } else {
                format!("{mods}+{key}")
            };
            let plan = self.with_step(i, |s| s["keys"] = Value::String(new.clone()));
            out.push(self.mutant(class, Some(i), format!("keys “{old}” → “{new}”"), plan));
        }
    }

    fn click_kind(&self, out: &mut Vec<Mutant>) {
        let class = Class::ClickKind;
        let clicks: Vec<usize> = self
            .steps()
            .iter()
            .enumerate()
            .filter(|(_, s)| s.get("action").and_then(Value::as_str) == Some("click"))
            .map(|(i, _)| i)
            .collect();
        for part in ["button", "count", "drag"] {
            for i in self.pick(class, part, clicks.clone()) {
                let click = self.steps()[i].get("click").cloned().unwrap_or_default();
                let (old, new) = match part {
                    "button" => {
                        let b = click
                            .get("button")
                            .and_then(Value::as_str)
                            .unwrap_or("left");
                        let n = if b == "right" { "left" } else { "right" };
                        (Value::from(b), Value::from(n))
                    }
                    "count" => {
                        let c = click.get("count").and_then(Value::as_u64).unwrap_or(1);
                        (Value::from(c), Value::from(if c == 2 { 1 } else { 2 }))
                    }
                    _ => {
                        let d = click.get("drag").and_then(Value::as_bool).unwrap_or(false);
                        (Value::from(d), Value::from(!d))
                    }
                };
                let plan = self.with_step(i, |s| {
                    let c = s
                        .as_object_mut()
                        .map(|o| o.entry("click").or_insert_with(|| serde_json::json!({})));
                    if let Some(Value::Object(c)) = c {
                        c.entry("button").or_insert_with(|| "left".into());
                        c.entry("count").or_insert_with(|| 1.into());
                        c.entry("drag").or_insert_with(|| false.into());
                        c.insert(part.into(), new.clone());
                    }
                });
                out.push(self.mutant(class, Some(i), format!("click {part} {old} → {new}"), plan));
            }
        }
    }

    /// A copy of the plan with its steps in `order` (indexes into the old steps), numbered
    /// afresh so the numbers still run 1, 2, 3 and the inputs' `used_by` follow their steps.
    fn reordered(&self, order: &[usize]) -> Value {
        let mut v = self.plan.clone();
        let old = self.steps();
        let old_number = |i: usize| self.number(i).unwrap_or(i as u64 + 1);
        let new_of = |n: u64| {
            order
                .iter()
                .position(|&i| old_number(i) == n)
                .map(|k| k as u64 + 1)
        };
        let devthink = crate::plan::devthink::is_protocolv2(self.plan);
        let steps: Vec<Value> = order
            .iter()
            .enumerate()
            .map(|(k, &i)| {
                let mut s = old[i].clone();
                if !devthink {
                    if s.get("number").is_some() {
                        s["number"] = Value::from(k as u64 + 1);
                    }
                    if s.get("label")
                        .is_some_and(|l| l.as_str() == Some(&old_number(i).to_string()))
                    {
                        s["label"] = Value::String((k + 1).to_string());
                    }
                }
                s
            })
            .collect();
        if let Some(slot) = v.pointer_mut(&format!("{}/steps", self.at)) {
            *slot = Value::Array(steps);
        }
        if let Some(Value::Array(inputs)) = v.pointer_mut(&format!("{}/inputs", self.at)) {
            for input in inputs {
                if let Some(Value::Array(used)) = input.get_mut("used_by") {
                    *used = used
                        .iter()
                        .filter_map(|n| n.as_u64().and_then(new_of).map(Value::from))
                        .collect();
                    let mut nums: Vec<u64> = used.iter().filter_map(Value::as_u64).collect();
                    nums.sort_unstable();
                    *used = nums.into_iter().map(Value::from).collect();
                }
            }
        }
        v
    }

    fn step_dropped(&self, out: &mut Vec<Mutant>) {
        let class = Class::StepDropped;
        let n = self.steps().len();
        if n < 2 {
            return;
        }
        for i in self.pick(class, "drop", (0..n).collect()) {
            let order: Vec<usize> = (0..n).filter(|&k| k != i).collect();
            let what = self.steps()[i]
                .get("text")
                .or_else(|| self.steps()[i].get("summary"))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            let mut m = self.mutant(
                class,
                Some(i),
                format!("step left out (“{what}”)"),
                self.reordered(&order),
            );
            m.equivalent = self.only_asks_for_inputs_asked_anyway(i);
            out.push(m);
        }
    }

    /// The inputs a words-only step (`ask` or `do`, with no `confirm` or `stop_if` of its own)
    /// speaks of, as `(id, always asked)`; `None` for any other step.
    fn words_only_inputs(&self, i: usize) -> Option<Vec<(String, bool)>> {
        let s = &self.steps()[i];
        let action = s.get("action").and_then(Value::as_str)?;
        let plain = s.get("confirm").and_then(Value::as_bool) != Some(true)
            && s.get("stop_if").is_none()
            && s.get("expect").is_none();
        if !matches!(action, "ask" | "do") || !plain {
            return None;
        }
        let words = s.get("text").and_then(Value::as_str).unwrap_or_default();
        let inputs = self
            .plan
            .pointer(&format!("{}/inputs", self.at))
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice);
        Some(
            inputs
                .iter()
                .filter_map(|inp| {
                    let id = inp.get("id")?.as_str()?;
                    let name = inp.get("name").and_then(Value::as_str).unwrap_or(id);
                    let always = inp.get("changes").and_then(Value::as_str) == Some("each-time")
                        || inp.get("sensitive").and_then(Value::as_bool) == Some(true);
                    crate::text::speaks_of(words, id, name).then(|| (id.to_string(), always))
                })
                .collect(),
        )
    }

    /// Why leaving out step `i` changes nothing a replay can show, when it is a words-only
    /// step the recording shows nothing for: an `ask` or `do` about inputs a follower asks
    /// the person for before their first use anyway (they change each time, or are
    /// sensitive), or a `do` about no input at all, which no other step depends on.
    fn only_asks_for_inputs_asked_anyway(&self, i: usize) -> Option<String> {
        let step = &self.steps()[i];
        let inputs = self.words_only_inputs(i)?;
        let id = step.get("step_id").and_then(Value::as_str);
        let recorded = self
            .rec
            .file
            .transitions
            .iter()
            .any(|t| t.step_id.is_some() && t.step_id.as_deref() == id);
        if recorded {
            return None;
        }
        let does = step.get("action").and_then(Value::as_str) == Some("do");
        if inputs.is_empty() {
            return does.then(|| {
                "a words-only `do` step about no input, with nothing recorded for it: no replay or other step can tell it is gone".into()
            });
        }
        if inputs.iter().any(|(_, always)| !always) {
            return None;
        }
        let ids: Vec<String> = inputs.iter().map(|(id, _)| format!("`{id}`")).collect();
        Some(format!(
            "the step only asks for (or readies) {}, which a follower asks the person for before its first use anyway",
            ids.join(", ")
        ))
    }

    /// Why swapping steps `i` and `i + 1` changes nothing, when one is a words-only step about
    /// inputs and the other an act that uses none of them: the words still come before every
    /// step that uses those inputs, and a words-only step leaves nothing in a recording.
    fn words_moved_past_unrelated_act(&self, i: usize) -> Option<String> {
        let (words, act) = match (self.words_only_inputs(i), self.words_only_inputs(i + 1)) {
            (Some(w), None) => (w, i + 1),
            (None, Some(w)) => (w, i),
            _ => return None,
        };
        if words.is_empty() {
            return None;
        }
        let reads: Vec<&str> = self.steps()[act]
            .get("reads")
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .filter_map(Value::as_str)
            .collect();
        if words.iter().any(|(id, _)| reads.contains(&id.as_str())) {
            return None;
        }
        let ids: Vec<String> = words.iter().map(|(id, _)| format!("`{id}`")).collect();
        Some(format!(
            "a words-only step about {} moves past step {}, which does not use it; it still comes before the steps that do",
            ids.join(", "),
            self.number(act).unwrap_or(act as u64 + 1)
        ))
    }

    fn steps_swapped(&self, out: &mut Vec<Mutant>) {
        let class = Class::StepsSwapped;
        let n = self.steps().len();
        if n < 2 {
            return;
        }
        for i in self.pick(class, "swap", (0..n - 1).collect()) {
            let mut order: Vec<usize> = (0..n).collect();
            order.swap(i, i + 1);
            let (a, b) = (self.number(i).unwrap_or(0), self.number(i + 1).unwrap_or(0));
            let change = format!("steps {a} and {b} swapped");
            let mut m = self.mutant(class, Some(i), change, self.reordered(&order));
            if same_but_place(&self.steps()[i], &self.steps()[i + 1]) {
                m.equivalent = Some("the two steps do the same thing".into());
            } else {
                m.equivalent = self.words_moved_past_unrelated_act(i);
            }
            out.push(m);
        }
    }

    fn confirm_dropped(&self, out: &mut Vec<Mutant>) {
        let class = Class::ConfirmDropped;
        let sites: Vec<usize> = self
            .steps()
            .iter()
            .enumerate()
            .filter(|(_, s)| s.get("confirm").and_then(Value::as_bool) == Some(true))
            .map(|(i, _)| i)
            .collect();
        for i in self.pick(class, "confirm", sites) {
            let plan = self.with_step(i, |s| {
                s["confirm"] = Value::Bool(false);
                if let Some(o) = s.as_object_mut() {
                    o.remove("confirm_reason");
                }
            });
            out.push(self.mutant(class, Some(i), "confirm dropped".into(), plan));
        }
    }

    fn example_for_input(&self, out: &mut Vec<Mutant>) {
        let class = Class::ExampleForInput;
        let examples: Vec<(String, String)> = self
            .plan
            .pointer(&format!("{}/inputs", self.at))
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .filter_map(|i| {
                Some((
                    i.get("id")?.as_str()?.to_string(),
                    i.get("example")?.as_str()?.to_string(),
                ))
            })
            .collect();
        let sites: Vec<(usize, String)> = self
            .strings("/template")
            .into_iter()
            .filter(|(_, t)| {
                examples
                    .iter()
                    .any(|(id, _)| t.contains(&format!("{{{id}}}")))
            })
            .collect();
        for (i, template) in self.pick(class, "example", sites) {
            let mut text = template.clone();
            for (id, example) in &examples {
                text = text.replace(&format!("{{{id}}}"), example);
            }
            let mut plan = self.with_step(i, |s| {
                if let Some(o) = s.as_object_mut() {
                    o.remove("template");
                    o.remove("reads");
                    o.insert("value".into(), Value::String(text.clone()));
                }
            });
            // The plan stays consistent: the inputs no longer list the step as a reader.
            let number = self.number(i).unwrap_or(i as u64 + 1);
            if let Some(Value::Array(inputs)) = plan.pointer_mut(&format!("{}/inputs", self.at)) {
                for input in inputs {
                    if let Some(Value::Array(used)) = input.get_mut("used_by") {
                        used.retain(|n| n.as_u64() != Some(number));
                    }
                }
            }
            out.push(self.mutant(
                class,
                Some(i),
                format!("template “{template}” → value “{text}”"),
                plan,
            ));
        }
    }
}

/// Whether two steps are the same but for their id, number and label.
fn same_but_place(a: &Value, b: &Value) -> bool {
    let strip = |v: &Value| {
        let mut v = v.clone();
        if let Some(o) = v.as_object_mut() {
            for k in ["step_id", "id", "number", "label"] {
                o.remove(k);
            }
        }
        v
    };
    strip(a) == strip(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_letter_changes_exactly_one_letter_outside_references() {
        for seed in 0..50 {
            let mut rng = Rng::new(seed);
            let old = "Hi {name}, ok";
            let new = one_letter(old, &mut rng).unwrap();
            let diff: Vec<(char, char)> = old
                .chars()
                .zip(new.chars())
                .filter(|(a, b)| a != b)
                .collect();
            assert_eq!(diff.len(), 1, "{new}");
            let (a, b) = diff[0];
            assert_ne!(a.to_ascii_lowercase(), b.to_ascii_lowercase(), "{new}");
            assert_eq!(a.is_ascii_uppercase(), b.is_ascii_uppercase(), "{new}");
            assert!(new.contains("{name}"), "{new}");
        }
        assert_eq!(one_letter("{x} 12", &mut Rng::new(1)), None);
    }
}
