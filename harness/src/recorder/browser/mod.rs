//! `stepreplay record-browser`: a real browser recording of a devthink plan.
//!
//! Headless Chromium (`cdp`) loads the plan's pages from a local folder served at the plan's
//! origin and follows the plan step by step, finding each target with the browser's own
//! selector engine (`DOM.querySelectorAll`) and acting through the DevTools input events. Before
//! the first step and after each one it keeps a frame (`capture`): the screenshot, the DOM
//! with layout boxes, and the accessibility tree. The recording is a `stepreplay-recording/1`
//! folder like any other, whose frames also name their DOM file.
//!
//! A plan to record from must be followable: every target matches exactly one element, and a
//! step with an `idempotencykey` already used is not acted again (as the app would not).
//! What a sensitive step types never reaches the files: it is taken out of the DOM and AX
//! files, and the recorded operation leaves the text out.

mod asks;
mod capture;
mod cdp;

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::errors::Error;
use crate::json::to_canonical_value;
use crate::output::{create_dir, write_file};
use crate::plan::devthink::kinds::Kind;
use crate::plan::devthink::origin::Origin;
use crate::plan::devthink::{DevPlan, DevStep, Risk, parse_protocolv2};
use crate::plan::read_plan_source;
use crate::recording::dom::DomSnapshot;
use crate::recording::format::{
    Exchange, FrameRef, Operation, RecordingFile, Screen, SourceInfo, SourceKind, Transition,
};
use crate::secret::REDACTED;
use cdp::{Browser, PageServer};

/// What to record and where.
#[derive(Clone, Debug)]
pub(crate) struct BrowserOptions {
    /// The devthink plan to follow.
    pub plan: PathBuf,
    /// The folder served at the plan's origin.
    pub pages: PathBuf,
    /// The recording folder.
    pub out: PathBuf,
    /// The viewport in CSS pixels.
    pub viewport: (u32, u32),
    /// Device pixels per CSS pixel.
    pub scale: u32,
    /// Replace a recording already at `out`.
    pub force: bool,
}

/// What [`record_browser`] wrote.
#[derive(Debug)]
pub(crate) struct BrowserOutput {
    /// Frames kept.
    pub frames: usize,
    /// Steps acted.
    pub steps: usize,
    /// Steps not acted again (a repeated idempotency key).
    pub deduplicated: Vec<String>,
    /// The browser's version.
    pub browser: String,
}

fn step_error(step: &DevStep, msg: impl std::fmt::Display) -> Error {
    Error::Desktop(format!("step `{}`: {msg}", step.id))
}

/// A frame kept, with what finding its elements needs.
struct Kept {
    id: String,
    dom: DomSnapshot,
    ax: crate::recording::AxSnapshot,
    by_backend: HashMap<i64, usize>,
}

struct Recorder<'p> {
    browser: Browser,
    opts: &'p BrowserOptions,
    plan: &'p DevPlan,
    frames: Vec<FrameRef>,
    transitions: Vec<Transition>,
    /// What steps asked outside the page, answered.
    exchanges: Vec<Exchange>,
    /// The last answer each step received, for later steps' `correlation`.
    received: HashMap<String, Value>,
    /// What must never be written: the values of sensitive steps.
    secrets: Vec<String>,
    /// The fields sensitive steps typed into, by path: painted over in every frame after in
    /// which they may show it (see [`holds_typing`]).
    masked: BTreeSet<String>,
    /// The plan's target selectors: every element they name is kept in each frame's AX file.
    selectors: Vec<scraper::Selector>,
}

