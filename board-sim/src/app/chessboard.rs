//! The firmware's chess position, decoded from SRAM through its exported
//! `CHESS_POSITION` symbol (a `firmware::chess::Position`, `repr(C)`):
//! the first 128 bytes are a 0x88 board (index = rank * 16 + file, a1 = 0),
//! piece code in the low 4 bits (0 empty, 1..=6 white P N B R Q K, 7..=12
//! black P N B R Q K), bit 4 = has moved. The side to move follows the
//! board and the two 16-square piece lists, at offset 160.

use super::sim::{Snapshot, CHESS_POSITION};
use super::paint::Rects;
use egui::{Color32, Pos2, Rect, Sense, Vec2};

/// Offset of `side` in `Position`: board (128) + piece lists (2 x 16).
pub const SIDE_OFFSET: usize = 160;

/// A decoded board: `squares[rank][file]`, piece codes 0..=12.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decoded {
    pub squares: [[u8; 8]; 8],
    /// `Some(true)` white to move, `Some(false)` black, `None` if the byte is odd.
    pub white_to_move: Option<bool>,
    /// Bytes whose piece code is out of range (shown as '?').
    pub invalid: usize,
}

/// Decodes the position at `addr` of a data-space image.
pub fn decode(data: &[u8], addr: u16) -> Option<Decoded> {
    let a = addr as usize;
    let board = data.get(a..a + 128)?;
    let mut squares = [[0u8; 8]; 8];
    let mut invalid = 0;
    for (rank, row) in squares.iter_mut().enumerate() {
        for (file, sq) in row.iter_mut().enumerate() {
            let code = board[rank * 16 + file] & 0x0F;
            if code > 12 {
                invalid += 1;
            }
            *sq = code;
        }
    }
    let white_to_move = match data.get(a + SIDE_OFFSET) {
        Some(0) => Some(true),
        Some(1) => Some(false),
        _ => None,
    };
    Some(Decoded { squares, white_to_move, invalid })
}

/// The Unicode glyph of a piece code (solid glyphs, coloured when drawn).
pub fn glyph(code: u8) -> Option<char> {
    const GLYPHS: [char; 6] = ['♟', '♞', '♝', '♜', '♛', '♚'];
    // Without a font that has them, letters (white upper case).
    if !super::WIDE_FONT.load(std::sync::atomic::Ordering::Relaxed) {
        return b".PNBRQKpnbrqk".get(code as usize).map(|&b| b as char).filter(|&c| c != '.').or((code != 0).then_some('?'));
    }
    match code {
        1..=6 => Some(GLYPHS[code as usize - 1]),
        7..=12 => Some(GLYPHS[code as usize - 7]),
        0 => None,
        _ => Some('?'),
    }
}

/// FEN piece placement of a decoded board (for the tooltip and tests).
pub fn placement(d: &Decoded) -> String {
    const LETTERS: &[u8; 13] = b".PNBRQKpnbrqk";
    let mut out = String::new();
    for rank in (0..8).rev() {
        let mut empty = 0;
        for file in 0..8 {
            match d.squares[rank][file] {
                0 => empty += 1,
                c => {
                    if empty > 0 {
                        out.push(char::from(b'0' + empty));
                        empty = 0;
                    }
                    out.push(LETTERS.get(c as usize).map(|&b| b as char).unwrap_or('?'));
                }
            }
        }
        if empty > 0 {
            out.push(char::from(b'0' + empty));
        }
        if rank > 0 {
            out.push('/');
        }
    }
    out
}

