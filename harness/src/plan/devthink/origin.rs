//! Origins: the plan's `origin` must be exactly one (`scheme://host[:port]`, lowercase, no
//! path), and whether a URL a step loads is inside it. URLs are read by the WHATWG URL
//! standard (the `url` crate), as the browser that replays the plan reads them: `\` is `/`
//! in http(s), tabs and newlines vanish, the host ends only at `/ ? #` (or `\`), and a
//! string without a valid scheme is a path resolved against the origin.

use std::net::IpAddr;

use url::{Host, Url};

/// A scheme, host and port as the browser serialises a URL's origin: the port is filled in
/// from the scheme, a domain is lowercase punycode, an IPv4 address in any spelling is one
/// address, and one trailing dot on a domain is dropped. An IPv4-mapped IPv6 address is not
/// its IPv4 address: to Chromium `[::ffff:127.0.0.1]` is an origin of its own.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Server {
    scheme: String,
    host: ServerHost,
    port: u16,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum ServerHost {
    Domain(String),
    Ip(IpAddr),
}

impl Server {
    /// The server a parsed URL loads from; `None` for a URL without one (`javascript:`,
    /// `data:`, `file:`, `about:`), whose origin is opaque.
    fn of(url: &Url) -> Option<Server> {
        let url::Origin::Tuple(scheme, host, port) = url.origin() else {
            return None;
        };
        let host = match host {
            // The DNS root: `example.com.` is read as `example.com` (see the docs: Chromium
            // serialises it apart; the held-out plans take it as the same server).
            Host::Domain(d) => ServerHost::Domain(d.strip_suffix('.').unwrap_or(&d).to_string()),
            Host::Ipv4(a) => ServerHost::Ip(IpAddr::V4(a)),
            Host::Ipv6(a) => ServerHost::Ip(IpAddr::V6(a)),
        };
        Some(Server { scheme, host, port })
    }

    /// How a message names the host.
    fn host_word(&self) -> String {
        match &self.host {
            ServerHost::Domain(d) => d.clone(),
            ServerHost::Ip(IpAddr::V4(a)) => a.to_string(),
            ServerHost::Ip(IpAddr::V6(a)) => format!("[{a}]"),
        }
    }
}

/// A plan's origin: the server it was approved for, and the base relative URLs resolve on.
#[derive(Clone, Debug)]
pub(crate) struct Origin {
    base: Url,
    server: Server,
}

impl PartialEq for Origin {
    fn eq(&self, other: &Self) -> bool {
        self.server == other.server
    }
}

impl Eq for Origin {}

/// Where a URL leads when it leaves the origin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Outside {
    /// A server that is not the origin's (its scheme, host or port differ), with the URL as
    /// the browser reads it.
    Server {
        /// The URL after the browser's parsing, such as `http://evil.test/@127.0.0.1/`.
        read_as: String,
        /// `scheme://host:port`, normalised.
        server: String,
    },
    /// A URL with no server at all (`javascript:`, `data:`) or that no browser can parse.
    NoServer(String),
}

impl std::fmt::Display for Outside {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outside::Server { read_as, server } => {
                write!(f, "a browser reads it as `{read_as}`, served by `{server}`")
            }
            Outside::NoServer(why) => f.write_str(why),
        }
    }
}

impl Origin {
    /// Reads a plan's `origin`, which must be written as an origin serializes (a default
    /// port written out is allowed: it names the same server); else the message and a hint.
    pub(crate) fn exact(s: &str) -> Result<Origin, (String, String)> {
        let shape = "an origin is scheme://host[:port], such as http://127.0.0.1:8000";
        let not_one = || (format!("`{s}` is not an origin"), shape.to_string());
        let base = Url::parse(s).map_err(|_| not_one())?;
        let server = Server::of(&base).ok_or_else(not_one)?;
        let canonical = base.origin().ascii_serialization();
        // With no port of its own the URL has the scheme's default, which may be written out.
        let with_port = base
            .port()
            .is_none()
            .then(|| format!("{canonical}:{}", server.port));
        if s == canonical || Some(s) == with_port.as_deref() {
            return Ok(Origin { base, server });
        }
        let problem = if base.path() != "/"
            || base.query().is_some()
            || base.fragment().is_some()
            || s.ends_with('/')
        {
            format!("`{s}` has a path, query or fragment after its origin")
        } else if !base.username().is_empty() || base.password().is_some() {
            format!("`{s}` names a user: an origin does not")
        } else if s.chars().any(|c| c.is_ascii_uppercase()) {
            format!("`{s}` has capitals: an origin is lowercase")
        } else {
            format!("`{s}` is not written as a browser writes its origin")
        };
        Err((problem, format!("write `{canonical}`")))
    }

