//! The accessibility tree of the live app, read over AT-SPI with the `atspi` client on tokio,
//! written in the `realrec.atspi/1` shape that `stepreplay import` reads — so a recording
//! made here goes through the same role map and name rules as any other real recording.
//!
//! The whole tree is read at every frame, containers without geometry included (a GTK 4
//! popover's or a notebook page's controls hang under them). Each node's properties are asked
//! for at once (one round of D-Bus calls per node, not one per property). Nothing in a dump
//! depends on the clock or on process ids, so two recordings of one script compare equal.

use std::collections::{BTreeMap, HashMap};
use std::time::{Duration, Instant};

use atspi::proxy::accessible::AccessibleProxy;
use atspi::proxy::action::ActionProxy;
use atspi::proxy::bus::{BusProxy, StatusProxy};
use atspi::proxy::component::ComponentProxy;
use atspi::proxy::text::TextProxy;
use atspi::proxy::value::ValueProxy;
use atspi::zbus;
use atspi::{CoordType, Interface, RelationType, State};
use serde_json::{Value, json};
use zbus::proxy::CacheProperties;

use crate::errors::Error;
use crate::limits;

use super::session::check_stop;

/// The schema of a dump (the importer's `REALREC_ATSPI_SCHEMA`).
pub(crate) use crate::import::atspi::REALREC_ATSPI_SCHEMA;

/// Longest text read from one node.
const MAX_TEXT_CHARS: i32 = 4096;

const REGISTRY: &str = "org.a11y.atspi.Registry";
const ROOT_PATH: &str = "/org/a11y/atspi/accessible/root";

/// A connection to the AT-SPI bus of one session.
pub(crate) struct TreeReader {
    rt: tokio::runtime::Runtime,
    conn: zbus::Connection,
    dbus: zbus::fdo::DBusProxy<'static>,
}

fn bus_error(what: &str, e: impl std::fmt::Display) -> Error {
    Error::Desktop(format!("AT-SPI {what}: {e}"))
}

/// One node as read, before relations are turned into paths.
struct Raw {
    node: serde_json::Map<String, Value>,
    key: (String, String),
    relations: Vec<(RelationType, Vec<(String, String)>)>,
    children: Vec<Raw>,
}

