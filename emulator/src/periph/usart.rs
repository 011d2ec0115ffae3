//! USART in asynchronous mode, at frame granularity.
//!
//! A frame takes (1 start + data + parity + stop) bit times, a bit time being
//! 16*(UBRR+1) CPU cycles (8*(UBRR+1) with U2X). The transmitter starts a
//! frame on the next edge of its bit clock (the baud generator restarts
//! when UBRRnL is written), UDRE is set again when the buffer moves to the
//! shift register (at once if it is idle, else when the frame in flight
//! ends) and TXC is set when the last stop bit has gone out with nothing
//! buffered. Received frames complete (RXC) one frame time after they start.
//!
//! Not modelled, on purpose and documented: the TXD waveform (TXD is
//! driven idle-high while the transmitter is enabled; the host gets whole
//! bytes through [`Usart::host_take`]), the RXD pin (the host feeds bytes
//! through [`Usart::host_send`]), synchronous and master SPI modes
//! (warned), multi-processor mode (warned); FE and UPE are always zero
//! because the host never sends bad frames; the ninth data bit is 0 on
//! receive and dropped on transmit (warned).

use crate::peripheral::{Ctx, Peripheral, PortIndex, NEVER};
use std::collections::VecDeque;

#[derive(Debug)]
pub struct UsartConfig {
    pub name: &'static str,
    pub ucsra: u16,
    pub ucsrb: u16,
    pub ucsrc: u16,
    pub ubrrl: u16,
    pub ubrrh: u16,
    pub udr: u16,
    pub rx_vector: u8,
    pub udre_vector: u8,
    pub tx_vector: u8,
    pub txd: (PortIndex, u8),
}

// UCSRnA
const RXC: u8 = 1 << 7;
const TXC: u8 = 1 << 6;
const UDRE: u8 = 1 << 5;
const DOR: u8 = 1 << 3;
const U2X: u8 = 1 << 1;
const MPCM: u8 = 1 << 0;
// UCSRnB
const RXCIE: u8 = 1 << 7;
const TXCIE: u8 = 1 << 6;
const UDRIE: u8 = 1 << 5;
const RXEN: u8 = 1 << 4;
const TXEN: u8 = 1 << 3;
const UCSZ2: u8 = 1 << 2;
// UCSRnC
const UMSEL: u8 = 0xC0;
const UPM1: u8 = 1 << 5;
const USBS: u8 = 1 << 3;

/// Receive buffer depth (the FIFO; one more frame waits in the shift register).
const RX_FIFO: usize = 2;

pub struct Usart {
    cfg: &'static UsartConfig,
    /// Writable UCSRnA bits (U2X, MPCM) and TXC.
    ucsra: u8,
    ucsrb: u8,
    ucsrc: u8,
    ubrr: u16,
    /// Cycle at which the baud generator was last restarted.
    baud_origin: u64,
    tx_buffer: Option<u8>,
    /// Byte in the transmit shift register and the cycle its frame ends.
    tx_shift: Option<(u8, u64)>,
    tx_out: Vec<u8>,
    /// Received bytes with their "data overrun before this one" flag.
    rx_fifo: VecDeque<(u8, bool)>,
    rx_shift: Option<u8>,
    /// Host bytes on the line: value and the cycle their frame completes.
    rx_line: VecDeque<(u8, u64)>,
    /// Latest cycle this peripheral has seen (host calls carry their own).
    now: u64,
    /// Warnings raised where there is no `Ctx` (host side), emitted on the
    /// next update.
    deferred: Vec<String>,
    warned: u8,
}

const WARN_MODE: u8 = 1;
const WARN_MPCM: u8 = 2;
const WARN_9BIT: u8 = 4;
const WARN_UDR_FULL: u8 = 8;
const WARN_TX_OFF: u8 = 16;
const WARN_RX_OFF: u8 = 32;
const WARN_UCSZ: u8 = 64;

