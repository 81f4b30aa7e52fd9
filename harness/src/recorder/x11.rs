//! The X11 side of a live desktop: the screen's pixels (`GetImage`) and a person's hands
//! (XTEST clicks and keys), over a pure-Rust X connection.
//!
//! Text is typed key by key through the server's own keymap (Shift where the keymap puts a
//! character on its second level); a character the keymap lacks is bound for the moment to a
//! spare keycode, as `xdotool type` does.

use std::thread::sleep;
use std::time::Duration;

use image::RgbImage;
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{
    AtomEnum, BUTTON_PRESS_EVENT, BUTTON_RELEASE_EVENT, ConnectionExt as _, ImageFormat,
    ImageOrder, KEY_PRESS_EVENT, KEY_RELEASE_EVENT, MOTION_NOTIFY_EVENT, MapState,
};
use x11rb::protocol::xtest::ConnectionExt as _;
use x11rb::rust_connection::RustConnection;

use crate::errors::Error;
use crate::plan::keys::{Chord, Modifier};

/// A top-level window as the window manager lists it, its box on the screen (without the
/// client-side shadow GTK 4 draws around its windows).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ClientWindow {
    /// `_NET_WM_NAME` (else `WM_NAME`).
    pub(crate) title: String,
    /// `_NET_WM_PID`, when set.
    pub(crate) pid: Option<u32>,
    /// Left edge in screen pixels.
    pub(crate) x: i32,
    /// Top edge.
    pub(crate) y: i32,
    pub(crate) width: i32,
    pub(crate) height: i32,
}

/// One X connection to the display being recorded.
pub(crate) struct X11 {
    conn: RustConnection,
    root: u32,
    /// Screen width in pixels.
    pub(crate) width: u32,
    /// Screen height in pixels.
    pub(crate) height: u32,
    min_keycode: u8,
    per_keycode: usize,
    keysyms: Vec<u32>,
}

fn x_error(what: &str, e: impl std::fmt::Display) -> Error {
    Error::Desktop(format!("X11 {what}: {e}"))
}

/// The keysym X gives a character: Latin-1 as itself, the rest as `0x01000000 + code point`.
pub(crate) fn char_keysym(c: char) -> u32 {
    match c {
        '\n' | '\r' => 0xff0d,
        '\t' => 0xff09,
        ' '..='~' | '\u{a0}'..='\u{ff}' => c as u32,
        _ => 0x0100_0000 + c as u32,
    }
}

/// The keysym of a key as [`crate::plan::keys`] names it (`return`, `tab`, `a`, `f5`).
pub(crate) fn key_keysym(key: &str) -> Option<u32> {
    Some(match key {
        "return" => 0xff0d,
        "tab" => 0xff09,
        "escape" => 0xff1b,
        "backspace" => 0xff08,
        "delete" => 0xffff,
        "space" => 0x20,
        "home" => 0xff50,
        "left" => 0xff51,
        "up" => 0xff52,
        "right" => 0xff53,
        "down" => 0xff54,
        "pageup" | "page_up" | "prior" => 0xff55,
        "pagedown" | "page_down" | "next" => 0xff56,
        "end" => 0xff57,
        "insert" => 0xff63,
        "menu" => 0xff67,
        k if k.len() > 1 && k.starts_with('f') => {
            let n: u32 = k[1..].parse().ok().filter(|n| (1..=24).contains(n))?;
            0xffbe + n - 1
        }
        k => {
            let mut chars = k.chars();
            let c = chars.next()?;
            if chars.next().is_some() {
                return None;
            }
            char_keysym(c)
        }
    })
}

fn modifier_keysym(m: Modifier) -> u32 {
    match m {
        Modifier::Control => 0xffe3,
        Modifier::Shift => 0xffe1,
        Modifier::Option => 0xffe9,
        Modifier::Command => 0xffeb,
    }
}

