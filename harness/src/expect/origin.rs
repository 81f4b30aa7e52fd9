//! The origin check: a browser plan acts inside its exact origin, judged before a step acts
//! (where it navigates, the page it is on, the link it follows) and after (where the page
//! landed, a failed load). The follower and an agent are judged by the same functions.

use super::{Check, CheckKind};
use crate::plan::devthink::origin::Origin;
use crate::plan::{Action, Plan, Step};
use crate::recording::dom::DomSnapshot;

/// The failed origin check, in words.
pub(crate) fn check(why: String) -> Check {
    Check::new(CheckKind::Origin, false, why)
}

/// Why step `step` would act outside the plan's origin, on a page showing `page` (the
/// frame's URL, when the frame has a DOM). A URL is read as a browser reads it
/// ([`Origin::outside`]), the same function `check`'s `outside-origin` rule uses.
pub(crate) fn outside_origin(
    plan: &Plan,
    step: &Step,
    page: Option<&DomSnapshot>,
) -> Option<String> {
    let origin = Origin::exact(&plan.review.as_ref()?.origin).ok()?;
    let shown = &plan.review.as_ref()?.origin;
    if let Action::Navigate { to: Some(to) } = &step.action {
        return origin.outside(to).map(|why| {
            format!(
                "`{}` is outside the plan's origin `{shown}`: {why}",
                to.escape_debug()
            )
        });
    }
    let url = &page?.url;
    // A page before any navigation (about:blank) has no origin to leave.
    let why = origin
        .outside(url)
        .filter(|_| step.target.is_some() && !url.starts_with("about:"))?;
    Some(format!(
        "the page `{url}` is outside the plan's origin `{shown}`: {why}"
    ))
}

/// Why a navigate step that follows a link by its selector would leave the plan's origin:
/// the link it found (`element` on the page before, `page`) leads to another server. Judged
/// before acting, by the `href` the browser would load, whatever the recording did next.
pub(crate) fn link_out(
    plan: &Plan,
    step: &Step,
    page: Option<&DomSnapshot>,
    element: Option<&str>,
) -> Option<String> {
    if !matches!(step.action, Action::Navigate { to: None }) {
        return None;
    }
    let review = plan.review.as_ref()?;
    let origin = Origin::exact(&review.origin).ok()?;
    let page = page?;
    let node = &page.nodes[page.position(element?)?];
    let href = matches!(node.tag.as_str(), "a" | "area")
        .then(|| node.attrs.get("href"))
        .flatten()?;
    origin.outside(href).map(|why| {
        format!(
            "the step follows a link to `{}`, outside the plan's origin `{}`: {why}",
            href.escape_debug(),
            review.origin
        )
    })
}

/// The failed load a frame shows, with its status and URL: `record-browser` answers a path
/// its pages lack with a visible page that names its status (`stepreplay-status`), inside the
/// origin, so a failed load is a failed load and never reads as leaving the origin.
pub(crate) fn failed_load(page: Option<&DomSnapshot>) -> Option<String> {
    let page = page?;
    let status = page.nodes.iter().find_map(|n| {
        (n.tag == "meta"
            && n.attrs
                .get("name")
                .is_some_and(|v| v == "stepreplay-status"))
        .then(|| n.attrs.get("content"))
        .flatten()
    })?;
    (!status.starts_with('2')).then(|| {
        format!(
            "the load of `{}` failed with status {status}",
            page.url.escape_debug()
        )
    })
}

/// Where the recorded page was once a browser step acted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Landing {
    /// Inside the plan's origin, or the step could not have left it.
    Stayed,
    /// On another server: why.
    Left(String),
    /// The step followed a link, and the recording keeps no address of the page after it.
    Unknown(String),
}