impl Usart {
    pub fn new(cfg: &'static UsartConfig) -> Self {
        Usart {
            cfg,
            ucsra: 0,
            ucsrb: 0,
            ucsrc: 0x06,
            ubrr: 0,
            baud_origin: 0,
            tx_buffer: None,
            tx_shift: None,
            tx_out: Vec::new(),
            rx_fifo: VecDeque::new(),
            rx_shift: None,
            rx_line: VecDeque::new(),
            now: 0,
            deferred: Vec::new(),
            warned: 0,
        }
    }

    // ---- host side ------------------------------------------------------

    /// Bytes arriving on RXD from `now` on, one frame after another at the
    /// configured format and baud rate. Dropped (with a warning) if the
    /// receiver is disabled.
    pub fn host_send(&mut self, now: u64, bytes: &[u8]) {
        let now = now.max(self.now);
        if self.ucsrb & RXEN == 0 {
            if !bytes.is_empty() {
                self.deferred.push(format!("{} bytes sent by the host dropped: the receiver is disabled (RXEN = 0)", bytes.len()));
            }
            return;
        }
        let frame = self.frame_cycles();
        let mut start = self.rx_line.back().map_or(now, |&(_, done)| done.max(now));
        for &b in bytes {
            start += frame;
            self.rx_line.push_back((b, start));
        }
    }

