//! The bus interface: E edges, nibble pairing, timing checks and reads.

use super::*;

impl Hd44780 {
    /// A pin event from the emulator: `levels` of port `port` (0 = A) at
    /// `cycle`. Ports the LCD is not wired to are ignored.
    pub fn port_changed(&mut self, cycle: u64, port: usize, levels: u8, pc: Option<u32>) {
        let Some(p) = port_from_index(port) else {
            return;
        };
        self.ports.set(p, levels);
        if self.wiring.uses_port(port) {
            let lines = self.wiring.decode(&self.ports);
            self.set_lines(cycle, lines, pc);
        }
    }

    /// The LCD's input lines changed at `cycle` (the low-level interface).
    pub fn set_lines(&mut self, cycle: u64, new: LcdLines, pc: Option<u32>) {
        let old = self.lines;
        let rs_rw_moved = old.rs != new.rs || old.rw != new.rw;
        let data_moved = old.data != new.data;
        if old.e && !new.e {
            self.check_e_fall(cycle, old, rs_rw_moved, data_moved, pc);
            // On a hold violation the levels present while E was high are
            // the likelier to be latched.
            self.latch(cycle, old, pc);
        }
        if rs_rw_moved {
            if old.e && new.e {
                self.warn(cycle, pc, "RS or R/W changed while E is high".into());
            }
            self.rs_rw_changed = cycle;
        }
        if data_moved && !(new.e && new.rw) {
            // Changes while the LCD drives the bus are its own output.
            self.data_changed = cycle;
        }
        if !old.e && new.e {
            self.e_rises(cycle, new, rs_rw_moved, pc);
        }
        self.lines = new;
    }

    fn e_rises(&mut self, cycle: u64, new: LcdLines, rs_rw_moved: bool, pc: Option<u32>) {
        if let Some(prev) = self.e_rose {
            let ns = self.ns(cycle - prev);
            if ns < self.timing.t_cyc_e_ns {
                let msg = format!(
                    "E cycle of {ns} ns is shorter than tcycE = {} ns",
                    self.timing.t_cyc_e_ns
                );
                self.warn(cycle, pc, msg);
            }
        }
        let setup = if rs_rw_moved {
            0
        } else {
            self.ns(cycle - self.rs_rw_changed)
        };
        if setup < self.timing.t_as_ns {
            let msg = format!(
                "RS/R/W set up {setup} ns before E rose; tAS needs {} ns (change them before raising E)",
                self.timing.t_as_ns
            );
            self.warn(cycle, pc, msg);
        }
        self.e_rose = Some(cycle);
        if new.rw {
            self.start_read(cycle, new.rs, pc);
        }
    }

    fn check_e_fall(
        &mut self,
        cycle: u64,
        old: LcdLines,
        rs_rw_moved: bool,
        data_moved: bool,
        pc: Option<u32>,
    ) {
        let width = self.e_rose.map_or(0, |r| self.ns(cycle - r));
        if width < self.timing.pw_eh_ns {
            let msg = format!(
                "E pulse of {width} ns is shorter than PW_EH = {} ns",
                self.timing.pw_eh_ns
            );
            self.warn(cycle, pc, msg);
        }
        if rs_rw_moved {
            let msg = format!(
                "RS/R/W changed together with E falling; tAH needs {} ns",
                self.timing.t_ah_ns
            );
            self.warn(cycle, pc, msg);
        }
        if old.rw {
            return;
        }
        if data_moved {
            let msg = format!(
                "data changed together with E falling; tH needs {} ns",
                self.timing.t_h_ns
            );
            self.warn(cycle, pc, msg);
        } else {
            let setup = self.ns(cycle - self.data_changed);
            if setup < self.timing.t_dsw_ns {
                let msg = format!(
                    "data set up {setup} ns before E fell; tDSW needs {} ns",
                    self.timing.t_dsw_ns
                );
                self.warn(cycle, pc, msg);
            }
        }
    }