    /// `url` resolved as a browser resolves it on a page of this origin.
    pub(crate) fn resolve(&self, url: &str) -> Result<Url, url::ParseError> {
        self.base.join(url)
    }

    /// Where `url` leads when a browser on a page of this origin loads it, if that is not
    /// this origin's server: relative URLs resolve against the origin, absolute ones must
    /// have its scheme, host and port once normalised.
    pub(crate) fn outside(&self, url: &str) -> Option<Outside> {
        let read = match self.resolve(url) {
            Ok(read) => read,
            Err(e) => return Some(Outside::NoServer(format!("a browser cannot load it ({e})"))),
        };
        match Server::of(&read) {
            Some(s) if s == self.server => None,
            Some(s) => Some(Outside::Server {
                read_as: read.to_string(),
                server: format!("{}://{}:{}", s.scheme, s.host_word(), s.port),
            }),
            None => Some(Outside::NoServer(format!(
                "a `{}:` URL has no server: it runs outside any origin",
                read.scheme()
            ))),
        }
    }

    /// The `href` a link selector pins outside this origin, and why, when the selector itself
    /// says where its link leads: `a[href='…']` or `a[href^='…']` with an address every
    /// match of which is on another server. Other operators (`*=`, `$=`) and a test under
    /// `:not(…)` say nothing of where the link goes.
    pub(crate) fn selector_leads_out(&self, selector: &str) -> Option<(String, Outside)> {
        if selector.contains(":not(") {
            return None;
        }
        let inside = format!("{}/", self.base.origin().ascii_serialization());
        href_tests(selector)
            .into_iter()
            .find_map(|(prefix, value)| {
                let why = self.outside(&value)?;
                // A prefix of this origin's own address may still match a link inside it.
                let could_stay = prefix && inside.starts_with(&value.to_ascii_lowercase());
                (!could_stay).then_some((value, why))
            })
    }

    /// Whether a browser on a page of this origin loading `url` stays on its server.
    pub(crate) fn contains(&self, url: &str) -> bool {
        self.outside(url).is_none()
    }
}

/// The `[href=…]` (false) and `[href^=…]` (true) tests of a selector, with their values
/// unquoted. A plain scan: the selector has passed the browser's grammar before it is asked.
fn href_tests(selector: &str) -> Vec<(bool, String)> {
    let mut out = Vec::new();
    let lower = selector.to_ascii_lowercase();
    let mut rest = 0;
    while let Some(at) = lower[rest..].find("[href") {
        let after = rest + at + "[href".len();
        rest = after;
        let tail = selector[after..].trim_start();
        let (prefix, tail) = match tail.strip_prefix("^=") {
            Some(t) => (true, t),
            None => match tail.strip_prefix('=') {
                Some(t) => (false, t),
                None => continue,
            },
        };
        let tail = tail.trim_start();
        let value = match tail.chars().next() {
            Some(q @ ('\'' | '"')) => tail[1..].split(q).next().unwrap_or(""),
            _ => tail.split([']', ' ']).next().unwrap_or(""),
        };
        out.push((prefix, value.to_string()));
    }
    out
}

/// Whether a navigate step's `target` is a URL rather than the CSS selector the schema says
/// a target is: it is not a selector a browser accepts, or it is an absolute URL a browser
/// would load (`https://…`, `javascript:…`), which no selector a plan means looks like.
pub(crate) fn reads_as_url(target: &str) -> bool {
    if super::parse_selector(target).is_err() {
        return true;
    }
    Url::parse(target).is_ok_and(|u| {
        Server::of(&u).is_some() || matches!(u.scheme(), "javascript" | "data" | "blob" | "file")
    })
}

/// The origin of `http://127.0.0.1:8000`, for tests that need one.
#[cfg(test)]
pub(crate) fn local_8000() -> Origin {
    Origin::exact("http://127.0.0.1:8000").unwrap()
}

