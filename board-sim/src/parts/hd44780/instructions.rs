//! Instruction execution and the address counter's movements in RAM.

use super::*;

impl Hd44780 {
    pub(super) fn instruction(&mut self, cycle: u64, byte: u8, pc: Option<u32>) {
        self.check_init_sequence(cycle, byte, pc);
        let mut time = self.timing.instruction_ns;
        match byte {
            0x00 => {
                self.warn(cycle, pc, "0x00 is not an instruction; ignored".into());
                return;
            }
            0x01 => {
                // Clear display: spaces everywhere, home, and I/D back to 1.
                self.ddram = [b' '; 80];
                self.ac = 0;
                self.ram = Ram::Ddram;
                self.shift = 0;
                self.increment = true;
                time = self.timing.clear_home_ns;
            }
            0x02..=0x03 => {
                self.ac = 0;
                self.ram = Ram::Ddram;
                self.shift = 0;
                time = self.timing.clear_home_ns;
            }
            0x04..=0x07 => {
                self.increment = byte & 0x02 != 0;
                self.entry_shift = byte & 0x01 != 0;
            }
            0x08..=0x0F => {
                self.display_on = byte & 0x04 != 0;
                self.cursor_on = byte & 0x02 != 0;
                self.blink_on = byte & 0x01 != 0;
            }
            0x10..=0x1F => {
                let right = byte & 0x04 != 0;
                if byte & 0x08 != 0 {
                    // Display shift; the cursor follows the text it is on.
                    self.shift_display(!right);
                } else {
                    self.ac = self.next_address(self.ac, right);
                    self.load_dr();
                }
            }
            0x20..=0x3F => {
                let eight_bit = byte & 0x10 != 0;
                if eight_bit != self.eight_bit {
                    self.half = None;
                }
                self.eight_bit = eight_bit;
                self.two_lines = byte & 0x08 != 0;
                self.font_5x10 = byte & 0x04 != 0;
            }
            0x40..=0x7F => {
                self.ram = Ram::Cgram;
                self.ac = byte & 0x3F;
                self.load_dr();
            }
            0x80..=0xFF => {
                let addr = byte & 0x7F;
                if self.ddram_index(addr).is_none() {
                    let lines = if self.two_lines { 2 } else { 1 };
                    self.warn(
                        cycle,
                        pc,
                        format!("DDRAM address 0x{addr:02X} does not exist in {lines}-line mode"),
                    );
                }
                self.ram = Ram::Ddram;
                self.ac = addr;
                self.load_dr();
            }
        }
        self.busy_until = cycle + self.cycles(time);
    }

    /// Warns about the waits of "initialisation by instruction" (datasheet
    /// figures 23 and 24): more than 4.1 ms after the first 8-bit function
    /// set, more than 100 µs after the second. The model's internal reset
    /// always succeeds, so a short wait is harmless here but not on a chip
    /// whose reset circuit did not run.
    fn check_init_sequence(&mut self, cycle: u64, byte: u8, pc: Option<u32>) {
        let InitSequence {
            function_sets: n,
            last,
        } = self.init;
        if n >= 3 {
            return;
        }
        let is_8bit_function_set = byte & 0xF0 == 0x30 && self.eight_bit;
        let waited = self.ns(cycle - last);
        let needed = if n == 1 { 4_100_000 } else { 100_000 };
        // Only a repeated function set shows the firmware is running the
        // sequence; anything else means it relies on the internal reset.
        if n > 0 && is_8bit_function_set && waited <= needed {
            let msg = format!(
                "initialisation by instruction: only {} µs after function set #{n}, the datasheet needs more than {} µs",
                waited / 1000,
                needed / 1000
            );
            self.warn(cycle, pc, msg);
        }
        self.init = if is_8bit_function_set {
            InitSequence {
                function_sets: n + 1,
                last: cycle,
            }
        } else {
            InitSequence {
                function_sets: 3,
                last: cycle,
            }
        };
    }

    pub(super) fn write_data(&mut self, cycle: u64, byte: u8) {
        match self.ram {
            Ram::Ddram => {
                if let Some(i) = self.ddram_index(self.ac) {
                    self.ddram[i] = byte;
                }
                self.ac = self.next_address(self.ac, self.increment);
                if self.entry_shift {
                    // S=1: the display moves so the cursor seems to stand
                    // still: left when incrementing, right when decrementing.
                    self.shift_display(self.increment);
                }
            }
            Ram::Cgram => {
                self.cgram[self.ac as usize & 0x3F] = byte;
                self.ac = self.next_address(self.ac, self.increment);
            }
        }
        self.dr_valid = false;
        self.busy_until = cycle + self.cycles(self.timing.data_ns);
    }

    pub(super) fn load_dr(&mut self) {
        self.dr = match self.ram {
            Ram::Ddram => self.ddram_index(self.ac).map_or(b' ', |i| self.ddram[i]),
            Ram::Cgram => self.cgram[self.ac as usize & 0x3F],
        };
        self.dr_valid = true;
    }

    /// Positions per line of DDRAM: 40 in 2-line mode, 80 in 1-line mode.
    pub(super) fn line_length(&self) -> u8 {
        if self.two_lines {
            40
        } else {
            80
        }
    }

    pub(super) fn shift_display(&mut self, left: bool) {
        let len = self.line_length();
        self.shift = if left {
            (self.shift + 1) % len
        } else {
            (self.shift + len - 1) % len
        };
    }

    /// The address after `addr` moving forward (`up`) or back, with the
    /// DDRAM wraps of the current line mode.
    pub(super) fn next_address(&self, addr: u8, up: bool) -> u8 {
        if self.ram == Ram::Cgram {
            return if up {
                addr.wrapping_add(1)
            } else {
                addr.wrapping_sub(1)
            } & 0x3F;
        }
        match (self.two_lines, up, addr) {
            (true, true, 0x27) => 0x40,
            (true, true, 0x67) => 0x00,
            (true, false, 0x40) => 0x27,
            (true, false, 0x00) => 0x67,
            (false, true, 0x4F) => 0x00,
            (false, false, 0x00) => 0x4F,
            (_, true, a) => (a + 1) & 0x7F,
            (_, false, a) => a.wrapping_sub(1) & 0x7F,
        }
    }

    /// Index into the 80 bytes of DDRAM, if `addr` exists in this mode.
    ///
    /// The two modes map the same 80 bytes; which byte of one mode is which
    /// of the other is not documented, so this mapping is the model's own.
    pub(super) fn ddram_index(&self, addr: u8) -> Option<usize> {
        let a = addr as usize;
        match (self.two_lines, a) {
            (true, 0x00..=0x27) => Some(a),
            (true, 0x40..=0x67) => Some(a - 0x40 + 40),
            (false, 0x00..=0x4F) => Some(a),
            _ => None,
        }
    }

    /// DDRAM address shown at `col` of `line`, if the line is in use.
    pub(super) fn visible_address(&self, line: usize, col: usize) -> Option<u8> {
        let len = self.line_length() as usize;
        let offset = ((self.shift as usize + col) % len) as u8;
        match (self.two_lines, line) {
            (true, _) => Some(line as u8 * 0x40 + offset),
            (false, 0) => Some(offset),
            (false, _) => None,
        }
    }
}