pub fn show(ui: &mut egui::Ui, snap: &Snapshot) {
    ui.heading("Position");
    let Some(addr) = snap.program.chess_position else {
        ui.label(format!("This firmware exports no `{CHESS_POSITION}` symbol, so there is no position to show."));
        return;
    };
    let Some(d) = decode(&snap.sram, addr) else {
        ui.label(format!("`{CHESS_POSITION}` at 0x{addr:04x} lies outside SRAM."));
        return;
    };
    let side = (ui.available_width() - 30.0).clamp(200.0, 400.0);
    let sq = side / 8.0;
    let (rect, r) = ui.allocate_exact_size(Vec2::new(side + 18.0, side + 18.0), Sense::hover());
    let fen = placement(&d);
    r.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Label, true, format!("Position: {fen}")));
    let board = Rect::from_min_size(rect.min + Vec2::new(18.0, 0.0), Vec2::splat(side));
    let p = ui.painter_at(rect);
    // The squares go under the men: one mesh in this slot.
    let under = p.add(egui::Shape::Noop);
    let light = Color32::from_rgb(0xee, 0xd8, 0xb0);
    let dark = Color32::from_rgb(0xb0, 0x82, 0x5a);
    let mut squares = Rects::new(&p);
    for rank in 0..8 {
        for file in 0..8 {
            let cell = Rect::from_min_size(Pos2::new(board.left() + file as f32 * sq, board.top() + (7 - rank) as f32 * sq), Vec2::splat(sq));
            squares.add(cell, if (rank + file) % 2 == 0 { dark } else { light });
            let code = d.squares[rank][file];
            if let Some(g) = glyph(code) {
                let white = (1..=6).contains(&code);
                let font = egui::FontId::proportional(sq * 0.8);
                let (fill, edge) = if white { (Color32::WHITE, Color32::from_gray(20)) } else { (Color32::from_gray(15), Color32::from_gray(15)) };
                // An outline keeps the white men readable on light squares.
                for o in [Vec2::new(-1.0, 0.0), Vec2::new(1.0, 0.0), Vec2::new(0.0, -1.0), Vec2::new(0.0, 1.0)] {
                    p.text(cell.center() + o, egui::Align2::CENTER_CENTER, g, font.clone(), edge);
                }
                p.text(cell.center(), egui::Align2::CENTER_CENTER, g, font, fill);
            }
        }
    }
    p.set(under, squares.into_shape());
    let coord = egui::FontId::monospace(11.0);
    for i in 0..8 {
        p.text(Pos2::new(rect.left() + 8.0, board.top() + (7 - i) as f32 * sq + sq / 2.0), egui::Align2::CENTER_CENTER, (i + 1).to_string(), coord.clone(), Color32::GRAY);
        p.text(Pos2::new(board.left() + i as f32 * sq + sq / 2.0, board.bottom() + 9.0), egui::Align2::CENTER_CENTER, char::from(b'a' + i as u8).to_string(), coord.clone(), Color32::GRAY);
    }
    let to_move = match d.white_to_move {
        Some(true) => "white to move",
        Some(false) => "black to move",
        None => "side to move unknown",
    };
    ui.label(format!("{fen}  ({to_move}; {CHESS_POSITION} at 0x{addr:04x})"));
    if d.invalid > 0 {
        ui.colored_label(Color32::from_rgb(0xff, 0x90, 0x60), format!("{} squares hold invalid piece codes", d.invalid));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_the_initial_position() {
        let mut data = vec![0u8; 0x1100];
        let base = 0x200;
        let back = [4u8, 2, 3, 5, 6, 3, 2, 4];
        for f in 0..8 {
            data[base + f] = back[f];
            data[base + 16 + f] = 1;
            data[base + 6 * 16 + f] = 7 | 0x10; // moved flag must be ignored
            data[base + 7 * 16 + f] = back[f] + 6;
            data[base + f + 8] = 0xEE; // right half of the 0x88 board: not squares
        }
        data[base + SIDE_OFFSET] = 1;
        let d = decode(&data, base as u16).unwrap();
        assert_eq!(placement(&d), "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR");
        assert_eq!(d.white_to_move, Some(false));
        assert_eq!(d.invalid, 0);
        super::super::WIDE_FONT.store(true, std::sync::atomic::Ordering::Relaxed);
        assert_eq!(glyph(d.squares[0][4]), Some('♚'));
        assert!(decode(&data, 0x10F0).is_none());
    }
}