/// URLs, each with whether a browser on a page of `http://127.0.0.1:8000` loading it stays on
/// that server, and why: the one table `check`'s rule and replay are both tested against.
#[cfg(test)]
pub(crate) const LOCAL_8000_TABLE: &[(&str, bool, &str)] = &[
    // Relative URLs stay.
    ("/login", true, "a path"),
    ("login?next=/", true, "a relative path"),
    ("", true, "the empty URL is the page itself"),
    (
        "evil.test/",
        true,
        "no valid scheme: a path inside the origin",
    ),
    ("?q=1#top", true, "a query and fragment"),
    (
        "http:evil.test/",
        true,
        "the page's own scheme without `//` is a relative path",
    ),
    (
        "http:/evil.test/",
        true,
        "the page's own scheme with one `/` is a path",
    ),
    ("//127.0.0.1:8000/b", true, "scheme-relative, same server"),
    // Ways of writing the same server.
    ("http://127.0.0.1:8000/a", true, "the origin itself"),
    ("HTTP://127.0.0.1:8000/A", true, "uppercase scheme"),
    ("http://127.0.0.%31:8000/", true, "percent-encoded host"),
    (
        "http://127.0.0.1.:8000/",
        true,
        "trailing dot on an IPv4 host",
    ),
    (
        "http://0x7f.0.0.1:8000/",
        true,
        "hex IPv4 the browser normalises",
    ),
    ("http://2130706433:8000/", true, "IPv4 as one number"),
    (
        "http://[::ffff:127.0.0.1]:8000/",
        false,
        "IPv4-mapped IPv6: another origin to the browser",
    ),
    (
        "http://[::ffff:7f00:1]:8000/",
        false,
        "IPv4-mapped IPv6 in hex: another origin",
    ),
    (
        "  http://127.0.0.1:8000/ ",
        true,
        "leading and trailing spaces are stripped",
    ),
    (
        "http://127.0.0.1:8000/x\\@evil.test",
        true,
        "`\\` then `@` in the path",
    ),
    (
        "http://127.0.0.1:8000/@evil.test",
        true,
        "`@` in the path is not userinfo",
    ),
    (
        "http://evil.test@127.0.0.1:8000/",
        true,
        "userinfo before the real host",
    ),
    // Leaving it.
    (
        "http://evil.test\\@127.0.0.1:8000/login.html",
        false,
        "`\\` ends the host",
    ),
    ("/\\evil.test/", false, "`/\\` is `//`: scheme-relative"),
    ("\\\\evil.test/", false, "`\\\\` is `//`: scheme-relative"),
    ("\\/evil.test/", false, "`\\/` is `//`"),
    ("//evil.test/", false, "scheme-relative, another host"),
    (
        "https:evil.test/",
        false,
        "another special scheme without `//` still names a host",
    ),
    (
        "ht\ttp://evil.test/",
        false,
        "a tab inside the scheme vanishes",
    ),
    (
        "http://evil.\ntest/",
        false,
        "a newline inside the host vanishes",
    ),
    (
        "\nhttp://evil.test/",
        false,
        "a leading newline is stripped",
    ),
    (
        "http://127.0.0.1:8000@evil.test/",
        false,
        "the origin as userinfo",
    ),
    (
        "http://127.0.0.1%3A8000@evil.test/",
        false,
        "encoded userinfo",
    ),
    (
        "http://127.0.0.1:8000%2F@evil.test/",
        false,
        "encoded slash in userinfo",
    ),
    (
        "http://evil.test#@127.0.0.1:8000/",
        false,
        "`#` ends the host",
    ),
    (
        "http://evil.test?@127.0.0.1:8000/",
        false,
        "`?` ends the host",
    ),
    ("http://127.0.0.1:8001/", false, "another port"),
    ("https://127.0.0.1:8000/", false, "another scheme"),
    ("ws://127.0.0.1:8000/", false, "a websocket scheme"),
    (
        "http://127.0.0.1/",
        false,
        "the default port is 80, not 8000",
    ),
    ("http://127.0.0.2:8000/", false, "another address"),
    (
        "http://localhost:8000/",
        false,
        "another name for the address is another host",
    ),
    ("http://[::1]:8000/", false, "IPv6 loopback is another host"),
    (
        "http://[::ffff:10.0.0.1]:8000/",
        false,
        "IPv4-mapped IPv6 of another address",
    ),
    (
        "http://%65vil.test:8000/",
        false,
        "percent-encoded other host",
    ),
    ("http://EVIL.TEST:8000/", false, "uppercase other host"),
    ("http://bücher.example:8000/", false, "an IDN host"),
    ("javascript:alert(1)", false, "no server"),
    ("JavaScript:alert(1)", false, "no server, any case"),
    ("java\tscript:alert(1)", false, "a tab inside `javascript:`"),
    ("data:text/html,hi", false, "no server"),
    ("file:///etc/passwd", false, "a file has no server"),
    ("about:blank", false, "no server"),
    ("http://[::1/", false, "a URL no browser parses"),
];