/// Records `opts.plan` in headless Chromium into `opts.out`.
pub(crate) fn record_browser(opts: &BrowserOptions) -> Result<BrowserOutput, Error> {
    let program = super::session::need_program(
        &["chromium", "chromium-browser", "google-chrome"],
        "chromium",
    )?;
    let src = read_plan_source(&opts.plan)?;
    let plan = parse_protocolv2(&src)?;
    if !opts.pages.is_dir() {
        return Err(crate::errors::InputError::new(
            &opts.pages,
            crate::errors::Reason::MissingFile,
            "the pages folder does not exist",
        )
        .into());
    }
    if opts.out.join("recording.json").exists() {
        if !opts.force {
            let name = opts
                .out
                .file_name()
                .map(|n| n.to_string_lossy().into_owned());
            return Err(super::record::already_recorded(
                &opts.out,
                name.as_deref().unwrap_or_default(),
            ));
        }
        // The frames of the recording replaced, so none of them is left beside the new ones.
        let _ = std::fs::remove_dir_all(opts.out.join("frames"));
    }
    create_dir(&opts.out)?;
    create_dir(&opts.out.join("frames"))?;
    let scratch = opts.out.join(".stepreplay-tmp-browser");
    create_dir(&scratch)?;
    let result = (|| {
        let browser = Browser::start(
            &program,
            &scratch,
            opts.viewport,
            opts.scale,
            PageServer {
                origin: plan.origin.clone(),
                root: opts.pages.clone(),
            },
        )?;
        let mut r = Recorder {
            browser,
            opts,
            plan: &plan,
            frames: Vec::new(),
            transitions: Vec::new(),
            exchanges: Vec::new(),
            received: HashMap::new(),
            secrets: crate::plan::devthink::sensitive_values(&plan)
                .into_iter()
                .map(str::to_string)
                .collect(),
            masked: BTreeSet::new(),
            selectors: plan
                .steps
                .iter()
                .filter_map(|s| s.target.as_deref())
                .filter_map(|t| crate::resolve::selector::parse(t).ok())
                .collect(),
        };
        r.run()
    })();
    let _ = std::fs::remove_dir_all(&scratch);
    result
}