    /// The bytes the chip transmitted so far (complete frames), oldest first.
    pub fn host_take(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.tx_out)
    }

    /// Host bytes still on the line (not yet received).
    pub fn host_pending_rx(&self) -> usize {
        self.rx_line.len()
    }

    /// CPU cycles per bit.
    pub fn bit_cycles(&self) -> u64 {
        let per = if self.ucsra & U2X != 0 { 8 } else { 16 };
        per * (self.ubrr as u64 + 1)
    }

    fn data_bits(&self) -> u64 {
        match ((self.ucsrb & UCSZ2) | (self.ucsrc >> 1 & 3)) as u64 {
            n @ 0..=3 => 5 + n,
            7 => 9,
            _ => 8,
        }
    }

    /// CPU cycles per frame.
    pub fn frame_cycles(&self) -> u64 {
        let parity = (self.ucsrc & UPM1 != 0) as u64;
        let stop = if self.ucsrc & USBS != 0 { 2 } else { 1 };
        (1 + self.data_bits() + parity + stop) * self.bit_cycles()
    }

    // ---- chip side ------------------------------------------------------

    fn ucsra(&self) -> u8 {
        let mut v = self.ucsra & (TXC | U2X | MPCM);
        if !self.rx_fifo.is_empty() {
            v |= RXC;
        }
        if self.tx_buffer.is_none() {
            v |= UDRE;
        }
        if self.rx_fifo.front().is_some_and(|e| e.1) {
            v |= DOR;
        }
        v
    }

    fn refresh_irqs(&mut self, cx: &mut Ctx) {
        let a = self.ucsra();
        let b = self.ucsrb;
        cx.set_irq(self.cfg.rx_vector, a & RXC != 0 && b & RXCIE != 0);
        cx.set_irq(self.cfg.udre_vector, a & UDRE != 0 && b & UDRIE != 0);
        cx.set_irq(self.cfg.tx_vector, a & TXC != 0 && b & TXCIE != 0);
    }

    fn warn_once(&mut self, cx: &mut Ctx, bit: u8, message: String) {
        if self.warned & bit == 0 {
            self.warned |= bit;
            cx.warn(self.cfg.name, message);
        }
    }

    /// First transmit clock edge after `now`.
    fn next_bit_edge(&self, now: u64) -> u64 {
        let bit = self.bit_cycles();
        let since = now.saturating_sub(self.baud_origin);
        self.baud_origin + (since / bit + 1) * bit
    }

    fn write_udr(&mut self, value: u8, cx: &mut Ctx) {
        if self.ucsrb & TXEN == 0 {
            let name = self.cfg.name;
            self.warn_once(cx, WARN_TX_OFF, format!("UDR written with the transmitter disabled (TXEN = 0); {name} drops the byte"));
            return;
        }
        if self.tx_shift.is_none() {
            let start = self.next_bit_edge(cx.now);
            self.tx_shift = Some((value, start + self.frame_cycles()));
        } else if self.tx_buffer.is_none() {
            self.tx_buffer = Some(value);
        } else {
            self.warn_once(cx, WARN_UDR_FULL, "UDR written while UDRE = 0; the byte is lost".into());
        }
    }

    fn read_udr(&mut self) -> u8 {
        let Some((byte, _)) = self.rx_fifo.pop_front() else { return 0 };
        if let Some(b) = self.rx_shift.take() {
            self.rx_fifo.push_back((b, false));
        }
        byte
    }

    fn receive(&mut self, byte: u8, cx: &mut Ctx) {
        if self.ucsrb & RXEN == 0 {
            let name = self.cfg.name;
            self.warn_once(cx, WARN_RX_OFF, format!("byte {byte:#04x} from the host arrived with the receiver disabled; {name} drops it"));
        } else if self.rx_fifo.len() < RX_FIFO {
            self.rx_fifo.push_back((byte, false));
        } else if self.rx_shift.is_none() {
            self.rx_shift = Some(byte);
        } else if let Some(head) = self.rx_fifo.front_mut() {
            // Data overrun: the new frame is lost, DOR shows with the next read.
            head.1 = true;
        }
    }

    fn drive_txd(&mut self, cx: &mut Ctx) {
        let (port, bit) = self.cfg.txd;
        let m = 1u8 << bit;
        if self.ucsrb & TXEN != 0 {
            cx.pins.alt_output[port] |= m;
            cx.pins.alt_enable[port] |= m;
            cx.pins.alt_value[port] |= m;
        } else {
            cx.pins.alt_output[port] &= !m;
            cx.pins.alt_enable[port] &= !m;
        }
        cx.pins.settle(port, cx.now);
    }

    fn check_format(&mut self, cx: &mut Ctx) {
        if self.ucsrc & UMSEL != 0 {
            self.warn_once(cx, WARN_MODE, format!("UCSRC = {:#04x}: synchronous / master SPI mode is not modelled; frames are timed as asynchronous", self.ucsrc));
        }
        if self.ucsra & MPCM != 0 {
            self.warn_once(cx, WARN_MPCM, "multi-processor communication mode (MPCM) is not modelled".into());
        }
        let ucsz = (self.ucsrb & UCSZ2) | (self.ucsrc >> 1 & 3);
        if ucsz == 7 {
            self.warn_once(cx, WARN_9BIT, "9-bit frames: the ninth bit is 0 on receive and not passed to the host on transmit".into());
        } else if ucsz > 3 {
            self.warn_once(cx, WARN_UCSZ, format!("reserved character size UCSZ = {ucsz}; using 8 bits"));
        }
    }
}

