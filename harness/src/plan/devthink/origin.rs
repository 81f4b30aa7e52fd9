//! Origins: the plan's `origin` must be exactly one (`scheme://host[:port]`, lowercase, no
//! path), and a URL a step navigates to is inside it or not. No URL crate: an origin is three
//! parts, and the rules below are the whole of what the harness needs of one.

/// A scheme, host and port, the port filled in from the scheme when left out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Origin {
    scheme: String,
    host: String,
    port: Option<u16>,
}

/// The scheme of an absolute URL (`https` of `https://…`, `javascript` of `javascript:…`).
fn scheme_of(url: &str) -> Option<&str> {
    let (scheme, _) = url.split_once(':')?;
    let mut chars = scheme.chars();
    let first = chars.next()?;
    (first.is_ascii_alphabetic()
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
    .then_some(scheme)
}

fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "http" | "ws" => Some(80),
        "https" | "wss" => Some(443),
        _ => None,
    }
}

impl Origin {
    /// The origin of an absolute `scheme://authority…` URL, and the rest after the authority.
    /// `None` for anything else (a relative URL, `javascript:`, `data:`).
    fn split(url: &str) -> Option<(Origin, &str)> {
        let scheme = scheme_of(url)?;
        let after = url[scheme.len() + 1..].strip_prefix("//")?;
        let end = after.find(['/', '?', '#']).unwrap_or(after.len());
        let (authority, rest) = after.split_at(end);
        // `user@host`: the host is after the last `@`.
        let hostport = authority.rsplit('@').next().unwrap_or(authority);
        // A port follows the last `:` outside IPv6 brackets.
        let (host, port) = match hostport.rfind(':') {
            Some(i) if !hostport[i..].contains(']') => (&hostport[..i], Some(&hostport[i + 1..])),
            _ => (hostport, None),
        };
        let port = match port {
            None => None,
            Some(p) => Some(p.parse::<u16>().ok().filter(|&p| p > 0)?),
        };
        let scheme = scheme.to_ascii_lowercase();
        Some((
            Origin {
                port: port.or(default_port(&scheme)),
                host: host.to_ascii_lowercase(),
                scheme,
            },
            rest,
        ))
    }

    /// Reads a plan's `origin`, which must be written exactly as an origin serializes;
    /// else the message and a hint.
    pub(crate) fn exact(s: &str) -> Result<Origin, (String, String)> {
        let shape = "an origin is scheme://host[:port], such as http://127.0.0.1:8000";
        let Some((origin, rest)) = Origin::split(s) else {
            return Err((format!("`{s}` is not an origin"), shape.into()));
        };
        let bare = &s[..s.len() - rest.len()];
        let problem = if !rest.is_empty() {
            Some(format!(
                "`{s}` has a path, query or fragment after its origin"
            ))
        } else if origin.host.is_empty() {
            Some(format!("`{s}` has no host"))
        } else if s.contains('@') {
            Some(format!("`{s}` names a user: an origin does not"))
        } else if s.chars().any(|c| c.is_ascii_uppercase()) {
            Some(format!("`{s}` has capitals: an origin is lowercase"))
        } else {
            None
        };
        match problem {
            Some(p) if !rest.is_empty() => Err((p, format!("write `{bare}`"))),
            Some(p) => Err((p, shape.into())),
            None => Ok(origin),
        }
    }

    /// Whether `url`, the address a step navigates to, stays inside this origin. A relative
    /// URL does; an absolute one must have this scheme, host and port; a URL of a scheme
    /// without an authority (`javascript:`, `data:`) never does.
    pub(crate) fn contains(&self, url: &str) -> bool {
        let url = url.trim();
        if url.starts_with("//") {
            return Origin::split(&format!("{}:{url}", self.scheme))
                .is_some_and(|(o, _)| o == *self);
        }
        match scheme_of(url) {
            None => true,
            Some(_) => Origin::split(url).is_some_and(|(o, _)| o == *self),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_origins_only() {
        for ok in [
            "http://127.0.0.1:8000",
            "https://example.com",
            "http://[::1]:3000",
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
        ] {
            assert!(Origin::exact(bad).is_err(), "{bad}");
        }
        let (_, hint) = Origin::exact("http://a.test/x?y").unwrap_err();
        assert_eq!(hint, "write `http://a.test`");
    }

    #[test]
    fn urls_inside_and_outside() {
        let o = Origin::exact("http://127.0.0.1:8000").unwrap();
        for inside in [
            "/login",
            "login?next=/",
            "http://127.0.0.1:8000/a",
            "//127.0.0.1:8000/b",
            "HTTP://127.0.0.1:8000",
        ] {
            assert!(o.contains(inside), "{inside}");
        }
        for outside in [
            "https://127.0.0.1:8000/",
            "http://127.0.0.1:8001/",
            "http://evil.test/",
            "//evil.test/",
            "javascript:alert(1)",
            "http://127.0.0.1:8000@evil.test/",
        ] {
            assert!(!o.contains(outside), "{outside}");
        }
        let https = Origin::exact("https://example.com").unwrap();
        assert!(
            https.contains("https://example.com:443/a"),
            "the default port is the same origin"
        );
    }
}
