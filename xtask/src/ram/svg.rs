//! `target/ram-map.svg`: the 4 KB of SRAM and the 64 KB of flash as two
//! bars, written as plain SVG text.

use super::static_map::StaticMap;
use std::fmt::Write as _;

const LEFT: f64 = 40.0;
const WIDTH: f64 = 1000.0;
const RAM_START: u32 = 0x0100;
const RAM_END: u32 = 0x10FF;
const RAM_BYTES: f64 = 4096.0;
const FLASH_BYTES: f64 = 65536.0;

/// What the picture shows besides the static map.
pub struct Marks {
    /// Lowest SP measured (the stack used `min_sp + 1 ..= 0x10FF`).
    pub min_sp: Option<u16>,
    /// Static stack bound in bytes, when finite.
    pub bound: Option<u32>,
    /// Total RAM budget (static + stack), bytes.
    pub budget: u32,
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

fn short(name: &str) -> String {
    let s = super::stack_bound::short(name);
    if s.len() > 40 {
        format!("{}…", &s[..s.char_indices().take_while(|(i, _)| *i < 39).last().map(|(i, c)| i + c.len_utf8()).unwrap_or(0)])
    } else {
        s
    }
}

struct Bar<'a> {
    out: &'a mut String,
    y: f64,
    h: f64,
    origin: u32,
    bytes: f64,
}

impl Bar<'_> {
    fn x(&self, addr: u32) -> f64 {
        LEFT + (addr.saturating_sub(self.origin)) as f64 * WIDTH / self.bytes
    }

    fn rect(&mut self, start: u32, end: u32, fill: &str, title: &str) {
        if end <= start {
            return;
        }
        let (x0, x1) = (self.x(start), self.x(end));
        let _ = writeln!(
            self.out,
            r##"<rect x="{x0:.2}" y="{:.1}" width="{:.2}" height="{:.1}" fill="{fill}" stroke="#333" stroke-width="0.3"><title>{}</title></rect>"##,
            self.y,
            (x1 - x0).max(0.6),
            self.h,
            esc(title)
        );
    }

    /// A region name inside the bar if it fits, else above it.
    fn region_label(&mut self, start: u32, end: u32, text: &str) {
        let (x0, x1) = (self.x(start), self.x(end));
        let fits = (x1 - x0) > text.len() as f64 * 6.2;
        let (x, y, anchor) = if fits {
            ((x0 + x1) / 2.0, self.y + self.h / 2.0 + 4.0, "middle")
        } else {
            (x0, self.y - 4.0, "start")
        };
        let _ = writeln!(self.out, r#"<text x="{x:.2}" y="{y:.1}" text-anchor="{anchor}" font-size="11">{}</text>"#, esc(text));
    }

    /// A vertical line across the bar with a caption above or below.
    fn line(&mut self, addr: u32, color: &str, text: &str, above: bool) {
        let x = self.x(addr);
        let _ = writeln!(
            self.out,
            r#"<line x1="{x:.2}" y1="{:.1}" x2="{x:.2}" y2="{:.1}" stroke="{color}" stroke-width="2" stroke-dasharray="4,2"/>"#,
            self.y - 14.0,
            self.y + self.h + 4.0
        );
        let y = if above { self.y - 17.0 } else { self.y + self.h + 15.0 };
        let _ = writeln!(
            self.out,
            r#"<text x="{x:.2}" y="{y:.1}" text-anchor="end" font-size="11" fill="{color}">{}</text>"#,
            esc(text)
        );
    }

    /// Symbol labels below the bar on staggered rows with leader lines.
    fn symbol_labels(&mut self, items: &[(u32, u32, String)]) {
        let mut sorted: Vec<&(u32, u32, String)> = items.iter().collect();
        sorted.sort_by_key(|i| i.0);
        for (row, (addr, size, name)) in sorted.into_iter().enumerate() {
            let x = (self.x(*addr) + self.x(addr + size)) / 2.0;
            let ly = self.y + self.h + 28.0 + (row % 6) as f64 * 14.0;
            let _ = writeln!(
                self.out,
                r##"<line x1="{x:.2}" y1="{:.1}" x2="{x:.2}" y2="{:.1}" stroke="#777" stroke-width="0.6"/>"##,
                self.y + self.h,
                ly - 9.0
            );
            let anchor = if x > LEFT + WIDTH * 0.7 { "end" } else { "start" };
            let _ = writeln!(
                self.out,
                r#"<text x="{x:.2}" y="{ly:.1}" text-anchor="{anchor}" font-size="10">{} ({size} B)</text>"#,
                esc(&short(name))
            );
        }
    }
}