impl X11 {
    /// Connects to `display` (`:99`).
    pub(crate) fn connect(display: &str) -> Result<X11, Error> {
        let (conn, screen) = x11rb::connect(Some(display)).map_err(|e| x_error("connect", e))?;
        let setup = conn.setup();
        let s = &setup.roots[screen];
        let (root, width, height) = (s.root, s.width_in_pixels as u32, s.height_in_pixels as u32);
        let min_keycode = setup.min_keycode;
        let count = setup.max_keycode - setup.min_keycode + 1;
        let map = conn
            .get_keyboard_mapping(min_keycode, count)
            .map_err(|e| x_error("keymap", e))?
            .reply()
            .map_err(|e| x_error("keymap", e))?;
        Ok(X11 {
            root,
            width,
            height,
            min_keycode,
            per_keycode: map.keysyms_per_keycode as usize,
            keysyms: map.keysyms,
            conn,
        })
    }

    /// The whole screen.
    pub(crate) fn screenshot(&self) -> Result<RgbImage, Error> {
        let reply = self
            .conn
            .get_image(
                ImageFormat::Z_PIXMAP,
                self.root,
                0,
                0,
                self.width as u16,
                self.height as u16,
                !0,
            )
            .map_err(|e| x_error("GetImage", e))?
            .reply()
            .map_err(|e| x_error("GetImage", e))?;
        let setup = self.conn.setup();
        let bpp = setup
            .pixmap_formats
            .iter()
            .find(|f| f.depth == reply.depth)
            .map(|f| f.bits_per_pixel);
        if bpp != Some(32) || reply.depth < 24 {
            return Err(Error::Desktop(format!(
                "the display has depth {} at {bpp:?} bits per pixel; the recorder reads 24-bit \
                 colour in 32-bit pixels (start Xvfb with -screen 0 WxHx24)",
                reply.depth
            )));
        }
        let lsb = setup.image_byte_order == ImageOrder::LSB_FIRST;
        let (w, h) = (self.width, self.height);
        let data = &reply.data;
        if data.len() < (w * h * 4) as usize {
            return Err(Error::Desktop("GetImage returned a short image".into()));
        }
        let mut out = RgbImage::new(w, h);
        for (px, chunk) in out.pixels_mut().zip(data.chunks_exact(4)) {
            px.0 = if lsb {
                [chunk[2], chunk[1], chunk[0]]
            } else {
                [chunk[1], chunk[2], chunk[3]]
            };
        }
        Ok(out)
    }

    fn atom(&self, name: &str) -> Result<u32, Error> {
        Ok(self
            .conn
            .intern_atom(false, name.as_bytes())
            .map_err(|e| x_error("atom", e))?
            .reply()
            .map_err(|e| x_error("atom", e))?
            .atom)
    }

    fn property(&self, win: u32, name: &str, kind: u32) -> Result<Vec<u8>, Error> {
        let atom = self.atom(name)?;
        let reply = self
            .conn
            .get_property(false, win, atom, kind, 0, 4096)
            .map_err(|e| x_error("property", e))?
            .reply()
            .map_err(|e| x_error("property", e))?;
        Ok(reply.value)
    }