impl Recorder<'_> {
    fn run(&mut self) -> Result<BrowserOutput, Error> {
        let version = self.browser.call("Browser.getVersion", json!({}))?;
        let browser = version["product"]
            .as_str()
            .unwrap_or("Chromium")
            .to_string();
        let mut now = self.keep()?;
        let mut keys = BTreeSet::new();
        let mut deduplicated = Vec::new();
        let mut acted = 0;
        for step in &self.plan.steps {
            if let Some(k) = &step.idempotencykey
                && !keys.insert(k.clone())
            {
                deduplicated.push(step.id.clone());
                continue;
            }
            let (element, op) = self.act(step, &now)?;
            self.settle()?;
            asks::ask_all(
                &mut self.browser,
                step,
                &self.secrets,
                &mut self.received,
                &mut self.exchanges,
            )?;
            let next = self.keep()?;
            self.transitions.push(Transition {
                from: now.id.clone(),
                action: recorded_action(&step.kind).into(),
                element,
                equivalent: Vec::new(),
                to: next.id.clone(),
                step_id: Some(step.id.clone()),
                operation: op,
            });
            now = next;
            acted += 1;
        }
        let (w, h) = self.opts.viewport;
        let exchanges = std::mem::take(&mut self.exchanges);
        let file = RecordingFile {
            schema: if exchanges.is_empty() {
                crate::recording::format::RECORDING_SCHEMA
            } else {
                crate::recording::format::RECORDING_SCHEMA_2
            }
            .into(),
            name: self
                .opts
                .out
                .file_name()
                .map_or("recording".into(), |n| n.to_string_lossy().into_owned()),
            screen: Screen {
                width: w * self.opts.scale,
                height: h * self.opts.scale,
                scale: self.opts.scale,
            },
            source: SourceInfo {
                kind: SourceKind::Live,
                detail: Some(format!(
                    "{browser}, headless, devthink plan `{}`",
                    self.plan.id
                )),
                notes: Vec::new(),
            },
            frames: std::mem::take(&mut self.frames),
            transitions: std::mem::take(&mut self.transitions),
            exchanges,
        };
        let frames = file.frames.len();
        write_file(
            &self.opts.out.join("recording.json"),
            to_canonical_value(&file),
        )?;
        Ok(BrowserOutput {
            frames,
            steps: acted,
            deduplicated,
            browser,
        })
    }

    /// Takes the frame as it is now and writes its three files.
    fn keep(&mut self) -> Result<Kept, Error> {
        let n = self.frames.len();
        let id = format!("frame_{n:03}");
        let snap = self.browser.call(
            "DOMSnapshot.captureSnapshot",
            json!({"computedStyles": [], "includeDOMRects": false}),
        )?;
        let (mut dom, by_backend) = capture::dom_of(&snap, self.opts.scale);
        let tree = self
            .browser
            .call("Accessibility.getFullAXTree", json!({}))?;
        let (w, h) = self.opts.viewport;
        let screen = (w * self.opts.scale, h * self.opts.scale);
        let targeted = self
            .selectors
            .iter()
            .flat_map(|sel| crate::resolve::selector::matches(&dom, sel))
            .collect();
        let mut ax = capture::ax_of(&tree, &dom, &by_backend, screen, &targeted);
        let held = self.scrub(&mut dom, &mut ax);
        let shot = self.browser.screenshot()?;
        let png = self.paint_over_secrets(shot, &dom, &held)?;
        let rel = |ext: &str| format!("frames/{id}.{ext}");
        write_file(&self.opts.out.join(rel("png")), png)?;
        write_file(&self.opts.out.join(rel("ax.json")), to_canonical_value(&ax))?;
        write_file(
            &self.opts.out.join(rel("dom.json")),
            to_canonical_value(&dom),
        )?;
        self.frames.push(FrameRef {
            id: id.clone(),
            screenshot: rel("png"),
            ax: rel("ax.json"),
            dom: Some(rel("dom.json")),
            step_id: None,
        });
        Ok(Kept {
            id,
            dom,
            ax,
            by_backend,
        })
    }

    /// Takes every sensitive value out of what is written; returns the DOM nodes that held one.
    fn scrub(&self, dom: &mut DomSnapshot, ax: &mut crate::recording::AxSnapshot) -> Vec<usize> {
        let clean = |s: &mut String| {
            let mut held = false;
            for secret in &self.secrets {
                if s.contains(secret.as_str()) {
                    *s = s.replace(secret.as_str(), REDACTED);
                    held = true;
                }
            }
            held
        };
        let mut held = Vec::new();
        for (i, n) in dom.nodes.iter_mut().enumerate() {
            let in_text = n.text.as_mut().is_some_and(clean);
            let in_attrs = n.attrs.values_mut().fold(false, |any, v| clean(v) | any);
            if in_text || in_attrs {
                held.push(i);
            }
        }
        fn walk(e: &mut crate::recording::Element, clean: &dyn Fn(&mut String) -> bool) {
            for s in [&mut e.title, &mut e.value, &mut e.description]
                .into_iter()
                .flatten()
            {
                clean(s);
            }
            e.children.iter_mut().for_each(|c| walk(c, clean));
        }
        for w in ax.apps.iter_mut().flat_map(|a| &mut a.windows) {
            w.elements.iter_mut().for_each(|e| walk(e, &clean));
        }
        held
    }

    /// Paints over the box of every field a sensitive step typed into, while it may show what
    /// was typed, and of every node that holds a secret (a field's value, a page that echoes
    /// it), as Playwright's `mask` does: the words are out of the DOM and AX files, and this
    /// keeps them out of the pixels. A field emptied since (a submit cleared it) is left as it
    /// looks, so a diffshot around the step still sees the change the step made.
    fn paint_over_secrets(
        &self,
        png: Vec<u8>,
        dom: &DomSnapshot,
        held: &[usize],
    ) -> Result<Vec<u8>, Error> {
        let boxes: Vec<_> = dom
            .nodes
            .iter()
            .enumerate()
            .filter(|(i, n)| held.contains(i) || (self.masked.contains(&n.id) && holds_typing(n)))
            .filter_map(|(_, n)| n.rect)
            .filter(|r| r.width > 0 && r.height > 0)
            .collect();
        if boxes.is_empty() {
            return Ok(png);
        }
        let unreadable =
            |e: image::ImageError| Error::Desktop(format!("Chromium's screenshot: {e}"));
        let mut img = image::load_from_memory_with_format(&png, image::ImageFormat::Png)
            .map_err(unreadable)?
            .to_rgba8();
        crate::paint::mask::cover(&mut img, &boxes);
        crate::diff::files::encode_png(&img).map_err(unreadable)
    }

    /// The one live element a step's selector names: its node id for the DevTools calls, and
    /// its path and box in the frame just kept.
    fn element(&mut self, step: &DevStep, now: &Kept) -> Result<(i64, String, (f64, f64)), Error> {
        let Some(selector) = step.target.as_deref() else {
            return Err(step_error(
                step,
                "this kind needs a `target` selector to record",
            ));
        };
        let doc = self.browser.call("DOM.getDocument", json!({"depth": 0}))?;
        let root = doc["root"]["nodeId"].clone();
        let found = self.browser.call(
            "DOM.querySelectorAll",
            json!({"nodeId": root, "selector": selector}),
        )?;
        let ids: Vec<i64> = found["nodeIds"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_i64).collect())
            .unwrap_or_default();
        let [node] = ids[..] else {
            return Err(step_error(
                step,
                format!(
                    "`{selector}` matches {} elements in the live page; a recording needs exactly one",
                    ids.len()
                ),
            ));
        };
        let described = self
            .browser
            .call("DOM.describeNode", json!({"nodeId": node}))?;
        let backend = described["node"]["backendNodeId"].as_i64().unwrap_or(-1);
        let Some(&i) = now.by_backend.get(&backend) else {
            return Err(step_error(
                step,
                format!("`{selector}` is not in the page's snapshot"),
            ));
        };
        let n = &now.dom.nodes[i];
        let Some(rect) = n.rect.filter(|r| r.area() > 0) else {
            return Err(step_error(
                step,
                format!("`{selector}` is not shown (it has no box)"),
            ));
        };
        let (w, h) = self.opts.viewport;
        let s = self.opts.scale;
        if !rect.shows_on((w * s, h * s)) {
            return Err(step_error(
                step,
                format!(
                    "`{selector}` is outside the viewport, where no click lands: add a `scroll` \
                     step to it first, or record with a taller --viewport"
                ),
            ));
        }
        let (cx, cy) = rect.center();
        let s = self.opts.scale as f64;
        Ok((node, n.id.clone(), (cx / s, cy / s)))
    }

    /// Acts one step; returns the element acted on (when the frame's AX tree shows it) and
    /// what was done.
    fn act(&mut self, step: &DevStep, now: &Kept) -> Result<(Option<String>, Operation), Error> {
        let kind = Kind::parse(&step.kind)
            .ok_or_else(|| step_error(step, format!("unknown kind `{}`", step.kind)))?;
        let mut op = Operation::default();
        let sensitive = step.risk == Risk::Sensitive;
        let value = step.value.clone().unwrap_or_default();
        let mut element = None;
        match kind {
            // A navigate by selector follows its link, clicked as a person would.
            Kind::Navigate if step.link_selector().is_some() => {
                let (_, path, at) = self.element(step, now)?;
                self.browser.clear_events();
                self.click(at)?;
                self.browser.wait_for_event("Page.loadEventFired")?;
                element = Some(path);
            }
            Kind::Navigate => {
                let to = step.navigate_url().unwrap_or("/");
                // Resolved as the browser would on a page of the origin (`parse` checked it).
                let url = Origin::exact(&self.plan.origin)
                    .ok()
                    .and_then(|o| o.resolve(to).ok())
                    .map_or_else(|| to.to_string(), String::from);
                self.browser.clear_events();
                self.browser.call("Page.navigate", json!({"url": url}))?;
                self.browser.wait_for_event("Page.loadEventFired")?;
            }
            Kind::Click | Kind::Submit => {
                let (_, path, at) = self.element(step, now)?;
                self.click(at)?;
                element = Some(path);
                op.button = Some("left".into());
                op.count = Some(1);
            }
            Kind::Type => {
                let (_, path, at) = self.element(step, now)?;
                self.click(at)?;
                self.browser
                    .call("Input.insertText", json!({"text": value}))?;
                if sensitive {
                    self.masked.insert(path.clone());
                } else {
                    op.text = Some(value);
                }
                element = Some(path);
            }
            Kind::Key => {
                if step.target.is_some() {
                    let (_, path, at) = self.element(step, now)?;
                    self.click(at)?;
                    element = Some(path);
                }
                let mods = step.parsed.modifiers.clone().unwrap_or_default();
                self.key(&value, &mods)?;
                let mut chord = mods;
                chord.push(value);
                op.keys = Some(chord.join("+"));
            }
            Kind::Select | Kind::Scroll => {
                let (node, path, _) = self.element(step, now)?;
                let object = self
                    .browser
                    .call("DOM.resolveNode", json!({"nodeId": node}))?;
                let f = if kind == Kind::Select {
                    "function(v){this.value=v;this.dispatchEvent(new Event('input',{bubbles:true}));\
                     this.dispatchEvent(new Event('change',{bubbles:true}));}"
                } else {
                    "function(){this.scrollIntoView({block:'center'});}"
                };
                self.browser.call(
                    "Runtime.callFunctionOn",
                    json!({"objectId": object["object"]["objectId"], "functionDeclaration": f,
                           "arguments": [{"value": value}]}),
                )?;
                element = Some(path);
            }
            // Reading kinds change nothing; their frame is the page as read.
            // A wait is for something still to come: the page is asked until it shows.
            Kind::Wait => {
                if let Some(selector) = step.target.as_deref() {
                    self.wait_for(step, selector)?;
                }
            }
            Kind::Extract | Kind::Capture | Kind::RegionOcr => {
                if step.target.is_some() {
                    element = Some(self.element(step, now)?.1);
                }
            }
            // The agent's own traffic and session copies happen outside the page.
            Kind::CaptureSession | Kind::Transport | Kind::Channel => {}
        }
        let shown = element.filter(|id| now_shows(now, id));
        Ok((shown, op))
    }

    /// Waits up to 10 s for `selector` to match in the live page.
    fn wait_for(&mut self, step: &DevStep, selector: &str) -> Result<(), Error> {
        let deadline = Instant::now() + Duration::from_secs(10);
        let probe = format!(
            "document.querySelectorAll({}).length",
            serde_json::to_string(selector).unwrap_or_default()
        );
        loop {
            if self.browser.eval(&probe)?.as_u64().unwrap_or(0) > 0 {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(step_error(
                    step,
                    format!("`{selector}` did not appear in 10 s"),
                ));
            }
            self.browser.pump(Duration::from_millis(100))?;
        }
    }

    fn click(&mut self, (x, y): (f64, f64)) -> Result<(), Error> {
        for kind in ["mouseMoved", "mousePressed", "mouseReleased"] {
            self.browser.call(
                "Input.dispatchMouseEvent",
                json!({"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1}),
            )?;
        }
        Ok(())
    }

    fn key(&mut self, key: &str, modifiers: &[String]) -> Result<(), Error> {
        let mask = modifiers.iter().fold(0, |m, k| {
            m | match k.to_ascii_lowercase().as_str() {
                "alt" | "option" => 1,
                "ctrl" | "control" => 2,
                "meta" | "cmd" | "command" => 4,
                "shift" => 8,
                _ => 0,
            }
        });
        let (code, vk, text) = match key {
            "Enter" | "Return" => ("Enter", 13, "\r".to_string()),
            "Tab" => ("Tab", 9, String::new()),
            "Escape" => ("Escape", 27, String::new()),
            "Backspace" => ("Backspace", 8, String::new()),
            "Delete" => ("Delete", 46, String::new()),
            "ArrowLeft" => ("ArrowLeft", 37, String::new()),
            "ArrowUp" => ("ArrowUp", 38, String::new()),
            "ArrowRight" => ("ArrowRight", 39, String::new()),
            "ArrowDown" => ("ArrowDown", 40, String::new()),
            " " | "Space" => ("Space", 32, " ".to_string()),
            k if k.chars().count() == 1 => {
                let c = k.chars().next().unwrap_or(' ');
                ("", c.to_ascii_uppercase() as i64, k.to_string())
            }
            other => {
                return Err(Error::Desktop(format!(
                    "the key `{other}` cannot be recorded"
                )));
            }
        };
        let name = if key == "Return" { "Enter" } else { key };
        let text = if mask & !8 != 0 { String::new() } else { text };
        self.browser.call(
            "Input.dispatchKeyEvent",
            json!({"type": if text.is_empty() { "rawKeyDown" } else { "keyDown" }, "key": name,
                   "code": code, "windowsVirtualKeyCode": vk, "modifiers": mask, "text": text}),
        )?;
        self.browser.call(
            "Input.dispatchKeyEvent",
            json!({"type": "keyUp", "key": name, "code": code, "windowsVirtualKeyCode": vk,
                   "modifiers": mask}),
        )?;
        Ok(())
    }

    /// Waits until what the step started is over: a navigation it began has loaded (its
    /// requests served meanwhile), and the page has painted twice since.
    fn settle(&mut self) -> Result<(), Error> {
        self.browser.pump(Duration::from_millis(150))?;
        let deadline = Instant::now() + Duration::from_secs(30);
        // A navigation destroys the context an evaluation runs in: that is asked again.
        let painted = "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(document.readyState))))";
        loop {
            if let Ok(state) = self.browser.eval(painted)
                && state == "complete"
            {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(Error::Desktop(
                    "the page did not finish loading in 30 s".into(),
                ));
            }
            self.browser.pump(Duration::from_millis(20))?;
        }
    }
}

/// The action a recording names for a kind: what the hands did (a submit is a click, a key a
/// press), so that any dialect's plan is judged against it; other kinds keep their word.
fn recorded_action(kind: &str) -> &str {
    match kind {
        "submit" => "click",
        "key" => "press",
        k => k,
    }
}

fn now_shows(now: &Kept, id: &str) -> bool {
    // The element's id is its DOM path; the AX file uses the same ids for what it shows.
    now.ax.find(id).is_some()
}

/// Whether a field a sensitive step typed into may show what was typed in this frame: an
/// `<input>` or `<textarea>` that holds a value (Chromium reports none for an empty one), a
/// password field (its value is never kept, so it cannot tell), or any other element (a
/// `contenteditable` holds its text in nodes of its own).
fn holds_typing(n: &crate::recording::dom::DomNode) -> bool {
    let field = matches!(n.tag.as_str(), "input" | "textarea");
    let password = n.attrs.get("type").is_some_and(|t| t == "password");
    !field || password || n.text.as_deref().is_some_and(|t| !t.is_empty())
}