impl TreeReader {
    /// Connects to the session bus at `session_bus`, turns accessibility on, and connects to
    /// the accessibility bus it names (waiting up to 15 s for the AT-SPI bus launcher).
    pub(crate) fn connect(
        session_bus: &str,
        stop: &std::sync::atomic::AtomicBool,
    ) -> Result<TreeReader, Error> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| bus_error("runtime", e))?;
        let (conn, dbus) = rt.block_on(async {
            let session = zbus::connection::Builder::address(session_bus)
                .map_err(|e| bus_error("session bus address", e))?
                .build()
                .await
                .map_err(|e| bus_error("session bus", e))?;
            let deadline = Instant::now() + Duration::from_secs(15);
            let address = loop {
                check_stop(stop)?;
                let got = async {
                    let bus = BusProxy::new(&session).await?;
                    let status = StatusProxy::new(&session).await?;
                    status.set_is_enabled(true).await?;
                    bus.get_address().await
                }
                .await;
                match got {
                    Ok(a) if !a.is_empty() => break a,
                    Ok(_) | Err(_) if Instant::now() < deadline => {
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                    Ok(_) => return Err(bus_error("bus", "the a11y bus has no address")),
                    Err(e) => return Err(bus_error("bus (is at-spi2-core installed?)", e)),
                }
            };
            let conn = zbus::connection::Builder::address(address.as_str())
                .map_err(|e| bus_error("a11y bus address", e))?
                .build()
                .await
                .map_err(|e| bus_error("a11y bus", e))?;
            let dbus = zbus::fdo::DBusProxy::new(&conn)
                .await
                .map_err(|e| bus_error("a11y bus", e))?;
            Ok::<_, Error>((conn, dbus))
        })?;
        Ok(TreeReader { rt, conn, dbus })
    }

    /// The bus names of the applications on the bus, with their process ids.
    pub(crate) fn applications(&self) -> Result<Vec<(String, String, Option<u32>)>, Error> {
        self.rt.block_on(async {
            let root = self.proxy(REGISTRY, ROOT_PATH).await?;
            let apps = root
                .get_children()
                .await
                .map_err(|e| bus_error("registry", e))?;
            let mut out = Vec::new();
            for app in apps {
                let Some(name) = app.name_as_str().map(str::to_string) else {
                    continue;
                };
                let pid = match zbus::names::BusName::try_from(name.as_str()) {
                    Ok(bus) => self.dbus.get_connection_unix_process_id(bus).await.ok(),
                    Err(_) => None,
                };
                out.push((name, app.path_as_str().to_string(), pid));
            }
            Ok(out)
        })
    }

    async fn proxy(&self, dest: &str, path: &str) -> Result<AccessibleProxy<'static>, Error> {
        self.sub::<AccessibleProxy>(dest, path).await
    }

    /// The tree of the apps whose process is one of `pids` (every app when `None`), in the
    /// `realrec.atspi/1` shape. `scrub` lists secrets replaced wherever they would show.
    pub(crate) fn dump(
        &self,
        pids: Option<&[u32]>,
        screen: (u32, u32),
        frame: &str,
        scrub: &[&str],
    ) -> Result<Value, Error> {
        let apps = self.applications()?;
        self.rt.block_on(async {
            let mut budget = limits::RECORD_NODES;
            let mut roots = Vec::new();
            for (name, path, pid) in apps {
                if let Some(pids) = pids
                    && !pid.is_some_and(|p| pids.contains(&p))
                {
                    continue;
                }
                let path_str = roots.len().to_string();
                // An app that quits while we read it is simply not in this frame.
                if let Ok(raw) = self.read(&name, &path, path_str, &mut budget).await {
                    roots.push(raw);
                }
            }
            let mut paths = HashMap::new();
            for r in &roots {
                index_paths(r, &mut paths);
            }
            let mut count = 0;
            let applications: Vec<Value> = roots
                .into_iter()
                .map(|r| finish(r, &paths, scrub, &mut count))
                .collect();
            Ok(json!({
                "schema": REALREC_ATSPI_SCHEMA,
                "frame": frame,
                "coord_type": "screen",
                "screen": { "width": screen.0, "height": screen.1 },
                "node_count": count,
                "truncated": budget == 0,
                "applications": applications,
            }))
        })
    }

    /// Reads one node and (depth first) its children.
    fn read<'s>(
        &'s self,
        dest: &'s str,
        path: &'s str,
        index_path: String,
        budget: &'s mut usize,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<Raw, Error>> + 's>> {
        Box::pin(async move {
            *budget = budget.saturating_sub(1);
            let acc = self.proxy(dest, path).await?;
            let (role, name, description, states, ifaces, attrs, children, relations) = tokio::join!(
                acc.get_role_name(),
                acc.name(),
                acc.description(),
                acc.get_state(),
                acc.get_interfaces(),
                acc.get_attributes(),
                acc.get_children(),
                acc.get_relation_set(),
            );
            let role = role.map_err(|e| bus_error("role", e))?;
            let states: Vec<String> = {
                let mut v: Vec<String> = states
                    .map(|s| s.iter().map(|st: State| st.to_string()).collect())
                    .unwrap_or_default();
                v.sort();
                v
            };
            let ifaces: Vec<Interface> = ifaces.map(|i| i.iter().collect()).unwrap_or_default();
            let has = |i: Interface| ifaces.contains(&i);
            let mut iface_names: Vec<String> = ifaces
                .iter()
                .filter_map(|i| serde_json::to_value(i).ok())
                .filter_map(|v| {
                    v.as_str()
                        .map(|s| s.trim_start_matches("org.a11y.atspi.").to_string())
                })
                .filter(|s| s != "Accessible")
                .collect();
            iface_names.sort();
            let mut node = serde_json::Map::new();
            node.insert("path".into(), json!(index_path));
            node.insert("role".into(), json!(role));
            node.insert("name".into(), json!(name.unwrap_or_default()));
            node.insert("description".into(), json!(description.unwrap_or_default()));
            let extents = self.extents(dest, path, has(Interface::Component)).await?;
            node.insert("states".into(), json!(states));
            node.insert("extents".into(), extents);
            self.contents_into(dest, path, &role, &ifaces, &mut node)
                .await?;
            node.insert("interfaces".into(), json!(iface_names));
            let attrs: BTreeMap<String, String> =
                attrs.map(|m| m.into_iter().collect()).unwrap_or_default();
            node.insert("attributes".into(), json!(attrs));
            let relations = relations
                .unwrap_or_default()
                .into_iter()
                .filter(|(kind, _)| {
                    matches!(kind, RelationType::LabelledBy | RelationType::LabelFor)
                })
                .map(|(kind, targets)| {
                    let t = targets
                        .iter()
                        .filter_map(|o| {
                            Some((o.name_as_str()?.to_string(), o.path_as_str().to_string()))
                        })
                        .collect();
                    (kind, t)
                })
                .collect();
            let children = children.unwrap_or_default();
            node.insert("child_count".into(), json!(children.len()));
            let mut kids = Vec::new();
            for (i, c) in children.iter().enumerate() {
                if *budget == 0 {
                    break;
                }
                let (Some(cd), cp) = (c.name_as_str(), c.path_as_str()) else {
                    continue;
                };
                // A child that went away between the list and the read is skipped.
                if let Ok(raw) = self.read(cd, cp, format!("{index_path}/{i}"), budget).await {
                    kids.push(raw);
                }
            }
            Ok(Raw {
                node,
                key: (dest.to_string(), path.to_string()),
                relations,
                children: kids,
            })
        })
    }

    /// A node's box on the screen, when it has the Component interface and a non-empty one.
    async fn extents(&self, dest: &str, path: &str, component: bool) -> Result<Value, Error> {
        let mut extents = Value::Null;
        // GTK 4.8 sets `showing` on windows only, so every component is asked.
        if component {
            let c = self.sub::<ComponentProxy>(dest, path).await?;
            // A negative size is kept as it is (the Java ATK wrapper's windows say -1), for
            // `place` to mend from the X window and import to read as no geometry.
            if let Ok((x, y, w, h)) = c.get_extents(CoordType::Screen).await
                && ((w > 0 && h > 0) || w < 0 || h < 0)
            {
                extents = json!({ "x": x, "y": y, "width": w, "height": h });
            }
        }
        Ok(extents)
    }

    /// What a node's Text, Value and Action interfaces say, into `node`. A password field's
    /// text is never read.
    async fn contents_into(
        &self,
        dest: &str,
        path: &str,
        role: &str,
        ifaces: &[Interface],
        node: &mut serde_json::Map<String, Value>,
    ) -> Result<(), Error> {
        let has = |i: Interface| ifaces.contains(&i);
        if has(Interface::Text) {
            let t = self.sub::<TextProxy>(dest, path).await?;
            let n = t.character_count().await.unwrap_or(0).min(MAX_TEXT_CHARS);
            let text = if role == "password text" {
                // A secret field's text is never read, whatever it holds.
                String::new()
            } else {
                t.get_text(0, n).await.unwrap_or_default()
            };
            node.insert("text".into(), json!(text));
        }
        if has(Interface::Value) {
            let v = self.sub::<ValueProxy>(dest, path).await?;
            if let Ok(x) = v.current_value().await {
                node.insert("value".into(), json!(x));
            }
        }
        if has(Interface::Action) {
            let a = self.sub::<ActionProxy>(dest, path).await?;
            let names: Vec<String> = a
                .get_actions()
                .await
                .map(|v| v.into_iter().map(|a| a.name).collect())
                .unwrap_or_default();
            node.insert("actions".into(), json!(names));
        }
        Ok(())
    }

    async fn sub<P>(&self, dest: &str, path: &str) -> Result<P, Error>
    where
        P: From<zbus::Proxy<'static>> + zbus::proxy::Defaults,
    {
        let inner = zbus::proxy::Builder::<P>::new(&self.conn)
            .destination(dest.to_string())
            .and_then(|b| b.path(path.to_string()))
            .map_err(|e| bus_error("proxy", e))?
            .cache_properties(CacheProperties::No)
            .build()
            .await
            .map_err(|e| bus_error("proxy", e))?;
        Ok(inner)
    }
}