impl Peripheral for Usart {
    fn name(&self) -> &'static str {
        self.cfg.name
    }

    fn addresses(&self) -> Vec<u16> {
        let c = self.cfg;
        vec![c.ucsra, c.ucsrb, c.ucsrc, c.ubrrl, c.ubrrh, c.udr]
    }

    fn vectors(&self) -> Vec<u8> {
        vec![self.cfg.rx_vector, self.cfg.udre_vector, self.cfg.tx_vector]
    }

    fn read(&mut self, addr: u16, cx: &mut Ctx) -> u8 {
        self.update(cx);
        if addr == self.cfg.udr {
            let v = self.read_udr();
            self.refresh_irqs(cx);
            return v;
        }
        self.peek(addr)
    }

    fn write(&mut self, addr: u16, value: u8, cx: &mut Ctx) {
        self.update(cx);
        let c = self.cfg;
        match addr {
            a if a == c.ucsra => {
                // TXC is cleared by writing one; U2X and MPCM are plain bits.
                let txc = if value & TXC != 0 { 0 } else { self.ucsra & TXC };
                self.ucsra = txc | (value & (U2X | MPCM));
            }
            a if a == c.ucsrb => {
                self.ucsrb = value & !0x02; // RXB8 is read-only
                if value & RXEN == 0 {
                    self.rx_fifo.clear();
                    self.rx_shift = None;
                }
                self.drive_txd(cx);
            }
            a if a == c.ucsrc => self.ucsrc = value,
            a if a == c.ubrrh => self.ubrr = (self.ubrr & 0xFF) | ((value as u16 & 0x0F) << 8),
            a if a == c.ubrrl => {
                self.ubrr = (self.ubrr & 0xF00) | value as u16;
                self.baud_origin = cx.now;
            }
            a if a == c.udr => self.write_udr(value, cx),
            _ => {}
        }
        self.check_format(cx);
        self.refresh_irqs(cx);
    }

    fn peek(&self, addr: u16) -> u8 {
        let c = self.cfg;
        match addr {
            a if a == c.ucsra => self.ucsra(),
            a if a == c.ucsrb => self.ucsrb,
            a if a == c.ucsrc => self.ucsrc,
            a if a == c.ubrrl => self.ubrr as u8,
            a if a == c.ubrrh => (self.ubrr >> 8) as u8,
            a if a == c.udr => self.rx_fifo.front().map_or(0, |e| e.0),
            _ => 0,
        }
    }

    fn update(&mut self, cx: &mut Ctx) -> u64 {
        self.now = self.now.max(cx.now);
        for message in std::mem::take(&mut self.deferred) {
            cx.warn(self.cfg.name, message);
        }
        while let Some((byte, end)) = self.tx_shift.filter(|&(_, end)| end <= cx.now) {
            self.tx_out.push(byte);
            self.tx_shift = self.tx_buffer.take().map(|next| (next, end + self.frame_cycles()));
            if self.tx_shift.is_none() {
                self.ucsra |= TXC;
            }
        }
        while let Some(&(byte, done)) = self.rx_line.front() {
            if done > cx.now {
                break;
            }
            self.rx_line.pop_front();
            self.receive(byte, cx);
        }
        self.refresh_irqs(cx);
        let tx = self.tx_shift.map_or(NEVER, |(_, end)| end);
        let rx = self.rx_line.front().map_or(NEVER, |&(_, done)| done);
        tx.min(rx)
    }

    fn acknowledge(&mut self, vector: u8, cx: &mut Ctx) {
        // Only TXC is cleared by interrupt entry; RXC and UDRE follow the data.
        if vector == self.cfg.tx_vector {
            self.ucsra &= !TXC;
        }
        self.refresh_irqs(cx);
    }

    fn reset(&mut self, cx: &mut Ctx) {
        let in_flight = self.rx_line.len();
        let tx_out = std::mem::take(&mut self.tx_out);
        *self = Usart::new(self.cfg);
        self.tx_out = tx_out;
        self.baud_origin = cx.now;
        self.now = cx.now;
        if in_flight > 0 {
            cx.warn(self.cfg.name, format!("reset: {in_flight} host bytes still on the line are dropped"));
        }
        self.drive_txd(cx);
        self.refresh_irqs(cx);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::periph::atmega644::USART0;
    use crate::periph::bench::Bench;

    const UCSR0A: u16 = 0xC0;
    const UCSR0B: u16 = 0xC1;
    const UCSR0C: u16 = 0xC2;
    const UBRR0L: u16 = 0xC4;
    const UDR0: u16 = 0xC6;
    const RX: u8 = 20;
    const UDRE_V: u8 = 21;
    const TX: u8 = 22;
    /// 38400 baud at 8 MHz: UBRR = 12, 208 cycles a bit, 2080 a 8N1 frame.
    const BIT: u64 = 208;

    fn setup(ucsrb: u8) -> (Usart, Bench) {
        let mut u = Usart::new(&USART0);
        let mut b = Bench::new();
        b.reset(&mut u);
        b.write(&mut u, 0, UBRR0L, 12);
        b.write(&mut u, 0, UCSR0B, ucsrb);
        (u, b)
    }

    #[test]
    fn transmit_timing_udre_and_txc() {
        let (mut u, mut b) = setup(TXEN | UDRIE | TXCIE);
        assert!(b.irq(UDRE_V));
        b.write(&mut u, 100, UDR0, b'A'); // frame starts at the bit edge 208
        assert_eq!(u.peek(UCSR0A) & UDRE, UDRE, "moved straight to the shift register");
        b.write(&mut u, 150, UDR0, b'B');
        assert_eq!(u.peek(UCSR0A) & UDRE, 0);
        assert!(!b.irq(UDRE_V));
        assert_eq!(b.next, BIT + 10 * BIT);
        assert_eq!(b.first_irq(&mut u, UDRE_V, 100_000), Some(BIT + 10 * BIT));
        assert_eq!(u.host_take(), b"A");
        assert_eq!(b.first_irq(&mut u, TX, 100_000), Some(BIT + 20 * BIT));
        assert_eq!(u.host_take(), b"B");
        u.acknowledge(TX, &mut b.cx(5000));
        assert!(!b.irq(TX));
        // TXD is driven high (idle) by the transmitter even without DDRD1.
        assert_eq!(b.pins.level(3) & 0x02, 0x02);
    }

    #[test]
    fn frame_format_and_u2x_change_the_frame_time() {
        let (mut u, mut b) = setup(TXEN);
        b.write(&mut u, 0, UCSR0C, 0x2C); // even parity, 2 stop bits, 7 data
        assert_eq!(u.frame_cycles(), 11 * BIT);
        b.write(&mut u, 0, UCSR0A, U2X);
        assert_eq!(u.frame_cycles(), 11 * BIT / 2);
    }

    #[test]
    fn receive_fifo_overrun_and_interrupt() {
        let (mut u, mut b) = setup(RXEN | RXCIE);
        u.host_send(1000, &[1, 2, 3, 4]);
        assert_eq!(u.host_pending_rx(), 4);
        b.next = u.update(&mut b.cx(1000));
        assert_eq!(b.first_irq(&mut u, RX, 100_000), Some(1000 + 10 * BIT));
        b.run(&mut u, 1000 + 40 * BIT);
        assert_eq!(u.host_pending_rx(), 0);
        // Two in the FIFO, one in the shift register, the fourth lost.
        assert_eq!(b.read(&mut u, 20_000, UCSR0A) & (RXC | DOR), RXC | DOR);
        assert_eq!(b.read(&mut u, 20_000, UDR0), 1);
        assert_eq!(b.read(&mut u, 20_001, UCSR0A) & (RXC | DOR), RXC);
        assert_eq!(b.read(&mut u, 20_001, UDR0), 2);
        assert_eq!(b.read(&mut u, 20_002, UDR0), 3);
        assert_eq!(b.read(&mut u, 20_003, UCSR0A) & RXC, 0);
        assert!(!b.irq(RX));
    }

    #[test]
    fn host_bytes_are_dropped_with_a_warning_when_the_receiver_is_off() {
        let (mut u, mut b) = setup(TXEN);
        u.host_send(10, b"hi");
        assert_eq!(u.host_pending_rx(), 0);
        u.update(&mut b.cx(10));
        assert_eq!(b.warnings.len(), 1);
        assert!(b.warnings[0].message.contains("RXEN"));
    }

    #[test]
    fn udr_written_with_transmitter_off_is_dropped_with_a_warning() {
        let (mut u, mut b) = setup(0);
        b.write(&mut u, 10, UDR0, 0x55);
        assert_eq!(b.next, NEVER);
        assert_eq!(b.warnings.len(), 1);
    }
}
