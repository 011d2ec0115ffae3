//! Ring of the hashes of earlier positions, for repetition detection.
//!
//! Only positions since the last capture or pawn move can repeat, and after
//! 100 such plies the fifty-move rule ends the game anyway, so 100 entries
//! (400 bytes of SRAM) cover every repetition that matters.

/// Capacity of the ring in plies.
pub const HISTORY_LEN: usize = 100;

/// Hashes of the positions before the current one, newest last.
#[derive(Clone)]
pub struct HashHistory {
    ring: [u32; HISTORY_LEN],
    /// Slot the next push writes.
    head: u8,
    /// Number of valid entries (at most `HISTORY_LEN`).
    len: u8,
}

/// Offsets of the ring, its head and its length, for the AVR build's
/// assembly push in `make_move_into` (which takes the length to follow
/// the head).
#[cfg(target_arch = "avr")]
pub(super) const RING_OFFSET: usize = core::mem::offset_of!(HashHistory, ring);
#[cfg(target_arch = "avr")]
pub(super) const HEAD_OFFSET: usize = core::mem::offset_of!(HashHistory, head);
#[cfg(target_arch = "avr")]
const _: () = assert!(core::mem::offset_of!(HashHistory, len) == HEAD_OFFSET + 1);

impl HashHistory {
    pub const fn new() -> Self {
        HashHistory {
            ring: [0; HISTORY_LEN],
            head: 0,
            len: 0,
        }
    }

    /// Forgets everything (new game, position set up from FEN).
    pub fn clear(&mut self) {
        self.head = 0;
        self.len = 0;
    }

    /// Number of remembered positions.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Remembers `hash`; when full the oldest entry is overwritten.
    #[inline]
    pub fn push(&mut self, hash: u32) {
        // (`head` is always in range: a test, not a bounds-check panic.)
        if let Some(slot) = self.ring.get_mut(self.head as usize) {
            *slot = hash;
        }
        self.head = if self.head as usize + 1 == HISTORY_LEN {
            0
        } else {
            self.head + 1
        };
        if (self.len as usize) < HISTORY_LEN {
            self.len += 1;
        }
    }

    /// Drops the newest entry. If the ring had overflowed, the entry the push
    /// overwrote is lost for good; that one was 100 plies old, beyond the
    /// fifty-move horizon.
    #[inline]
    pub fn pop(&mut self) {
        if self.len > 0 {
            self.head = if self.head == 0 {
                HISTORY_LEN as u8 - 1
            } else {
                self.head - 1
            };
            self.len -= 1;
        }
    }

    /// Hash `back` plies before the current position (1 = previous one).
    #[inline]
    pub fn get(&self, back: usize) -> Option<u32> {
        if back == 0 || back > self.len as usize {
            return None;
        }
        let mut i = self.head as usize + HISTORY_LEN - back;
        if i >= HISTORY_LEN {
            i -= HISTORY_LEN;
        }
        Some(self.ring[i])
    }

    /// How often `hash` occurs among the last `window` plies, looking only at
    /// positions with the same side to move (every second ply, from 4 back).
    ///
    /// Counts its probes and walks the ring's index down in bytes (the
    /// loop over `get` kept 16-bit plies and indices and saved 13
    /// registers on the AVR).
    pub fn count(&self, hash: u32, window: usize) -> u8 {
        let len = self.len;
        let window = if window < len as usize { window as u8 } else { len };
        if window < 4 {
            return 0;
        }
        let mut probes = (window - 4) / 2 + 1;
        // Plies 4, 6, ... back: slot head - 4, head - 6, ... around the ring.
        let mut i = self.head.wrapping_sub(4);
        if i >= HISTORY_LEN as u8 {
            i = i.wrapping_add(HISTORY_LEN as u8);
        }
        let mut n = 0;
        loop {
            if self.ring.get(i as usize) == Some(&hash) {
                n += 1;
            }
            probes -= 1;
            if probes == 0 {
                return n;
            }
            i = i.wrapping_sub(2);
            if i >= HISTORY_LEN as u8 {
                i = i.wrapping_add(HISTORY_LEN as u8);
            }
        }
    }
}

impl Default for HashHistory {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ring_push_pop_and_overflow() {
        let mut h = HashHistory::new();
        for i in 0..150u32 {
            h.push(i);
        }
        assert_eq!(h.len(), HISTORY_LEN);
        assert_eq!(h.get(1), Some(149));
        assert_eq!(h.get(100), Some(50));
        assert_eq!(h.get(101), None);
        h.pop();
        assert_eq!(h.get(1), Some(148));
        assert_eq!(h.len(), HISTORY_LEN - 1);
        assert_eq!(h.count(145, 10), 1);
        assert_eq!(
            h.count(144, 10),
            0,
            "odd distances are the other side to move"
        );
    }

    #[test]
    fn count_is_the_walk_over_get() {
        let mut h = HashHistory::new();
        for i in 0..260u32 {
            if i % 3 == 0 {
                h.pop();
            }
            h.push(i % 7);
            for window in 0..110 {
                for hash in 0..7 {
                    let mut n = 0;
                    let mut back = 4;
                    while back <= window {
                        if h.get(back) == Some(hash) {
                            n += 1;
                        }
                        back += 2;
                    }
                    assert_eq!(h.count(hash, window), n);
                }
            }
        }
    }
}
