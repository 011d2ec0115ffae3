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
        self.ring[self.head as usize] = hash;
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
    pub fn count(&self, hash: u32, window: usize) -> u8 {
        let window = if window < self.len as usize {
            window
        } else {
            self.len as usize
        };
        let mut back = 4;
        let mut n = 0;
        while back <= window {
            if self.get(back) == Some(hash) {
                n += 1;
            }
            back += 2;
        }
        n
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
}
