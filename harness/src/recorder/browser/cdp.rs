//! Headless Chromium driven over the DevTools protocol on `--remote-debugging-pipe`: commands
//! go in on the child's fd 3 and answers and events come back on its fd 4, each a JSON
//! message ended by a NUL byte — the transport Playwright and Puppeteer use. No port is
//! opened, so two recorders never race for one, and nothing outside the process can drive it.
//!
//! Pages are served from a folder through the `Fetch` domain: every request the page makes is
//! paused and answered from the folder when it is inside the plan's origin, refused otherwise.
//! A recording never touches the network and the origin can be any `scheme://host:port`.

use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde_json::{Value, json};

use crate::errors::Error;

/// The longest wait for one answer: a page that never loads fails the recording instead of
/// hanging it.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(30);

fn browser_error(msg: impl Into<String>) -> Error {
    Error::Desktop(msg.into())
}

/// Where the pages come from.
pub(crate) struct PageServer {
    /// `http://127.0.0.1:8000`.
    pub(crate) origin: String,
    /// The folder whose files are served at the origin's root.
    pub(crate) root: PathBuf,
}

impl PageServer {
    /// The path and query of a URL inside the origin (`http://h:8000` is not inside
    /// `http://h:800`).
    fn inside<'u>(&self, url: &'u str) -> Option<&'u str> {
        let rest = url.strip_prefix(&self.origin)?;
        (rest.is_empty() || rest.starts_with(['/', '?', '#'])).then_some(rest)
    }

    /// The file a URL names, when the URL is inside the origin and the file is in the folder.
    fn file_for(&self, url: &str) -> Option<PathBuf> {
        let rest = self.inside(url)?;
        let path = rest.split(['?', '#']).next().unwrap_or("");
        let path = path.strip_prefix('/').unwrap_or(path);
        let path = if path.is_empty() || path.ends_with('/') {
            format!("{path}index.html")
        } else {
            path.to_string()
        };
        let joined = crate::safe_path::safe_join(
            &self.root,
            &path,
            &self.root,
            crate::errors::FieldPath::root(),
        )
        .ok()?;
        joined.is_file().then_some(joined)
    }
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" | "htm" => "text/html; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "js" => "text/javascript; charset=utf-8",
        "png" => "image/png",
        "svg" => "image/svg+xml",
        "json" => "application/json",
        _ => "application/octet-stream",
    }
}

/// A running headless Chromium with one page attached.
pub(crate) struct Browser {
    child: Child,
    to_browser: fs::File,
    from_browser: Receiver<Value>,
    next_id: u64,
    session: Option<String>,
    server: PageServer,
    /// Events seen while waiting for answers, oldest first.
    events: Vec<Value>,
    profile: PathBuf,
}

/// Dups `fd` above the standard three and the two the child needs, close-on-exec.
fn high_fd(fd: OwnedFd) -> Result<OwnedFd, Error> {
    use std::os::fd::AsRawFd;
    // SAFETY: F_DUPFD_CLOEXEC returns a new fd we own, or -1.
    let new = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 10) };
    if new < 0 {
        return Err(browser_error("cannot duplicate a pipe for Chromium"));
    }
    // SAFETY: `new` is a fresh fd, ours alone.
    Ok(unsafe { OwnedFd::from_raw_fd(new) })
}

fn pipe() -> Result<(OwnedFd, OwnedFd), Error> {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: pipe2 fills two fds, each owned below.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(browser_error("cannot make a pipe for Chromium"));
    }
    // SAFETY: both fds are fresh and ours alone.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