/// The whole picture.
pub fn render(map: &StaticMap, marks: &Marks) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="1080" height="470" viewBox="0 0 1080 470" font-family="sans-serif">"#
    );
    out.push_str("<rect width=\"1080\" height=\"470\" fill=\"white\"/>\n");

    // --- SRAM ---------------------------------------------------------------
    let stack_used = marks.min_sp.map(|sp| RAM_END - sp as u32).unwrap_or(0);
    let _ = writeln!(
        out,
        r#"<text x="{LEFT}" y="24" font-size="14" font-weight="bold">SRAM 0x0100..0x10FF (4096 B): static {} B, measured stack {} B, static bound {}</text>"#,
        map.static_ram(),
        stack_used,
        marks.bound.map(|b| format!("{b} B")).unwrap_or_else(|| "unbounded".into())
    );
    {
        let mut bar = Bar { out: &mut out, y: 56.0, h: 34.0, origin: RAM_START, bytes: RAM_BYTES };
        bar.rect(RAM_START, RAM_END + 1, "#eeeeee", "free");
        bar.rect(map.data.start, map.data.end(), "#4e79a7", &format!(".data {} B", map.data.size));
        bar.rect(map.bss.start, map.bss.end(), "#59a14f", &format!(".bss {} B", map.bss.size));
        bar.rect(map.noinit.start, map.noinit.end(), "#b07aa1", &format!(".noinit {} B", map.noinit.size));
        if stack_used > 0 {
            bar.rect(RAM_END + 1 - stack_used, RAM_END + 1, "#f28e2b", &format!("stack (measured) {stack_used} B"));
        }
        let static_end = map.static_end();
        let free_start = static_end;
        let free_end = RAM_END + 1 - stack_used;
        if free_end > free_start {
            bar.region_label(free_start, free_end, &format!("free {} B", free_end - free_start));
        }
        if stack_used > 0 {
            bar.region_label(RAM_END + 1 - stack_used, RAM_END + 1, "stack");
        }
        if map.static_ram() > 0 {
            bar.region_label(RAM_START, static_end, "static");
        }
        if let Some(sp) = marks.min_sp {
            bar.line(sp as u32 + 1, "#d62728", &format!("high-water {stack_used} B"), true);
        }
        if let Some(b) = marks.bound {
            let at = (RAM_END + 1).saturating_sub(b).max(RAM_START);
            bar.line(at, "#1f77b4", &format!("static bound {b} B"), false);
        }
        // The budget keeps 4096 - budget bytes free between static data
        // and the stack: the stack must never enter this zone.
        let margin = 4096u32.saturating_sub(marks.budget);
        if margin > 0 {
            let (x0, x1) = (bar.x(static_end), bar.x((static_end + margin).min(RAM_END + 1)));
            let _ = writeln!(
                bar.out,
                r##"<rect x="{x0:.2}" y="{:.1}" width="{:.2}" height="{:.1}" fill="none" stroke="#d62728" stroke-width="1" stroke-dasharray="3,2"><title>margin the stack must not enter: {margin} B</title></rect>"##,
                bar.y + 2.0,
                x1 - x0,
                bar.h - 4.0
            );
            let _ = writeln!(
                bar.out,
                r##"<text x="{:.2}" y="{:.1}" font-size="10" fill="#d62728">{margin} B margin</text>"##,
                x0 + 2.0,
                bar.y - 4.0
            );
        }
        let labels: Vec<(u32, u32, String)> = map
            .ram_symbols
            .iter()
            .filter(|i| i.size >= 4)
            .take(6)
            .map(|i| (i.address, i.size, i.name.clone()))
            .collect();
        bar.symbol_labels(&labels);
    }

    // --- flash --------------------------------------------------------------
    let _ = writeln!(
        out,
        r#"<text x="{LEFT}" y="264" font-size="14" font-weight="bold">Flash 64 KB: {} B used ({:.1}%), vectors {} B, code {} B, progmem {} B, book {} B, .data image {} B</text>"#,
        map.flash(),
        map.flash() as f64 * 100.0 / FLASH_BYTES,
        map.vectors,
        map.code,
        map.progmem,
        map.book,
        map.data.size
    );
    {
        let mut bar = Bar { out: &mut out, y: 296.0, h: 34.0, origin: 0, bytes: FLASH_BYTES };
        bar.rect(0, 65536, "#eeeeee", "free");
        bar.rect(0, map.text, "#4e79a7", &format!("code {} B", map.code));
        bar.rect(map.progmem_range.start, map.progmem_range.end(), "#edc948", &format!("progmem {} B", map.progmem));
        for i in map.flash_symbols.iter().filter(|i| i.section == "progmem") {
            bar.rect(i.address, i.address + i.size, "#edc948", &format!("{} {} B", i.name, i.size));
        }
        for i in map.flash_symbols.iter().filter(|i| i.section == "book") {
            bar.rect(i.address, i.address + i.size, "#e15759", &format!("book {} {} B", i.name, i.size));
        }
        bar.rect(0, map.vectors, "#76b7b2", &format!("vectors {} B", map.vectors));
        bar.rect(map.text, map.text + map.data.size, "#9c755f", &format!(".data image {} B", map.data.size));
        bar.region_label(map.flash(), 65536, &format!("free {} B", 65536u32.saturating_sub(map.flash())));
        if map.text > 0 {
            bar.region_label(0, map.text, "code");
        }
        let labels: Vec<(u32, u32, String)> =
            map.flash_symbols.iter().take(6).map(|i| (i.address, i.size, i.name.clone())).collect();
        bar.symbol_labels(&labels);
    }

    // Legend.
    let legend = [
        ("#4e79a7", ".data / code"),
        ("#59a14f", ".bss"),
        ("#b07aa1", ".noinit"),
        ("#f28e2b", "stack (measured)"),
        ("#76b7b2", "vectors"),
        ("#edc948", "progmem"),
        ("#e15759", "book"),
        ("#9c755f", ".data image"),
        ("#eeeeee", "free"),
    ];
    for (i, (color, name)) in legend.iter().enumerate() {
        let x = LEFT + i as f64 * 112.0;
        let _ = writeln!(out, r##"<rect x="{x}" y="446" width="12" height="12" fill="{color}" stroke="#333" stroke-width="0.3"/>"##);
        let _ = writeln!(out, r#"<text x="{}" y="456" font-size="11">{name}</text>"#, x + 16.0);
    }
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ram::static_map::{Item, Region};

    #[test]
    fn renders_well_formed_svg() {
        let map = StaticMap {
            data: Region { start: 0x100, size: 36 },
            bss: Region { start: 0x124, size: 206 },
            noinit: Region { start: 0x1f2, size: 0 },
            ram_symbols: vec![Item { name: "a::b::<T as C>::RX".into(), address: 0x127, size: 132, section: ".bss".into() }],
            text: 8678,
            vectors: 112,
            progmem: 324,
            book: 0,
            code: 8242,
            progmem_range: Region { start: 0x70, size: 324 },
            flash_symbols: vec![],
        };
        let svg = render(&map, &Marks { min_sp: Some(0x1000), bound: Some(400), budget: 3840 });
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert!(svg.contains("&lt;T as C&gt;"), "names are escaped");
        assert!(svg.contains("high-water 255 B") && svg.contains("static bound 400 B"));
        assert_eq!(svg.matches("<svg").count(), 1);
    }
}
