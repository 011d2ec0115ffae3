//! The emulator's warnings (unmodelled registers, misuse) and the LCD's
//! timing warnings (transfers while busy, short E pulses...).

use crate::app::sim::{Command, SimHandle, Snapshot};
use egui::RichText;

pub fn show(ui: &mut egui::Ui, snap: &Snapshot, sim: &SimHandle) {
    ui.horizontal(|ui| {
        ui.label(format!("{} emulator warnings, {} LCD warnings", snap.warning_count, snap.lcd_warning_count));
        if ui.button("Clear").clicked() {
            sim.send(Command::ClearWarnings);
        }
    });
    let half = (ui.available_height() / 2.0 - 30.0).max(80.0);
    for (title, list, total) in [("Emulator", &snap.warnings, snap.warning_count), ("LCD timing", &snap.lcd_warnings, snap.lcd_warning_count)] {
        ui.strong(title);
        if list.is_empty() {
            ui.weak("none");
        } else {
            if total as usize > list.len() {
                ui.weak(format!("(the last {} of {total})", list.len()));
            }
            egui::ScrollArea::vertical().id_salt(title).max_height(half).stick_to_bottom(true).show(ui, |ui| {
                for w in list.iter() {
                    ui.label(RichText::new(w).monospace().small());
                }
            });
        }
        ui.add_space(6.0);
    }
}