/// Where step `step` took the page, judged by the recording: the URL of the frame after it
/// (`after`), else, when that frame has no DOM, whether it followed a link that leads out
/// (a navigate by selector, or acting on an `<a href>` of the page before, `before`).
pub(crate) fn landing(
    plan: &Plan,
    step: &Step,
    before: Option<&DomSnapshot>,
    after: Option<&DomSnapshot>,
    element: Option<&str>,
) -> Landing {
    let Some(review) = &plan.review else {
        return Landing::Stayed;
    };
    let Ok(origin) = Origin::exact(&review.origin) else {
        return Landing::Stayed;
    };
    if let Some(after) = after {
        let url = &after.url;
        return match origin.outside(url) {
            Some(why) if !url.starts_with("about:") => Landing::Left(format!(
                "the step led to `{url}`, outside the plan's origin `{}`: {why}",
                review.origin
            )),
            _ => Landing::Stayed,
        };
    }
    let unknown = "the recording keeps no address of the page after it: not judged";
    if matches!(step.action, Action::Navigate { to: None }) && step.target.is_some() {
        return Landing::Unknown(format!(
            "the step follows a link by its selector, and {unknown}"
        ));
    }
    let link = before.zip(element).and_then(|(dom, el)| {
        let node = &dom.nodes[dom.position(el)?];
        matches!(node.tag.as_str(), "a" | "area")
            .then(|| node.attrs.get("href"))
            .flatten()
    });
    match link {
        Some(href) if !origin.contains(href) => Landing::Unknown(format!(
            "the step acts on a link to `{}`, outside the plan's origin, and {unknown}",
            href.escape_debug()
        )),
        _ => Landing::Stayed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::web::tests::login;

    #[test]
    fn steps_outside_the_origin_are_named_with_the_url() {
        let plan = login(|v| v["steps"][0]["value"] = "https://evil.test/x".into());
        let why = outside_origin(&plan, &plan.steps[0], None).unwrap();
        assert!(why.contains("https://evil.test/x"), "{why}");
        let inside = login(|_| {});
        assert_eq!(outside_origin(&inside, &inside.steps[0], None), None);
        let dom = DomSnapshot {
            schema: crate::recording::dom::DOM_SCHEMA.into(),
            url: "http://127.0.0.1:9000/login.html".into(),
            title: String::new(),
            nodes: Vec::new(),
        };
        assert!(outside_origin(&inside, &inside.steps[1], Some(&dom)).is_some());
        let blank = DomSnapshot {
            url: "about:blank".into(),
            ..dom
        };
        assert_eq!(
            outside_origin(&inside, &inside.steps[1], Some(&blank)),
            None
        );
    }

    #[test]
    fn the_hostile_url_tables_hold_for_replay() {
        use crate::plan::devthink::origin::{EXAMPLE_COM_TABLE, LOCAL_8000_TABLE};
        for (origin, table) in [
            ("http://127.0.0.1:8000", LOCAL_8000_TABLE),
            ("https://example.com", EXAMPLE_COM_TABLE),
        ] {
            for &(url, inside, why) in table {
                let plan = login(|v| {
                    v["origin"] = origin.into();
                    v["steps"][0]["value"] = url.into();
                });
                let got = outside_origin(&plan, &plan.steps[0], None);
                assert_eq!(got.is_none(), inside, "{origin} {url:?}: {why}: {got:?}");
            }
        }
    }

    fn page(url: &str, nodes: serde_json::Value) -> DomSnapshot {
        serde_json::from_value(serde_json::json!({
            "schema": crate::recording::dom::DOM_SCHEMA, "url": url, "nodes": nodes
        }))
        .unwrap()
    }

    #[test]
    fn where_a_step_went_is_judged_by_the_page_it_reached() {
        let plan = login(|_| {});
        let click = &plan.steps[3];
        let link = serde_json::json!([
            {"id": "/html", "tag": "html"},
            {"id": "/html/a", "parent": 0, "tag": "a", "attrs": {"href": "https://evil.test/"}},
            {"id": "/html/a[2]", "parent": 0, "tag": "a", "attrs": {"href": "/help"}}
        ]);
        let before = page("http://127.0.0.1:8000/login.html", link);
        let land = |after: Option<&DomSnapshot>, el: &str| {
            landing(&plan, click, Some(&before), after, Some(el))
        };
        let evil = page("http://evil.test\\@127.0.0.1:8000/", serde_json::json!([]));
        assert!(
            matches!(land(Some(&evil), "/html/a"), Landing::Left(why) if why.contains("evil.test")),
            "the page after the click is on another server"
        );
        let home = page("http://127.0.0.1:8000/home", serde_json::json!([]));
        assert_eq!(
            land(Some(&home), "/html/a"),
            Landing::Stayed,
            "the page says where it went"
        );
        assert!(
            matches!(land(None, "/html/a"), Landing::Unknown(_)),
            "a link out with no address after it is not judged"
        );
        assert_eq!(land(None, "/html/a[2]"), Landing::Stayed, "a link inside");
        let follow = login(|v| {
            let s = v["steps"][0].as_object_mut().unwrap();
            s.remove("value");
            s.insert("target".into(), "a[href^='https://evil.test']".into());
        });
        assert!(matches!(
            follow.steps[0].action,
            Action::Navigate { to: None }
        ));
        assert!(matches!(
            landing(&follow, &follow.steps[0], None, None, None),
            Landing::Unknown(_)
        ));
        assert!(matches!(
            landing(&follow, &follow.steps[0], None, Some(&evil), None),
            Landing::Left(_)
        ));
    }

    /// A navigate that follows a link by selector is judged by the link's `href` before it
    /// acts: out of the origin (the partner's help site, the IPv4-mapped address the browser
    /// calls another origin) is outside, a path inside is not, and a click is left to `landing`.
    #[test]
    fn a_link_followed_by_selector_is_judged_by_its_href() {
        let follow = login(|v| {
            let s = v["steps"][0].as_object_mut().unwrap();
            s.remove("value");
            s.insert("target".into(), "a.help".into());
        });
        let before = page(
            "http://127.0.0.1:8000/login.html",
            serde_json::json!([
                {"id": "/html", "tag": "html"},
                {"id": "/html/a", "parent": 0, "tag": "a",
                 "attrs": {"href": "https://help.partner.example/pay"}},
                {"id": "/html/a[2]", "parent": 0, "tag": "a", "attrs": {"href": "/help"}},
                {"id": "/html/a[3]", "parent": 0, "tag": "a",
                 "attrs": {"href": "http://[::ffff:127.0.0.1]:8000/"}}
            ]),
        );
        let out = |el: &str| link_out(&follow, &follow.steps[0], Some(&before), Some(el));
        assert!(
            out("/html/a").is_some_and(|w| w.contains("help.partner.example")),
            "{:?}",
            out("/html/a")
        );
        assert!(out("/html/a[3]").is_some());
        assert_eq!(out("/html/a[2]"), None);
        let plan = login(|_| {});
        assert_eq!(
            link_out(&plan, &plan.steps[3], Some(&before), Some("/html/a")),
            None,
            "not a navigate"
        );
    }

    #[test]
    fn a_failed_load_is_named_by_its_status_and_url() {
        let meta = |status: &str| {
            serde_json::json!([
                {"id": "/html", "tag": "html"},
                {"id": "/html/meta", "parent": 0, "tag": "meta",
                 "attrs": {"name": "stepreplay-status", "content": status}}
            ])
        };
        let missing = page("http://127.0.0.1:8000/nope.html", meta("404"));
        let why = failed_load(Some(&missing)).unwrap();
        assert!(why.contains("404") && why.contains("/nope.html"), "{why}");
        assert_eq!(
            failed_load(Some(&page("http://127.0.0.1:8000/", meta("200")))),
            None
        );
        let plain = page(
            "http://127.0.0.1:8000/",
            serde_json::json!([{"id": "/html", "tag": "html"}]),
        );
        assert_eq!(failed_load(Some(&plain)), None);
    }
}