    /// The falling edge of E: completes a transfer (or half of one).
    fn latch(&mut self, cycle: u64, l: LcdLines, pc: Option<u32>) {
        let busy = self.busy(cycle);
        let (rs, rw, byte, busy) = if self.eight_bit {
            (l.rs, l.rw, l.data, busy)
        } else {
            match self.half.take() {
                None => {
                    self.half = Some(HalfTransfer {
                        rs: l.rs,
                        rw: l.rw,
                        high: l.data & 0xF0,
                        busy,
                    });
                    return;
                }
                Some(h) => {
                    if (h.rs, h.rw) != (l.rs, l.rw) {
                        let msg = format!(
                            "4-bit transfer halves disagree (RS={} R/W={} then RS={} R/W={}); transfer ignored",
                            h.rs as u8, h.rw as u8, l.rs as u8, l.rw as u8
                        );
                        self.warn(cycle, pc, msg);
                        return;
                    }
                    (l.rs, l.rw, h.high | l.data >> 4, busy || h.busy)
                }
            }
        };
        if rw {
            self.finish_read(cycle, rs, pc);
        } else if busy {
            let what = if rs {
                format!("data 0x{byte:02X}")
            } else {
                format!("instruction 0x{byte:02X}")
            };
            let left = self.ns(self.busy_until.saturating_sub(cycle)) / 1000;
            let why = if cycle < self.reset_until {
                format!(
                    "during the power-on reset (wait {} ms after power-on)",
                    self.timing.power_on_ns / 1_000_000
                )
            } else {
                format!("while busy (about {left} µs left)")
            };
            self.warn(cycle, pc, format!("{what} sent {why}; ignored"));
        } else if rs {
            self.write_data(cycle, byte);
        } else {
            self.instruction(cycle, byte, pc);
        }
    }

    // ----- Reads -----

    /// E rose with R/W high: decide what the LCD will drive.
    fn start_read(&mut self, cycle: u64, rs: bool, pc: Option<u32>) {
        self.read_valid_from = cycle + self.cycles(self.timing.t_ddr_ns);
        if !self.eight_bit && self.half.is_some() {
            // Second half of a 4-bit read: the byte was chosen by the first.
            self.read_high_nibble = false;
            return;
        }
        self.read_high_nibble = !self.eight_bit;
        self.read_busy = self.busy(cycle);
        self.read_byte = if !rs {
            (self.read_busy as u8) << 7 | self.ac
        } else {
            if self.read_busy {
                self.warn(
                    cycle,
                    pc,
                    "data read while busy; the data bus is not valid".into(),
                );
            } else if !self.dr_valid {
                let msg = "data read without a preceding address set or cursor shift; the first read is invalid";
                self.warn(cycle, pc, msg.into());
            }
            self.dr
        };
    }

    /// The last E edge of a read fell.
    fn finish_read(&mut self, cycle: u64, rs: bool, _pc: Option<u32>) {
        if !rs || self.read_busy {
            return;
        }
        // A data read moves the address counter and reloads the data
        // register, like a write but without touching RAM or the shift.
        self.ac = self.next_address(self.ac, self.increment);
        self.load_dr();
        self.busy_until = cycle + self.cycles(self.timing.data_ns);
    }

    /// What the LCD drives on its connected data lines at `cycle`, in bus
    /// order (4-bit wiring: bit 0 = DB4 .. bit 3 = DB7; 8-bit: bit n = DBn),
    /// or `None` when it does not drive them.
    pub fn bus_output(&self, cycle: u64) -> Option<u8> {
        if !(self.lines.e && self.lines.rw) || cycle < self.read_valid_from {
            return None;
        }
        let b = self.read_byte;
        Some(match self.wiring.bus {
            LcdBus::FourBit(_) if self.read_high_nibble || self.eight_bit => b >> 4,
            LcdBus::FourBit(_) => b & 0x0F,
            LcdBus::EightBit(_) => b,
        })
    }

    /// [`Self::bus_output`] as levels to drive onto each port (index 0 = A).
    pub fn bus_drive(&self, cycle: u64) -> [PortDrive; PORTS] {
        let mut drive = [PortDrive::default(); PORTS];
        if let Some(v) = self.bus_output(cycle) {
            let pins: &[Pin] = match &self.wiring.bus {
                LcdBus::FourBit(p) => p,
                LcdBus::EightBit(p) => p,
            };
            for (i, &pin) in pins.iter().enumerate() {
                drive[pin.port.index()].drive(pin, v >> i & 1 != 0);
            }
        }
        drive
    }

    /// The next cycle after `cycle` at which [`Self::bus_output`] changes
    /// without any input changing (the data becoming valid tDDR after E
    /// rose), so that the runner can feed it back at the right moment.
    pub fn next_bus_change(&self, cycle: u64) -> Option<u64> {
        (self.lines.e && self.lines.rw && self.read_valid_from > cycle)
            .then_some(self.read_valid_from)
    }
}