impl Browser {
    /// Starts Chromium with a fresh profile in `scratch`, opens one page of `viewport` CSS
    /// pixels at `scale` device pixels each, and serves `server`'s folder at its origin.
    pub(crate) fn start(
        program: &Path,
        scratch: &Path,
        viewport: (u32, u32),
        scale: u32,
        server: PageServer,
    ) -> Result<Browser, Error> {
        use std::os::fd::AsRawFd;
        let profile = scratch.join("profile");
        crate::output::create_dir(&profile)?;
        let (cmd_read, cmd_write) = pipe()?;
        let (resp_read, resp_write) = pipe()?;
        let (child_in, child_out) = (high_fd(cmd_read)?, high_fd(resp_write)?);
        let (in_fd, out_fd) = (child_in.as_raw_fd(), child_out.as_raw_fd());
        let mut args = vec![
            "--headless".to_string(),
            "--remote-debugging-pipe".into(),
            format!("--user-data-dir={}", profile.display()),
            "--no-first-run".into(),
            "--no-default-browser-check".into(),
            "--disable-gpu".into(),
            "--disable-extensions".into(),
            "--disable-background-networking".into(),
            "--disable-component-update".into(),
            "--disable-sync".into(),
            "--hide-scrollbars".into(),
            "--mute-audio".into(),
            "--font-render-hinting=none".into(),
            "--force-color-profile=srgb".into(),
            format!("--window-size={},{}", viewport.0, viewport.1),
        ];
        // SAFETY: geteuid cannot fail. Chromium's sandbox refuses to start as root (CI
        // containers); only the recorder's own local pages are loaded.
        if unsafe { libc::geteuid() } == 0 {
            args.push("--no-sandbox".into());
        }
        args.push("about:blank".into());
        let log = crate::output::create_file(&scratch.join("chromium.log"))?;
        let mut cmd = Command::new(program);
        cmd.args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::from(log))
            .process_group(0);
        // SAFETY: dup2 and prctl are async-signal-safe; fds 3 and 4 are the pipe ends the
        // protocol names, and the browser dies with the recorder.
        unsafe {
            cmd.pre_exec(move || {
                if libc::dup2(in_fd, 3) < 0 || libc::dup2(out_fd, 4) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                Ok(())
            });
        }
        let child = cmd
            .spawn()
            .map_err(|e| browser_error(format!("cannot start `{}`: {e}", program.display())))?;
        drop((child_in, child_out));
        let (tx, rx) = channel();
        let reader = fs::File::from(resp_read);
        std::thread::spawn(move || {
            let mut r = BufReader::new(reader);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match r.read_until(0, &mut buf) {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {
                        if buf.last() == Some(&0) {
                            buf.pop();
                        }
                        if let Ok(v) = serde_json::from_slice::<Value>(&buf)
                            && tx.send(v).is_err()
                        {
                            return;
                        }
                    }
                }
            }
        });
        let mut b = Browser {
            child,
            to_browser: fs::File::from(cmd_write),
            from_browser: rx,
            next_id: 0,
            session: None,
            server,
            events: Vec::new(),
            profile,
        };
        b.open_page(viewport, scale)?;
        Ok(b)
    }

    fn open_page(&mut self, (w, h): (u32, u32), scale: u32) -> Result<(), Error> {
        let target = self.call("Target.createTarget", json!({"url": "about:blank"}))?;
        let id = target["targetId"].as_str().unwrap_or_default().to_string();
        let attached = self.call(
            "Target.attachToTarget",
            json!({"targetId": id, "flatten": true}),
        )?;
        self.session = attached["sessionId"].as_str().map(str::to_string);
        if self.session.is_none() {
            return Err(browser_error("Chromium did not attach to its page"));
        }
        self.call("Page.enable", json!({}))?;
        self.call("DOM.enable", json!({}))?;
        self.call("Accessibility.enable", json!({}))?;
        self.call(
            "Emulation.setDeviceMetricsOverride",
            json!({"width": w, "height": h, "deviceScaleFactor": scale, "mobile": false}),
        )?;
        // From here every request the page makes pauses until `serve` answers it.
        self.call(
            "Fetch.enable",
            json!({"patterns": [{"urlPattern": "*", "requestStage": "Request"}]}),
        )?;
        Ok(())
    }

    fn send(&mut self, id: u64, method: &str, params: Value, session: bool) -> Result<(), Error> {
        let mut msg = json!({"id": id, "method": method, "params": params});
        if session && let Some(s) = &self.session {
            msg["sessionId"] = s.clone().into();
        }
        let mut bytes = serde_json::to_vec(&msg).map_err(|e| browser_error(e.to_string()))?;
        bytes.push(0);
        self.to_browser
            .write_all(&bytes)
            .map_err(|e| browser_error(format!("Chromium stopped reading commands: {e}")))
    }

    /// Sends a command (to the page once one is attached) and waits for its answer, serving
    /// the page's requests meanwhile.
    pub(crate) fn call(&mut self, method: &str, params: Value) -> Result<Value, Error> {
        self.next_id += 1;
        let id = self.next_id;
        self.send(id, method, params, true)?;
        let deadline = Instant::now() + ANSWER_TIMEOUT;
        loop {
            let msg = self.next_message(deadline, method)?;
            if msg["id"].as_u64() == Some(id) {
                if let Some(e) = msg.get("error") {
                    let what = e["message"].as_str().unwrap_or("an error");
                    return Err(browser_error(format!("Chromium: {method}: {what}")));
                }
                return Ok(msg["result"].clone());
            }
            self.on_message(msg)?;
        }
    }

    fn next_message(&mut self, deadline: Instant, waiting_for: &str) -> Result<Value, Error> {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.from_browser.recv_timeout(left) {
            Ok(m) => Ok(m),
            Err(RecvTimeoutError::Timeout) => Err(browser_error(format!(
                "Chromium did not answer `{waiting_for}` within {} s",
                ANSWER_TIMEOUT.as_secs()
            ))),
            Err(RecvTimeoutError::Disconnected) => Err(browser_error(format!(
                "Chromium exited while answering `{waiting_for}` (see chromium.log)"
            ))),
        }
    }

    /// Serves paused requests; keeps other events for [`Browser::wait_for_event`].
    fn on_message(&mut self, msg: Value) -> Result<(), Error> {
        match msg["method"].as_str() {
            Some("Fetch.requestPaused") => self.serve(&msg["params"]),
            Some(_) => {
                self.events.push(msg);
                Ok(())
            }
            None => Ok(()),
        }
    }

    fn serve(&mut self, p: &Value) -> Result<(), Error> {
        let request = p["requestId"].clone();
        let url = p["request"]["url"].as_str().unwrap_or("");
        self.next_id += 1;
        let id = self.next_id;
        match self.server.file_for(url) {
            Some(file) => {
                let body = fs::read(&file)
                    .map_err(|e| browser_error(format!("cannot read `{}`: {e}", file.display())))?;
                let headers = [json!({"name": "Content-Type", "value": content_type(&file)})];
                self.send(
                    id,
                    "Fetch.fulfillRequest",
                    json!({"requestId": request, "responseCode": 200,
                        "responseHeaders": headers, "body": BASE64.encode(body)}),
                    true,
                )
            }
            // A path the pages lack gets a page saying so, inside the origin: an empty answer
            // makes Chromium show its own error page (`chrome-error://`), which is no page of
            // the origin and reads as having left it.
            None if self.server.inside(url).is_some() => {
                let headers =
                    [json!({"name": "Content-Type", "value": "text/html; charset=utf-8"})];
                self.send(
                    id,
                    "Fetch.fulfillRequest",
                    json!({"requestId": request, "responseCode": 404,
                        "responseHeaders": headers, "body": BASE64.encode(not_found_page(url))}),
                    true,
                )
            }
            // Nothing outside the origin is fetched: a recording never uses the network.
            None => self.send(
                id,
                "Fetch.failRequest",
                json!({"requestId": request, "errorReason": "BlockedByClient"}),
                true,
            ),
        }
    }

    /// Waits for an event named `method` (one already seen counts), serving requests meanwhile.
    pub(crate) fn wait_for_event(&mut self, method: &str) -> Result<Value, Error> {
        let deadline = Instant::now() + ANSWER_TIMEOUT;
        loop {
            if let Some(i) = self.events.iter().position(|e| e["method"] == method) {
                return Ok(self.events.remove(i)["params"].clone());
            }
            let msg = self.next_message(deadline, method)?;
            self.on_message(msg)?;
        }
    }

    /// Serves the page's requests for `d`, keeping the events that come meanwhile.
    pub(crate) fn pump(&mut self, d: Duration) -> Result<(), Error> {
        let until = Instant::now() + d;
        loop {
            let left = until.saturating_duration_since(Instant::now());
            match self.from_browser.recv_timeout(left) {
                Ok(msg) => self.on_message(msg)?,
                Err(RecvTimeoutError::Timeout) => return Ok(()),
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(browser_error("Chromium exited (see chromium.log)"));
                }
            }
        }
    }

    /// Forgets events seen so far (before an action whose own events are awaited).
    pub(crate) fn clear_events(&mut self) {
        self.events.clear();
    }

    /// Evaluates a JavaScript expression in the page, awaiting a promise, and returns its value.
    pub(crate) fn eval(&mut self, expr: &str) -> Result<Value, Error> {
        let r = self.call(
            "Runtime.evaluate",
            json!({"expression": expr, "awaitPromise": true, "returnByValue": true}),
        )?;
        if let Some(ex) = r.get("exceptionDetails") {
            let what = ex["exception"]["description"]
                .as_str()
                .or(ex["text"].as_str())
                .unwrap_or("an exception");
            return Err(browser_error(format!("the page threw: {what}")));
        }
        Ok(r["result"]["value"].clone())
    }

    /// A PNG of the viewport.
    pub(crate) fn screenshot(&mut self) -> Result<Vec<u8>, Error> {
        let r = self.call(
            "Page.captureScreenshot",
            json!({"format": "png", "captureBeyondViewport": false}),
        )?;
        BASE64
            .decode(r["data"].as_str().unwrap_or(""))
            .map_err(|e| {
                browser_error(format!(
                    "Chromium sent a screenshot that is not base64: {e}"
                ))
            })
    }

    /// Closes the browser and reaps it and everything it started.
    pub(crate) fn stop(&mut self) {
        let pid = self.child.id() as libc::pid_t;
        // SAFETY: signals our own process group (the browser leads it).
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
        let _ = self.child.wait();
        let _ = fs::remove_dir_all(&self.profile);
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The visible page a path the recorded pages lack is answered with: its status and address
/// in words a reader (and replay, reading the DOM) can see.
fn not_found_page(url: &str) -> String {
    let url: String = url
        .chars()
        .map(|c| match c {
            '<' => "&lt;".to_string(),
            '>' => "&gt;".to_string(),
            '&' => "&amp;".to_string(),
            '"' => "&quot;".to_string(),
            c => c.to_string(),
        })
        .collect();
    format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"stepreplay-status\" content=\"404\"><title>404 Not Found</title></head>\
         <body><h1>404 Not Found</h1><p id=\"stepreplay-not-found\">{url} is not among the \
         recorded pages.</p></body></html>"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_files_inside_the_origin_and_the_folder_are_served() {
        let dir = std::env::temp_dir().join(format!("stepreplay-cdp-{}", std::process::id()));
        fs::create_dir_all(dir.join("shop")).unwrap();
        fs::write(dir.join("index.html"), "<p>home</p>").unwrap();
        fs::write(dir.join("shop/cart.html"), "<p>cart</p>").unwrap();
        let s = PageServer {
            origin: "http://127.0.0.1:8000".into(),
            root: dir.clone(),
        };
        assert_eq!(
            s.file_for("http://127.0.0.1:8000/"),
            Some(dir.join("index.html"))
        );
        assert_eq!(
            s.file_for("http://127.0.0.1:8000/shop/cart.html?x=1#top"),
            Some(dir.join("shop/cart.html"))
        );
        assert_eq!(s.file_for("http://127.0.0.1:8000/../etc/passwd"), None);
        assert_eq!(s.file_for("http://127.0.0.1:8001/index.html"), None);
        assert_eq!(s.file_for("http://127.0.0.1:8000/missing.html"), None);
        assert_eq!(s.file_for("http://127.0.0.1:80001/index.html"), None);
        fs::remove_dir_all(dir).unwrap();
    }
}