fn index_paths(r: &Raw, out: &mut HashMap<(String, String), (String, String, String)>) {
    let get = |k: &str| {
        r.node
            .get(k)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    out.insert(r.key.clone(), (get("path"), get("role"), get("name")));
    for c in &r.children {
        index_paths(c, out);
    }
}

fn scrub_text(s: &str, scrub: &[&str]) -> String {
    let mut out = s.to_string();
    for secret in scrub.iter().filter(|s| !s.is_empty()) {
        out = out.replace(secret, crate::secret::REDACTED);
    }
    out
}

/// Turns relations into `{type, targets: [{path, role, name}]}`, scrubs secrets and counts.
fn finish(
    r: Raw,
    paths: &HashMap<(String, String), (String, String, String)>,
    scrub: &[&str],
    count: &mut usize,
) -> Value {
    *count += 1;
    let mut node = r.node;
    for key in ["name", "description", "text"] {
        if let Some(Value::String(s)) = node.get(key) {
            let clean = scrub_text(s, scrub);
            node.insert(key.into(), Value::String(clean));
        }
    }
    let relations: Vec<Value> = r
        .relations
        .into_iter()
        .map(|(kind, targets)| {
            let kind = match kind {
                RelationType::LabelledBy => "labelled-by",
                _ => "label-for",
            };
            let targets: Vec<Value> = targets
                .iter()
                .filter_map(|k| paths.get(k))
                .map(|(p, role, name)| json!({ "path": p, "role": role, "name": scrub_text(name, scrub) }))
                .collect();
            json!({ "type": kind, "targets": targets })
        })
        .filter(|v| v["targets"].as_array().is_some_and(|t| !t.is_empty()))
        .collect();
    if !relations.is_empty() {
        node.insert("relations".into(), Value::Array(relations));
    }
    let children: Vec<Value> = r
        .children
        .into_iter()
        .map(|c| finish(c, paths, scrub, count))
        .collect();
    node.insert("children".into(), Value::Array(children));
    Value::Object(node)
}