    fn cardinals(&self, win: u32, name: &str) -> Result<Vec<u32>, Error> {
        let bytes = self.property(win, name, u32::from(AtomEnum::CARDINAL))?;
        Ok(bytes
            .chunks_exact(4)
            .map(|c| u32::from_ne_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    }

    /// The managed top-level windows (`_NET_CLIENT_LIST`), with their boxes on screen; empty
    /// without a window manager that keeps the list.
    pub(crate) fn client_windows(&self) -> Result<Vec<ClientWindow>, Error> {
        let list = self.property(self.root, "_NET_CLIENT_LIST", u32::from(AtomEnum::WINDOW))?;
        let utf8 = self.atom("UTF8_STRING")?;
        let mut out = Vec::new();
        for c in list.chunks_exact(4) {
            let win = u32::from_ne_bytes([c[0], c[1], c[2], c[3]]);
            let Ok(geo) = self
                .conn
                .get_geometry(win)
                .map_err(|e| x_error("geometry", e))
            else {
                continue;
            };
            let Ok(geo) = geo.reply() else { continue };
            let Ok(pos) = self.conn.translate_coordinates(win, self.root, 0, 0) else {
                continue;
            };
            let Ok(pos) = pos.reply() else { continue };
            let mut title =
                String::from_utf8_lossy(&self.property(win, "_NET_WM_NAME", utf8)?).into_owned();
            if title.is_empty() {
                let name = self.property(win, "WM_NAME", u32::from(AtomEnum::STRING))?;
                title = String::from_utf8_lossy(&name).into_owned();
            }
            let pid = self.cardinals(win, "_NET_WM_PID")?.first().copied();
            // left, right, top, bottom: the shadow a client-side-decorated window draws.
            let shadow = self.cardinals(win, "_GTK_FRAME_EXTENTS")?;
            let [l, r, t, b] = match shadow.as_slice() {
                [l, r, t, b] => [*l as i32, *r as i32, *t as i32, *b as i32],
                _ => [0; 4],
            };
            out.push(ClientWindow {
                title,
                pid,
                x: i32::from(pos.dst_x) + l,
                y: i32::from(pos.dst_y) + t,
                width: i32::from(geo.width) - l - r,
                height: i32::from(geo.height) - t - b,
            });
        }
        Ok(out)
    }

    /// Mapped override-redirect windows (menus, popovers, tooltips: surfaces the window
    /// manager does not manage), as boxes on the screen.
    pub(crate) fn popup_windows(&self) -> Result<Vec<ClientWindow>, Error> {
        let tree = self
            .conn
            .query_tree(self.root)
            .map_err(|e| x_error("tree", e))?
            .reply()
            .map_err(|e| x_error("tree", e))?;
        let mut out = Vec::new();
        for win in tree.children {
            let Ok(Ok(attrs)) = self.conn.get_window_attributes(win).map(|c| c.reply()) else {
                continue;
            };
            if !attrs.override_redirect || attrs.map_state != MapState::VIEWABLE {
                continue;
            }
            let Ok(Ok(geo)) = self.conn.get_geometry(win).map(|c| c.reply()) else {
                continue;
            };
            out.push(ClientWindow {
                title: String::new(),
                pid: None,
                x: i32::from(geo.x),
                y: i32::from(geo.y),
                width: i32::from(geo.width),
                height: i32::from(geo.height),
            });
        }
        Ok(out)
    }

    fn fake(&self, kind: u8, detail: u8, x: i16, y: i16) -> Result<(), Error> {
        self.conn
            .xtest_fake_input(kind, detail, 0, self.root, x, y, 0)
            .map_err(|e| x_error("XTEST", e))?;
        Ok(())
    }

    /// Waits until the server has handled everything sent so far.
    fn sync(&self) -> Result<(), Error> {
        self.conn
            .get_input_focus()
            .map_err(|e| x_error("sync", e))?
            .reply()
            .map_err(|e| x_error("sync", e))?;
        Ok(())
    }

    /// Moves the pointer to `(x, y)` and clicks `button` (1 left, 2 middle, 3 right) `count`
    /// times, holding `modifiers`.
    pub(crate) fn click(
        &self,
        x: i32,
        y: i32,
        button: u8,
        count: u8,
        mods: &[Modifier],
    ) -> Result<(), Error> {
        let (x, y) = (
            x.clamp(0, i16::MAX as i32) as i16,
            y.clamp(0, i16::MAX as i32) as i16,
        );
        self.fake(MOTION_NOTIFY_EVENT, 0, x, y)?;
        self.sync()?;
        sleep(Duration::from_millis(60));
        let held = self.press_modifiers(mods)?;
        for i in 0..count {
            if i > 0 {
                sleep(Duration::from_millis(60));
            }
            self.fake(BUTTON_PRESS_EVENT, button, 0, 0)?;
            self.sync()?;
            sleep(Duration::from_millis(30));
            self.fake(BUTTON_RELEASE_EVENT, button, 0, 0)?;
            self.sync()?;
        }
        self.release(&held)
    }

    fn keycode_of(&self, keysym: u32) -> Option<(u8, bool)> {
        for (i, syms) in self.keysyms.chunks(self.per_keycode.max(1)).enumerate() {
            for (level, &s) in syms.iter().take(2).enumerate() {
                if s == keysym {
                    return Some((self.min_keycode + i as u8, level == 1));
                }
            }
        }
        None
    }

    fn tap(&self, code: u8) -> Result<(), Error> {
        self.fake(KEY_PRESS_EVENT, code, 0, 0)?;
        self.sync()?;
        sleep(Duration::from_millis(8));
        self.fake(KEY_RELEASE_EVENT, code, 0, 0)?;
        self.sync()?;
        sleep(Duration::from_millis(8));
        Ok(())
    }

    fn press_modifiers(&self, mods: &[Modifier]) -> Result<Vec<u8>, Error> {
        let mut held = Vec::new();
        for m in mods {
            let code = self
                .keycode_of(modifier_keysym(*m))
                .ok_or_else(|| Error::Desktop(format!("the keymap has no {m:?} key")))?
                .0;
            self.fake(KEY_PRESS_EVENT, code, 0, 0)?;
            held.push(code);
        }
        self.sync()?;
        Ok(held)
    }

    fn release(&self, held: &[u8]) -> Result<(), Error> {
        for &code in held.iter().rev() {
            self.fake(KEY_RELEASE_EVENT, code, 0, 0)?;
        }
        self.sync()
    }

    /// Types one keysym: with Shift where the keymap wants it, through a spare keycode where
    /// the keymap lacks it.
    fn type_keysym(&mut self, keysym: u32) -> Result<(), Error> {
        if let Some((code, shift)) = self.keycode_of(keysym) {
            let held = if shift {
                self.press_modifiers(&[Modifier::Shift])?
            } else {
                Vec::new()
            };
            self.tap(code)?;
            return self.release(&held);
        }
        let per = self.per_keycode.max(1);
        let spare = self
            .keysyms
            .chunks(per)
            .rposition(|syms| syms.iter().all(|&s| s == 0))
            .ok_or_else(|| {
                Error::Desktop("no spare keycode to type an unmapped character".into())
            })?;
        let code = self.min_keycode + spare as u8;
        let bind = |syms: &[u32]| -> Result<(), Error> {
            self.conn
                .change_keyboard_mapping(1, code, per as u8, syms)
                .map_err(|e| x_error("keymap", e))?;
            self.sync()?;
            // Clients reload their keymap on MappingNotify; give them the moment.
            sleep(Duration::from_millis(40));
            Ok(())
        };
        bind(&vec![keysym; per])?;
        let typed = self.tap(code);
        bind(&vec![0; per])?;
        typed
    }

    /// Types `text` into whatever has the keyboard focus.
    pub(crate) fn type_text(&mut self, text: &str) -> Result<(), Error> {
        for c in text.chars() {
            self.type_keysym(char_keysym(c))?;
        }
        Ok(())
    }

    /// Presses a chord: its modifiers held around one key.
    pub(crate) fn press(&mut self, chord: &Chord) -> Result<(), Error> {
        let keysym = key_keysym(&chord.key)
            .ok_or_else(|| Error::Desktop(format!("no X key for {:?}", chord.key)))?;
        let mods: Vec<Modifier> = chord.modifiers.iter().copied().collect();
        let held = self.press_modifiers(&mods)?;
        let result = match self.keycode_of(keysym) {
            Some((code, _)) => self.tap(code),
            None => self.type_keysym(keysym),
        };
        self.release(&held)?;
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn characters_and_keys_have_the_keysyms_x_gives_them() {
        assert_eq!(char_keysym('a'), 0x61);
        assert_eq!(char_keysym('é'), 0xe9);
        assert_eq!(char_keysym('€'), 0x0100_20ac);
        assert_eq!(char_keysym('\n'), 0xff0d);
        assert_eq!(key_keysym("return"), Some(0xff0d));
        assert_eq!(key_keysym("f5"), Some(0xffc2));
        assert_eq!(key_keysym("a"), Some(0x61));
        assert_eq!(key_keysym("f99"), None);
        assert_eq!(key_keysym("hyperdrive"), None);
    }
}