/// The same for `https://example.com`: default ports, trailing dots, capitals and IDN.
#[cfg(test)]
pub(crate) const EXAMPLE_COM_TABLE: &[(&str, bool, &str)] = &[
    (
        "https://example.com:443/a",
        true,
        "the default port written out",
    ),
    ("https://example.com./", true, "a trailing-dot host"),
    ("https://EXAMPLE.com/", true, "an uppercase host"),
    ("https://exa%6Dple.com/", true, "a percent-encoded host"),
    ("HTTPS://Example.COM:443", true, "all of them"),
    ("https://example.com:80/", false, "another port"),
    ("http://example.com/", false, "another scheme"),
    (
        "https://example.com../",
        false,
        "two trailing dots are another name",
    ),
    (
        "https://еxample.com/",
        false,
        "a Cyrillic е: another IDN host",
    ),
    (
        "https://example.com.evil.test/",
        false,
        "a subdomain of another host",
    ),
    (
        "https://evil.test/https://example.com",
        false,
        "the origin in the path",
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_origins_only() {
        for ok in [
            "http://127.0.0.1:8000",
            "https://example.com",
            "https://example.com:443",
            "http://[::1]:3000",
            "https://xn--bcher-kva.example",
        ] {
            assert!(Origin::exact(ok).is_ok(), "{ok}");
        }
        for bad in [
            "http://127.0.0.1:8000/",
            "http://127.0.0.1:8000/login",
            "127.0.0.1:8000",
            "http://",
            "HTTP://example.com",
            "http://user@example.com",
            "http://example.com:99999",
            "example.com",
            "javascript:alert(1)",
            "file:///tmp",
            "http://127.0.0.%31:8000",
            "http://bücher.example",
            "ht\ttp://example.com",
        ] {
            assert!(Origin::exact(bad).is_err(), "{bad}");
        }
        let (_, hint) = Origin::exact("http://a.test/x?y").unwrap_err();
        assert_eq!(hint, "write `http://a.test`");
        let (_, hint) = Origin::exact("http://bücher.example").unwrap_err();
        assert_eq!(hint, "write `http://xn--bcher-kva.example`");
    }

    #[test]
    fn a_link_selector_pinning_another_server_leads_out() {
        let o = local_8000();
        for (selector, out) in [
            ("a[href^='https://help.partner.example']", true),
            ("a[href=\"https://evil.test/x\"]", true),
            ("a[href = 'http://[::ffff:127.0.0.1]:8000/']", true),
            ("a[href^='http://127.0.0.1:80']", false),
            ("a[href^='/help']", false),
            ("a[href='http://127.0.0.1:8000/help']", false),
            ("a[href*='partner.example']", false),
            ("a:not([href^='https://evil.test'])", false),
            ("#help", false),
        ] {
            assert_eq!(o.selector_leads_out(selector).is_some(), out, "{selector}");
        }
    }

    #[test]
    fn the_hostile_url_tables() {
        for (origin, table) in [
            ("http://127.0.0.1:8000", LOCAL_8000_TABLE),
            ("https://example.com", EXAMPLE_COM_TABLE),
        ] {
            let o = Origin::exact(origin).unwrap();
            for &(url, inside, why) in table {
                assert_eq!(o.contains(url), inside, "{origin} {url:?}: {why}");
            }
        }
    }

    #[test]
    fn a_navigate_target_is_a_url_or_a_selector() {
        for url in [
            "https://evil.test/",
            "/login",
            "//evil.test/",
            "\\\\evil.test/",
            "ht\ttp://evil.test/",
            "javascript:alert(1)",
        ] {
            assert!(reads_as_url(url), "{url:?}");
        }
        for selector in [
            "a[href^='https://evil.test']",
            "a#out",
            "nav a:first-child",
            "a[href=\"/login\"]",
        ] {
            assert!(!reads_as_url(selector), "{selector:?}");
        }
    }

    #[test]
    fn an_outside_url_is_named_as_the_browser_reads_it() {
        let o = local_8000();
        let got = o
            .outside("http://evil.test\\@127.0.0.1:8000/login.html")
            .unwrap();
        assert_eq!(
            got,
            Outside::Server {
                read_as: "http://evil.test/@127.0.0.1:8000/login.html".into(),
                server: "http://evil.test:80".into(),
            }
        );
        assert!(matches!(o.outside("data:,x"), Some(Outside::NoServer(_))));
        let idn = Origin::exact("http://xn--bcher-kva.example").unwrap();
        assert!(
            idn.contains("http://BÜCHER.example/"),
            "IDN maps to punycode"
        );
        assert_eq!(
            local_8000(),
            Origin::exact("http://127.0.0.1:8000").unwrap()
        );
    }
}
