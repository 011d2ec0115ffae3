//! The four push buttons (mouse: press, hold, release; keyboard: M, Up,
//! Down, Enter by default) and the buzzer indicator.

use super::paint::ShapePicture;
use super::sim::{Command, SimHandle, Snapshot};
use egui::{Color32, Key, Sense, Vec2};
use firmware::board::Button;

const MOUSE: u8 = 1;
const KEY: u8 = 2;

/// Who holds which button, and the key bindings.
#[derive(Clone, Debug)]
pub struct ButtonsState {
    /// Per button: MOUSE | KEY bits of what holds it down.
    pub held_by: [u8; 4],
    /// Per button (in `Button` order): its keyboard key.
    pub keys: [Key; 4],
}

impl Default for ButtonsState {
    fn default() -> Self {
        ButtonsState { held_by: [0; 4], keys: [Key::M, Key::ArrowUp, Key::ArrowDown, Key::Enter] }
    }
}

pub fn name(b: Button) -> &'static str {
    match b {
        Button::Menu => "MENU",
        Button::Up => "UP",
        Button::Down => "DOWN",
        Button::Enter => "ENTER",
    }
}

impl ButtonsState {
    pub fn button_for_key(&self, key: Key) -> Option<Button> {
        Button::ALL.into_iter().find(|&b| self.keys[b as usize] == key)
    }

    fn set(&mut self, b: Button, source: u8, down: bool, sim: &SimHandle) {
        let before = self.held_by[b as usize] != 0;
        if down {
            self.held_by[b as usize] |= source;
        } else {
            self.held_by[b as usize] &= !source;
        }
        let after = self.held_by[b as usize] != 0;
        if after && !before {
            sim.send(Command::Press(b));
        } else if before && !after {
            sim.send(Command::Release(b));
        }
    }

    pub fn key_changed(&mut self, b: Button, down: bool, sim: &SimHandle) {
        self.set(b, KEY, down, sim);
    }

    /// The window lost focus: nothing can be held any more.
    pub fn release_all(&mut self, sim: &SimHandle) {
        for b in Button::ALL {
            self.set(b, MOUSE | KEY, false, sim);
        }
    }
}

pub fn show(ui: &mut egui::Ui, snap: &Snapshot, state: &mut ButtonsState, sim: &SimHandle) {
    ui.horizontal(|ui| {
        // The buttons' and the buzzer's shapes go under their labels, as one
        // picture in this slot.
        let under = ui.painter().add(egui::Shape::Noop);
        let mut shapes = ShapePicture::default();
        ui.add_space(8.0);
        for b in Button::ALL {
            {
                let size = Vec2::new(72.0, 48.0);
                let (outer, _) = ui.allocate_exact_size(size + Vec2::new(0.0, 18.0), Sense::hover());
                let rect = egui::Rect::from_min_size(outer.min, size);
                let r = ui.interact(rect, ui.scope_id().with(("button", b as u8)), Sense::click());
                r.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, name(b)));
                let mouse_was = state.held_by[b as usize] & MOUSE != 0;
                let down = r.is_pointer_button_down_on();
                if r.clicked() && !mouse_was {
                    // Pressed and released within one frame: a quick click.
                    // The emulator stretches it to a press the firmware sees.
                    state.set(b, MOUSE, true, sim);
                    state.set(b, MOUSE, false, sim);
                } else if down != mouse_was {
                    state.set(b, MOUSE, down, sim);
                }
                let held = state.held_by[b as usize] != 0 || snap.buttons_held[b as usize];
                let painter = ui.painter();
                let cap = rect.shrink(if held { 5.0 } else { 3.0 });
                shapes.rect_filled(rect, 10.0, Color32::from_rgb(0x11, 0x13, 0x16));
                let face = if held {
                    Color32::from_rgb(0x4a, 0x50, 0x5a)
                } else if r.hovered() {
                    Color32::from_rgb(0x6a, 0x72, 0x7e)
                } else {
                    Color32::from_rgb(0x5b, 0x62, 0x6d)
                };
                shapes.rect_filled(cap, 8.0, face);
                shapes.rect_stroke(cap, 8.0, 1.0, Color32::from_gray(if held { 60 } else { 130 }));
                painter.text(cap.center(), egui::Align2::CENTER_CENTER, name(b), egui::FontId::proportional(15.0), Color32::WHITE);
                // The pin as the chip sees it: lit while the contact pulls it low.
                let led = egui::Pos2::new(rect.right() - 9.0, rect.top() + 9.0);
                let lit = snap.button_pins_low[b as usize] && snap.powered;
                shapes.circle_filled(led, 3.0, if lit { Color32::from_rgb(0xff, 0x9a, 0x2e) } else { Color32::from_gray(40) });
                let hint = egui::Pos2::new(rect.center().x, rect.bottom() + 10.0);
                painter.text(hint, egui::Align2::CENTER_CENTER, key_label(state.keys[b as usize]), egui::FontId::proportional(12.0), Color32::GRAY);
            }
            ui.add_space(6.0);
        }
        ui.add_space(4.0);
        buzzer(ui, snap, &mut shapes);
        let picture = shapes.into_shape(ui.painter(), ui.scope_id().with("button-shapes"));
        ui.painter().set(under, picture);
    });
}

fn key_label(k: Key) -> String {
    match k {
        Key::ArrowUp => "key Up".into(),
        Key::ArrowDown => "key Down".into(),
        other => format!("key {}", other.name()),
    }
}

fn buzzer(ui: &mut egui::Ui, snap: &Snapshot, shapes: &mut ShapePicture) {
    {
        let (outer, _) = ui.allocate_exact_size(Vec2::new(70.0, 66.0), Sense::hover());
        let rect = egui::Rect::from_center_size(egui::Pos2::new(outer.center().x, outer.top() + 26.0), Vec2::splat(52.0));
        let p = ui.painter();
        let sounding = snap.tone.is_some() && snap.running;
        shapes.circle_filled(rect.center(), 22.0, Color32::from_rgb(0x14, 0x15, 0x17));
        shapes.circle_stroke(rect.center(), 22.0, 2.0, if sounding { Color32::from_rgb(0xff, 0xb0, 0x30) } else { Color32::from_gray(70) });
        shapes.circle_filled(rect.center(), 4.0, Color32::from_gray(50));
        if sounding {
            for r in [28.0, 33.0] {
                shapes.circle_stroke(rect.center(), r - 6.0, 1.5, Color32::from_rgba_unmultiplied(0xff, 0xb0, 0x30, 120));
            }
        }
        let text = match snap.tone {
            Some(hz) => format!("♪ {hz:.0} Hz"),
            None => "buzzer".into(),
        };
        p.text(egui::Pos2::new(rect.center().x, rect.bottom() + 10.0), egui::Align2::CENTER_CENTER, text, egui::FontId::proportional(12.0), Color32::GRAY);
    }
    #[cfg(feature = "audio")]
    if !crate::audio::available() {
        ui.weak("🔇 no audio device");
    }
}
