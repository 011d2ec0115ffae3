//! The 2 KB of EEPROM (the emulator's `periph::Eeprom`), erased bytes dimmed.

use super::memory::hex_view;
use crate::app::sim::Snapshot;
use egui::Color32;

pub fn show(ui: &mut egui::Ui, snap: &Snapshot) {
    if snap.eeprom.is_empty() {
        ui.label("This machine has no EEPROM peripheral.");
        return;
    }
    let programmed = snap.eeprom.iter().filter(|&&b| b != 0xFF).count();
    ui.label(format!("{} bytes, {programmed} programmed (not 0xFF). Kept across power cycles and reloads of the same program.", snap.eeprom.len()));
    let last = (snap.eeprom.len() - 1) as u16;
    hex_view(
        ui,
        "eeprom-hex",
        &snap.eeprom,
        0,
        last,
        None,
        |a| (snap.eeprom[a as usize] != 0xFF).then_some(Color32::from_rgb(0x3b, 0x7d, 0xd8)),
        |_| None,
        |_| false,
    );
}
